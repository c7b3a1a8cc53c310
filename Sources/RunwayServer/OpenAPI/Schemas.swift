import LinkRunwayAPI
import RunwayJSON

/// The component schemas of the OpenAPI document, one per wire type of `LinkRunwayAPI`.
enum Schemas {
    private typealias S = JSONSchema

    static let idPattern = "^[a-z]+_[0-9A-Za-z]{8,64}$"
    static let teamIdPattern = "^[A-Z0-9]{10}$"
    static let bundleIdPattern = "^[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+$"
    static let appStoreIdPattern = "^[1-9][0-9]{0,11}$"

    static let hostnamePattern = "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$"
    static let httpsPattern = "^https://"

    /// Optional in a request: the value or null.
    static func orNull(_ schema: JSONValue) -> JSONValue { .object([("anyOf", [schema, .object([("type", "null")])])]) }

    static var linkSchemas: [(String, JSONValue)] {
        let metadata = JSONValue.object([("type", "object"), ("description", "Free JSON for the app, at most 8 KiB.")])
        let https = S.string("An absolute https:// URL.", pattern: httpsPattern, maxLength: 2048)
        let tag = S.string("1 to 100 characters.", minLength: 1, maxLength: 100)
        let appPath = S.string("A place in the app, starting with /.", pattern: "^/", maxLength: 512)
        let linkFields: [(String, JSONValue)] = [
            ("appPath", orNull(appPath)),
            ("metadata", orNull(metadata)),
            ("destinations", orNull(S.ref("LinkDestinations"))),
            ("campaign", orNull(tag)), ("channel", orNull(tag)), ("feature", orNull(tag)),
            ("preview", orNull(S.ref("LinkPreview"))),
            ("interstitial", .object([("type", ["boolean", "null"])])),
            ("passQuery", .object([("type", ["boolean", "null"])])),
            ("expiresAt", orNull(S.timestamp)),
        ]
        return [
            ("LinkDomain", S.object([
                ("id", S.string("Domain id (dom_…).", pattern: idPattern)),
                ("workspaceId", S.string("Owning workspace.", pattern: idPattern)),
                ("hostname", S.string("The hostname.", pattern: hostnamePattern)),
                ("createdAt", S.timestamp),
            ], required: ["id", "workspaceId", "hostname", "createdAt"])),
            ("CreateLinkDomainRequest", S.object([
                ("workspaceId", S.string("Required with an admin key.", nullable: true)),
                ("hostname", S.string("go.example.com: no scheme, no port.", minLength: 1, maxLength: 253)),
            ], required: ["hostname"])),
            ("LinkDomainPage", S.page(of: "LinkDomain")),
            ("LinkDestinations", S.object([
                ("ios", orNull(S.object([
                    ("appStoreId", orNull(S.string("Defaults to the app's.", pattern: appStoreIdPattern))),
                    ("url", orNull(https)),
                ], required: []))),
                ("android", orNull(S.object([("url", https)], required: ["url"]))),
                ("web", orNull(https)),
            ], required: [], description: "Where devices go when the app does not open the link.")),
            ("LinkPreview", S.object([
                ("title", orNull(S.string("At most 300 characters.", maxLength: 300))),
                ("description", orNull(S.string("At most 300 characters.", maxLength: 300))),
                ("imageUrl", orNull(https)),
            ], required: [], description: "What the link looks like in messengers and social networks.")),
            ("Link", S.object([
                ("id", S.string("Link id (lnk_…).", pattern: idPattern)),
                ("workspaceId", S.string("Owning workspace.", pattern: idPattern)),
                ("appId", S.string("The app it opens.", pattern: idPattern)),
                ("kind", S.enumeration(["link", "share"], "Made by the owner, or shared by a user of the app.")),
                ("domain", S.string("Hostname.")),
                ("path", S.string("Path, matched without case.")),
                ("url", S.string("The full link.", pattern: httpsPattern)),
                ("appPath", appPath),
                ("metadata", metadata),
                ("destinations", S.ref("LinkDestinations")),
                ("campaign", S.string("Campaign tag.")), ("channel", S.string("Channel tag.")), ("feature", S.string("Feature tag.")),
                ("preview", S.ref("LinkPreview")),
                ("interstitial", .object([("type", "boolean")])),
                ("passQuery", .object([("type", "boolean")])),
                ("enabled", .object([("type", "boolean")])),
                ("expiresAt", S.timestamp),
                ("referrerInstallId", S.string("For shares: who shared it.")),
                ("createdAt", S.timestamp), ("updatedAt", S.timestamp),
            ], required: ["id", "workspaceId", "kind", "domain", "path", "url", "destinations", "interstitial", "passQuery", "enabled",
                          "createdAt", "updatedAt"])),
            ("CreateLinkRequest", S.object([
                ("workspaceId", S.string("Required with an admin key.", nullable: true)),
                ("appId", S.string("Defaults to the workspace's only app.", nullable: true)),
                ("domain", S.string("One of the workspace's link domains; its first by default.", nullable: true)),
                ("path", orNull(S.string("Custom path; generated when absent.", pattern: "^[A-Za-z0-9._~-]+(/[A-Za-z0-9._~-]+)*$", minLength: 1, maxLength: 200))),
            ] + linkFields, required: [])),
            ("UpdateLinkRequest", S.object(linkFields + [("enabled", .object([("type", ["boolean", "null"])]))], required: [],
                                           description: "Fields to change; absent or null fields stay.")),
            ("LinkPage", S.page(of: "Link")),
            ("ResolveRequest", S.object([
                ("url", S.string("The URL that opened the app.", minLength: 1, maxLength: 2048)),
                ("platform", S.enumeration(["ios", "android", "web"], "The client's platform.")),
                ("installId", orNull(S.string("The SDK's install id.", pattern: "^[0-9A-Za-z-]{1,64}$"))),
            ], required: ["url", "platform"])),
            ("ResolvedLink", S.object([
                ("linkId", S.string("Link id.", pattern: idPattern)),
                ("url", S.string("The link.")),
                ("appPath", appPath),
                ("metadata", metadata),
                ("clickToken", S.string("Identifies this open.", pattern: "^[0-9A-Za-z]{32}$")),
                ("signedClickId", S.string("This open, signed and expiring in 7 days.")),
                ("campaign", S.string("Campaign tag.")), ("channel", S.string("Channel tag.")), ("feature", S.string("Feature tag.")),
            ], required: ["linkId", "url", "clickToken", "signedClickId"])),
            ("CreateShareRequest", S.object([
                ("installId", S.string("The sharing installation.", pattern: "^[0-9A-Za-z-]{1,64}$")),
                ("appPath", appPath),
                ("metadata", orNull(metadata)),
                ("preview", orNull(S.ref("LinkPreview"))),
            ], required: ["installId", "appPath"])),
            ("Share", S.object([
                ("linkId", S.string("Link id.", pattern: idPattern)),
                ("url", S.string("The link to share.", pattern: httpsPattern)),
                ("path", S.string("Its path.")),
            ], required: ["linkId", "url", "path"])),
            ("CreateReferralCodeRequest", S.object([
                ("installId", orNull(S.string("An installation.", pattern: "^[0-9A-Za-z-]{1,64}$"))),
                ("userId", orNull(S.string("A user of the app.", minLength: 1, maxLength: 128))),
            ], required: [], description: "Give installId, userId or both (a user id wins).")),
            ("ReferralCode", S.object([
                ("code", S.string("Eight characters without look-alikes.", pattern: "^[2-9A-HJKMNP-Z]{8}$")),
                ("appId", S.string("App.", pattern: idPattern)),
                ("installId", S.string("Installation.")),
                ("userId", S.string("User.")),
                ("createdAt", S.timestamp),
            ], required: ["code", "appId", "createdAt"])),
            ("AppleAppSiteAssociation", S.object([
                ("applinks", .object([("type", "object")])),
            ], required: ["applinks"])),
        ]
    }

    static var all: [(String, JSONValue)] {
        let platform = S.enumeration(Platform.allCases.map(\.rawValue), "A platform the app ships on.")
        let kind = S.enumeration(KeyKind.allCases.map(\.rawValue), "publishable (lr_pk_, in apps), server (lr_sk_, backends) or admin (lr_ak_, everything).")
        let name = S.string("A name for people, 1 to 100 characters.", minLength: 1, maxLength: 100)
        let android = S.object([
            ("packageName", S.string("Java package name.", pattern: "^[A-Za-z][A-Za-z0-9_]*(\\.[A-Za-z][A-Za-z0-9_]*)+$", maxLength: 255)),
            ("sha256CertFingerprints", S.array(S.string("AB:CD:… (32 pairs).", pattern: "^([0-9A-Fa-f]{2}:){31}[0-9A-Fa-f]{2}$"),
                                               "Signing certificate fingerprints.", minItems: 1)),
        ], required: ["packageName", "sha256CertFingerprints"], description: "The Android twin of the app, for assetlinks.json.")
        let integer: (String, Int, Int) -> JSONValue = { description, low, high in
            .object([("type", "integer"), ("minimum", .number(String(low))), ("maximum", .number(String(high))), ("description", .string(description))])
        }
        let attribution = S.object([
            ("probabilisticMinutes", integer("Minutes after a click for a match by hashed address; 0 is off.", 0, 1440)),
            ("viewThroughHours", integer("Hours after an ad impression for a view-through match; 0 is off.", 0, 168)),
            ("clickWindowDays", integer("Days a click token can be matched.", 1, 30)),
        ], required: ["probabilisticMinutes", "viewThroughHours", "clickWindowDays"], description: "How installs are matched.")
        let attributionUpdate = orNull(S.object([
            ("probabilisticMinutes", orNull(integer("0 (off) to 1440.", 0, 1440))),
            ("viewThroughHours", orNull(integer("0 (off) to 168.", 0, 168))),
            ("clickWindowDays", orNull(integer("1 to 30.", 1, 30))),
        ], required: [], description: "Changes to how installs are matched; absent fields stay."))
        return [
            ("Error", S.object([
                ("error", S.object([
                    ("code", S.string("Stable machine-readable code, e.g. invalid_field.")),
                    ("message", S.string("What went wrong, for people.")),
                    ("field", S.string("The request field at fault, as a path.")),
                ], required: ["code", "message"])),
            ], required: ["error"])),
            ("HealthStatus", S.object([
                ("status", S.enumeration(["ok"], "Always ok while the process runs.")),
                ("version", S.string("The server's version.")),
            ], required: ["status", "version"])),
            ("ReadinessStatus", S.object([
                ("status", S.enumeration(["ready", "unavailable"], "Whether requests can be served.")),
                ("store", S.string("ok, or why the database cannot be reached.")),
            ], required: ["status", "store"])),
            ("Workspace", S.object([
                ("id", S.string("Workspace id (ws_…).", pattern: idPattern)),
                ("name", S.string("Name.")),
                ("createdAt", S.timestamp),
            ], required: ["id", "name", "createdAt"])),
            ("CreateWorkspaceRequest", S.object([("name", name)], required: ["name"])),
            ("WorkspacePage", S.page(of: "Workspace")),
            ("App", S.object([
                ("id", S.string("App id (app_…).", pattern: idPattern)),
                ("workspaceId", S.string("Owning workspace.", pattern: idPattern)),
                ("name", S.string("Name.")),
                ("teamId", S.string("Apple Developer Team ID.", pattern: teamIdPattern)),
                ("bundleId", S.string("Bundle ID.", pattern: bundleIdPattern)),
                ("appStoreId", S.string("Numeric App Store ID.", pattern: appStoreIdPattern)),
                ("platforms", S.array(platform, "Platforms.", minItems: 1)),
                ("android", android),
                ("attribution", attribution),
                ("createdAt", S.timestamp),
                ("updatedAt", S.timestamp),
            ], required: ["id", "workspaceId", "name", "teamId", "bundleId", "platforms", "attribution", "createdAt", "updatedAt"])),
            ("CreateAppRequest", S.object([
                ("workspaceId", S.string("Required with an admin key; a server key's own workspace by default.", nullable: true)),
                ("name", name),
                ("teamId", S.string("Apple Developer Team ID.", pattern: teamIdPattern)),
                ("bundleId", S.string("Bundle ID, reverse-DNS.", pattern: bundleIdPattern, maxLength: 155)),
                ("appStoreId", S.string("Numeric App Store ID.", pattern: appStoreIdPattern, nullable: true)),
                ("platforms", S.array(platform, "Defaults to [\"ios\"]; no repeats.", minItems: 1, nullable: true)),
                ("android", .object([("anyOf", [android, .object([("type", "null")])])])),
                ("attribution", attributionUpdate),
            ], required: ["name", "teamId", "bundleId"])),
            ("UpdateAppRequest", S.object([
                ("name", S.string("A name for people, 1 to 100 characters.", minLength: 1, maxLength: 100, nullable: true)),
                ("teamId", S.string("Apple Developer Team ID.", pattern: teamIdPattern, nullable: true)),
                ("bundleId", S.string("Bundle ID, reverse-DNS.", pattern: bundleIdPattern, maxLength: 155, nullable: true)),
                ("appStoreId", S.string("Numeric App Store ID.", pattern: appStoreIdPattern, nullable: true)),
                ("platforms", S.array(platform, "No repeats.", minItems: 1, nullable: true)),
                ("android", .object([("anyOf", [android, .object([("type", "null")])])])),
                ("attribution", attributionUpdate),
            ], required: [], description: "Fields to change; absent or null fields stay as they are.")),
            ("AppPage", S.page(of: "App")),
            ("APIKey", S.object([
                ("id", S.string("Key id (key_…).", pattern: idPattern)),
                ("kind", kind),
                ("name", S.string("Name.")),
                ("workspaceId", S.string("Absent for admin keys.", pattern: idPattern)),
                ("appId", S.string("Set for publishable keys.", pattern: idPattern)),
                ("displayPrefix", S.string("The first characters of the secret.")),
                ("createdAt", S.timestamp),
                ("revokedAt", S.timestamp),
            ], required: ["id", "kind", "name", "displayPrefix", "createdAt"])),
            ("CreateKeyRequest", S.object([
                ("kind", kind),
                ("name", S.string("A name for people, 1 to 100 characters.", minLength: 1, maxLength: 100, nullable: true)),
                ("workspaceId", S.string("For server keys created with an admin key.", nullable: true)),
                ("appId", S.string("Required for publishable keys.", nullable: true)),
            ], required: ["kind"])),
            ("CreatedKey", S.object([
                ("key", S.ref("APIKey")),
                ("secret", S.string("The key itself. Shown only in this response; store it now.", pattern: "^lr_(pk|sk|ak)_[0-9A-Za-z]{48}$")),
            ], required: ["key", "secret"])),
            ("APIKeyPage", S.page(of: "APIKey")),
        ] + linkSchemas + [
            ("WhoAmI", S.object([
                ("keyId", S.string("The key's id.", pattern: idPattern)),
                ("kind", kind),
                ("workspaceId", S.string("Absent for admin keys.", pattern: idPattern)),
                ("appId", S.string("Set for publishable keys.", pattern: idPattern)),
            ], required: ["keyId", "kind"])),
        ]
    }
}
