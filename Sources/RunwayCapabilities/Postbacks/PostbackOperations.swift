import LinkRunwayAPI
import AppleFormats
import RunwayHTTP
import RunwayKit

/// What the OpenAPI document says about each postbacks route.
extension Operation {
    static let setConversionSchema = Operation(
        id: "setConversionSchema", summary: "Set the app's conversion schema; each change is a new version, old ones are kept",
        tag: "Postbacks", access: Access.management, requestSchema: .of(ConversionSchemaRequest.self),
        responses: [.json(201, ConversionSchema.self, "The new version.")], maxBodyBytes: 128 * 1024)

    static let getConversionSchema = Operation(
        id: "getConversionSchema", summary: "The app's current conversion schema", tag: "Postbacks", access: Access.management,
        responses: [.json(200, ConversionSchema.self, "The newest version.")])

    static let listConversionSchemas = Operation(
        id: "listConversionSchemas", summary: "Every version of the app's conversion schema, newest first", tag: "Postbacks",
        access: Access.management, responses: [.json(200, ConversionSchemaList.self, "Up to 100 versions.")])

    static let mobileConfig = Operation(
        id: "mobileConfig", summary: "What the SDK needs to set conversion values; answers 304 to a matching If-None-Match",
        tag: "Postbacks", access: Access.client,
        responses: [.json(200, MobileConfig.self, "The app's configuration, with ETag and Cache-Control."),
                    ResponseDoc(status: 304, description: "The configuration the SDK holds is current.")], rateLimited: true)

    static let receiveSKAdNetworkPostback = receivePostback(.skadnetwork, id: "receiveSKAdNetworkPostback")

    static let receiveAdAttributionKitPostback = receivePostback(.adattributionkit, id: "receiveAdAttributionKitPostback")

    private static func receivePostback(_ framework: PostbackVerdict.Framework, id: String) -> Operation {
        Operation(
            id: id, summary: "Apple's \(framework == .skadnetwork ? "SKAdNetwork" : "AdAttributionKit") postback copies, on any host",
            tag: "Postbacks", access: .open,
            responses: [.json(200, PostbackReceipt.self, "Stored: valid, invalid (with the reason) or a duplicate.")],
            maxBodyBytes: PostbackReceiver.maxBodyBytes, errors: [413], rateLimited: true)
    }

    static let listPostbacks = Operation(
        id: "listPostbacks", summary: "Postbacks received, newest first, with their verdict and what they decode to",
        tag: "Postbacks", access: Access.management, responses: [.json(200, Page<StoredPostback>.self, "A page of postbacks.")],
        query: [
            QueryParameterDoc("workspaceId", "Only this workspace's (admin keys without it also see postbacks no app claimed)."),
            QueryParameterDoc("appId", "Only this app's."),
            QueryParameterDoc("status", "valid, invalid or duplicate."),
            QueryParameterDoc("environment", "production, or development for test postbacks (Apple's development keys or ad network)."),
        ] + pageQuery, errors: [404])

    static let postbackReport = Operation(
        id: "postbackReport", summary: "Postbacks, attributed installs and conversion values, grouped, with what tiers withheld",
        tag: "Reports", access: Access.management,
        responses: [.json(200, PostbackReport.self, "The report (send Accept: text/csv for CSV).")],
        query: ReportQuery.documentation(PostbackReports.groupings) + [
            QueryParameterDoc("environment", "production (default), or development: the sandbox view of test postbacks, which production never counts."),
        ])

    static let createAdNetwork = Operation(
        id: "createAdNetwork", summary: "Add an ad network identity with its P-256 key (made here unless you bring the one Apple knows)",
        tag: "Ad networks", access: Access.management, requestSchema: .of(CreateAdNetworkRequest.self),
        responses: [.json(201, AdNetwork.self, "The identity and its public key.")], maxBodyBytes: 16 * 1024, errors: [409])

    static let listAdNetworks = Operation(
        id: "listAdNetworks", summary: "List ad network identities (never their private keys)", tag: "Ad networks",
        access: Access.management, responses: [.json(200, Page<AdNetwork>.self, "A page of identities.")],
        query: [QueryParameterDoc("workspaceId", "Only this workspace's.")] + pageQuery, errors: [404])

    static let signImpression = Operation(
        id: "signImpression", summary: "Sign an impression as AdAttributionKit JWS or SKAdNetwork 4.0, and optionally record it",
        tag: "Ad networks", access: Access.management, requestSchema: .of(SignImpressionRequest.self),
        responses: [.json(201, SignedImpression.self, "The signed impression.")], maxBodyBytes: 8 * 1024)

    static let getAdAttributionSettings = Operation(
        id: "getAdAttributionSettings", summary: "The app's AdAttributionKit settings: postback copy opt-ins, attribution windows and cooldowns",
        tag: "Postbacks", access: Access.management, responses: [.json(200, AdAttributionSettings.self, "The settings (the defaults until set).")])

    static let setAdAttributionSettings = Operation(
        id: "setAdAttributionSettings", summary: "Replace the app's AdAttributionKit settings, checked against Apple's ranges",
        tag: "Postbacks", access: Access.management, requestSchema: .of(AdAttributionSettings.self),
        responses: [.json(200, AdAttributionSettings.self, "The settings stored.")], maxBodyBytes: 64 * 1024)

    static let infoPlistFragment = Operation(
        id: "infoPlistFragment", summary: "The Info.plist keys the app needs as an advertised app, a publisher app, or both",
        tag: "Postbacks", access: Access.management, responses: [.json(200, InfoPlistFragment.self, "An XML property list to merge into the app's Info.plist.")],
        query: [QueryParameterDoc("role", "both (default), advertised or publisher.")])

    static let checkInfoPlist = Operation(
        id: "checkInfoPlist", summary: "Check an Info.plist's AdAttributionKit and SKAdNetwork keys for the mistakes Apple's documentation warns about",
        tag: "Postbacks", access: Access.management, requestSchema: .of(CheckInfoPlistRequest.self),
        responses: [.json(200, InfoPlistCheck.self, "What was found; ok when nothing is an error.")], maxBodyBytes: 512 * 1024)
}
