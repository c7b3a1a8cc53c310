/// One rule of an app's conversion schema: when an event of `type` (and `name`, and at least `minAmount` minor
/// units) happens, the SDK sets Apple's fine value to `fine` (and the coarse value to `coarse`).
public struct ConversionRule: Codable, Sendable, Equatable {
    public var type: String
    public var name: String?
    public var minAmount: Int64?
    /// 0–63.
    public var fine: Int
    /// `low`, `medium` or `high`.
    public var coarse: String?
    /// Ask Apple to close the conversion window now.
    public var lockWindow: Bool?

    public init(type: String, name: String? = nil, minAmount: Int64? = nil, fine: Int, coarse: String? = nil, lockWindow: Bool? = nil) {
        self.type = type
        self.name = name
        self.minAmount = minAmount
        self.fine = fine
        self.coarse = coarse
        self.lockWindow = lockWindow
    }
}

extension ConversionRule: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = FieldNote.conversionRule.merging([
        "fine": .between(0, 63, "Apple's fine value."), "coarse": .coarseValue,
    ]) { $1 }
}

extension FieldNote {
    static let coarseValue = FieldNote.oneOf(["low", "medium", "high"], "Apple's coarse conversion value.")
    /// What the rules of either window say.
    static let conversionRule: [String: FieldNote] = [
        "type": .oneOf(EventRequest.types, "The event type the rule answers to."),
        "name": FieldNote("The event's name, for CUSTOM and others that carry one.", minLength: 1, maxLength: 100),
        "minAmount": .money(from: 0, "The least amount, in minor units."),
        "lockWindow": FieldNote("Ask Apple to close the window now."),
    ]
}

/// A rule for the second or third conversion window, where Apple reports only coarse values.
public struct LaterWindowRule: Codable, Sendable, Equatable {
    public var type: String
    public var name: String?
    public var minAmount: Int64?
    public var coarse: String
    public var lockWindow: Bool?

    public init(type: String, name: String? = nil, minAmount: Int64? = nil, coarse: String, lockWindow: Bool? = nil) {
        self.type = type
        self.name = name
        self.minAmount = minAmount
        self.coarse = coarse
        self.lockWindow = lockWindow
    }
}

extension LaterWindowRule: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = FieldNote.conversionRule.merging(["coarse": .coarseValue]) { $1 }
}

/// The coarse mapping of window 2 or 3.
public struct LaterWindow: Codable, Sendable, Equatable {
    public var window: Int
    public var rules: [LaterWindowRule]

    public init(window: Int, rules: [LaterWindowRule]) {
        self.window = window
        self.rules = rules
    }
}

extension LaterWindow: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "window": .between(2, 3, "The conversion window: 2 or 3."), "rules": .list(of: nil, "Its coarse rules.", minItems: 1),
    ]
}

/// `PUT /v1/apps/{appId}/conversion-schema`: a new version of the app's conversion schema.
public struct ConversionSchemaRequest: Codable, Sendable {
    public var rules: [ConversionRule]
    public var laterWindows: [LaterWindow]?

    public init(rules: [ConversionRule], laterWindows: [LaterWindow]? = nil) {
        self.rules = rules
        self.laterWindows = laterWindows
    }
}

extension ConversionSchemaRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "rules": FieldNote(minItems: 1, maxItems: 128),
        "laterWindows": .list(of: nil, "Coarse mappings of windows 2 and 3; rules' coarse values otherwise."),
    ]
}

/// One version of an app's conversion schema. Versions are kept, so postbacks decode with the one that set them.
public struct ConversionSchema: Codable, Sendable, Equatable {
    public var appId: String
    public var version: Int
    public var rules: [ConversionRule]
    public var laterWindows: [LaterWindow]
    public var createdAt: String

    public init(appId: String, version: Int, rules: [ConversionRule], laterWindows: [LaterWindow], createdAt: String) {
        self.appId = appId
        self.version = version
        self.rules = rules
        self.laterWindows = laterWindows
        self.createdAt = createdAt
    }
}

extension ConversionSchema: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "appId": .id("App."), "version": .between(1, Int64(Int32.max), "Version, from 1."),
        "rules": .list(of: nil, "First-window rules."), "laterWindows": .list(of: nil, "Windows 2 and 3."), "createdAt": .timestamp,
    ]
}

/// `GET /v1/mobile/config/{appId}`: what the SDK needs to update conversion values.
public struct MobileConfig: Codable, Sendable, Equatable {
    public var appId: String
    /// Absent until the app has a conversion schema.
    public var conversions: ConversionSchema?
    /// How long the SDK may keep this answer before asking again.
    public var refreshSeconds: Int

    public init(appId: String, conversions: ConversionSchema?, refreshSeconds: Int) {
        self.appId = appId
        self.conversions = conversions
        self.refreshSeconds = refreshSeconds
    }
}

extension MobileConfig: DescribedWireType {
    public static let notes: [String: FieldNote] = ["appId": .id("App."), "refreshSeconds": .count]
}

extension FieldNote {
    /// A count: zero or more.
    static let count = FieldNote.between(0, nil)
}

/// An ad network's campaign or source identifier, named for reports.
public struct PostbackCampaign: Codable, Sendable, Equatable {
    public var adNetworkId: String
    /// `campaign-id` (SKAdNetwork 1.0–3.0) or `source-identifier` (SKAdNetwork 4.0, AdAttributionKit), as digits.
    public var sourceIdentifier: String
    public var name: String

    public init(adNetworkId: String, sourceIdentifier: String, name: String) {
        self.adNetworkId = adNetworkId
        self.sourceIdentifier = sourceIdentifier
        self.name = name
    }
}

extension PostbackCampaign: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "adNetworkId": FieldNote("The ad network's id.", minLength: 1, maxLength: 100),
        "sourceIdentifier": FieldNote("campaign-id or source-identifier digits.", pattern: "^[0-9]{1,4}$"),
        "name": FieldNote("The campaign's name in reports.", minLength: 1, maxLength: 100),
    ]
}

/// How an app's postbacks are received, named and forwarded.
public struct PostbackSettings: Codable, Sendable, Equatable {
    /// Accept AdAttributionKit postbacks signed with Apple's development keys (for testing only).
    public var acceptDevelopment: Bool
    /// Partners that receive every verified postback, raw.
    public var forwardUrls: [String]
    public var campaigns: [PostbackCampaign]

    public init(acceptDevelopment: Bool = false, forwardUrls: [String] = [], campaigns: [PostbackCampaign] = []) {
        self.acceptDevelopment = acceptDevelopment
        self.forwardUrls = forwardUrls
        self.campaigns = campaigns
    }
}

extension PostbackSettings: DescribedWireType {
    public static let role = WireRole.request
    public static let summary: String? = "How the app's postbacks are received, named and forwarded."
    public static let notes: [String: FieldNote] = [
        "forwardUrls": .list(of: FieldNote(FieldNote.outboundURL, maxLength: 2048), "At most 5 partners."),
        "campaigns": .list(of: nil, "At most 1000."),
    ]
}

/// What a conversion value stood for, per the schema version that decoded it.
public struct DecodedConversion: Codable, Sendable, Equatable {
    public var type: String
    public var name: String?
    public var minAmount: Int64?

    public init(type: String, name: String? = nil, minAmount: Int64? = nil) {
        self.type = type
        self.name = name
        self.minAmount = minAmount
    }
}

extension DecodedConversion: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "type": FieldNote("Event type."), "name": FieldNote("Event name."), "minAmount": .count,
    ]
}

/// A postback as stored: what Apple sent, whether it verified, and what it says.
public struct StoredPostback: Codable, Sendable, Equatable {
    public var id: String
    /// `skadnetwork` or `adattributionkit`.
    public var framework: String
    /// `valid`, `invalid` or `duplicate`.
    public var status: String
    public var reason: String?
    public var detail: String?
    public var receivedAt: String
    public var appId: String?
    public var version: String?
    public var kid: String?
    public var environment: String
    public var adNetworkId: String?
    public var campaignId: String?
    public var sourceIdentifier: String?
    /// The campaign name the app's settings give this network's identifier.
    public var campaign: String?
    public var appStoreId: String?
    public var transactionId: String?
    /// 1, 2 or 3.
    public var window: Int
    public var didWin: Bool?
    public var redownload: Bool?
    public var conversionType: String?
    public var fidelityType: Int?
    public var sourceAppId: String?
    public var sourceDomain: String?
    public var fineValue: Int?
    public var coarseValue: String?
    /// `country-code`: the storefront's country (ISO 3166-1 alpha-2), which Apple leaves out below the crowd-anonymity
    /// tier that allows it (tier 3). Not covered by Apple's signature.
    /// https://developer.apple.com/documentation/adattributionkit/identifying-the-parameters-in-a-postback
    public var countryCode: String?
    public var interactionType: String?
    /// The crowd-anonymity tier the fields imply (`0`, `1`, `2`, `3`, or a range such as `0-1`); absent before
    /// SKAdNetwork 4.0.
    public var tier: String?
    public var schemaVersion: Int?
    public var decoded: [DecodedConversion]?
    /// AdAttributionKit `marketplace-identifier`: the bundle id of the store the app came from (`com.apple.AppStore`),
    /// left out at the lowest postback data tier.
    public var marketplace: String?
    /// The ad network's name when LinkRunway knows it: `Apple Ads` for `com.apple.ads`.
    public var adNetworkName: String?
    /// Apple Ads only: the App Store placement its campaign id or source identifier stands for (`search_results`,
    /// `search_tab`, `today_tab`, `product_pages`, or `other` for a number not known yet).
    public var placement: String?

    public init(id: String, framework: String, status: String, reason: String? = nil, detail: String? = nil, receivedAt: String,
                appId: String? = nil, version: String? = nil, kid: String? = nil, environment: String, adNetworkId: String? = nil,
                campaignId: String? = nil, sourceIdentifier: String? = nil, campaign: String? = nil, appStoreId: String? = nil,
                transactionId: String? = nil, window: Int, didWin: Bool? = nil, redownload: Bool? = nil, conversionType: String? = nil,
                fidelityType: Int? = nil, sourceAppId: String? = nil, sourceDomain: String? = nil, fineValue: Int? = nil,
                coarseValue: String? = nil, countryCode: String? = nil, interactionType: String? = nil, tier: String? = nil,
                schemaVersion: Int? = nil, decoded: [DecodedConversion]? = nil, marketplace: String? = nil, adNetworkName: String? = nil,
                placement: String? = nil) {
        self.id = id
        self.framework = framework
        self.status = status
        self.reason = reason
        self.detail = detail
        self.receivedAt = receivedAt
        self.appId = appId
        self.version = version
        self.kid = kid
        self.environment = environment
        self.adNetworkId = adNetworkId
        self.campaignId = campaignId
        self.sourceIdentifier = sourceIdentifier
        self.campaign = campaign
        self.appStoreId = appStoreId
        self.transactionId = transactionId
        self.window = window
        self.didWin = didWin
        self.redownload = redownload
        self.conversionType = conversionType
        self.fidelityType = fidelityType
        self.sourceAppId = sourceAppId
        self.sourceDomain = sourceDomain
        self.fineValue = fineValue
        self.coarseValue = coarseValue
        self.countryCode = countryCode
        self.interactionType = interactionType
        self.tier = tier
        self.schemaVersion = schemaVersion
        self.decoded = decoded
        self.marketplace = marketplace
        self.adNetworkName = adNetworkName
        self.placement = placement
    }
}

extension StoredPostback: DescribedWireType {
    public static let pageComponentName = "PostbackPage"
    public static let notes: [String: FieldNote] = [
        "id": .id("Postback id (pb_…)."), "framework": .oneOf(["skadnetwork", "adattributionkit"], "Which receiver."),
        "status": .postbackStatus, "reason": FieldNote("Why not valid (a stable code)."),
        "detail": FieldNote("Why, for people."), "receivedAt": .timestamp, "appId": FieldNote("The app it was for."),
        "version": FieldNote("SKAdNetwork version."), "kid": FieldNote("AdAttributionKit key id."),
        "environment": .oneOf(["production", "development"], "development for a test postback (Apple's development keys or its development ad network)."),
        "adNetworkId": FieldNote("Ad network."), "campaignId": FieldNote("SKAdNetwork 1–3 campaign."),
        "sourceIdentifier": FieldNote("Source identifier digits."), "campaign": FieldNote("The app's name for it."),
        "appStoreId": FieldNote("The advertised app."), "transactionId": FieldNote("Transaction or postback identifier."),
        "window": .between(1, 3, "Conversion window."), "conversionType": FieldNote("download, redownload or re-engagement."),
        "fidelityType": .count, "sourceAppId": FieldNote("Publisher app."), "sourceDomain": FieldNote("Publisher domain."),
        "fineValue": .between(0, 63, "Fine value."), "coarseValue": FieldNote("Coarse value."), "countryCode": FieldNote("country-code: the storefront's country, present only at the highest crowd-anonymity tier; unsigned."),
        "interactionType": FieldNote("click or view."), "tier": FieldNote("Crowd-anonymity tier the fields imply."),
        "schemaVersion": .count, "decoded": .list(of: nil, "What the value stood for."),
        "marketplace": FieldNote("AdAttributionKit marketplace-identifier: the store's bundle id; absent at the lowest tier."),
        "adNetworkName": FieldNote("The ad network's name when known: Apple Ads for com.apple.ads."),
        "placement": .oneOf(FieldNote.applePlacements, "Apple Ads only: the App Store placement its campaign id or source identifier stands for."),
    ]
}

extension FieldNote {
    /// Where in the App Store an Apple Ads postback's ad ran: 10, 20, 30 and 40 of its campaign id or source identifier.
    public static let applePlacements = ["search_results", "search_tab", "today_tab", "product_pages", "other"]
}

extension FieldNote {
    static let postbackStatus = FieldNote.oneOf(["valid", "invalid", "duplicate"], "The verdict.")
}

/// One group of `GET /v1/reports/postbacks`.
public struct PostbackReportRow: Codable, Sendable, Equatable {
    public var key: String
    /// Verified, first-seen postbacks.
    public var postbacks: Int
    /// Verified winning first-window postbacks of downloads and redownloads: attributed installs.
    public var installs: Int
    public var redownloads: Int
    /// Verified winning AdAttributionKit re-engagements.
    public var reengagements: Int
    /// Verified postbacks that did not win (kept, never counted as installs).
    public var nonWinning: Int
    /// Verified winning postbacks whose conversion value the tier withheld (neither fine nor coarse).
    public var withheld: Int
    public var fineValues: Int
    /// Postbacks with only a coarse value.
    public var coarseValues: Int
    public var invalid: Int
    public var duplicates: Int
    /// What the key stands for, when LinkRunway knows: `Apple Ads` for its network id, its placement in words.
    public var label: String?
    /// Of the verified postbacks, how many lack each field Apple withholds below the postback data tier that allows it.
    public var missingFields: PostbackMissingFields

    public init(key: String, postbacks: Int = 0, installs: Int = 0, redownloads: Int = 0, reengagements: Int = 0, nonWinning: Int = 0,
                withheld: Int = 0, fineValues: Int = 0, coarseValues: Int = 0, invalid: Int = 0, duplicates: Int = 0, label: String? = nil,
                missingFields: PostbackMissingFields = PostbackMissingFields()) {
        self.key = key
        self.label = label
        self.missingFields = missingFields
        self.postbacks = postbacks
        self.installs = installs
        self.redownloads = redownloads
        self.reengagements = reengagements
        self.nonWinning = nonWinning
        self.withheld = withheld
        self.fineValues = fineValues
        self.coarseValues = coarseValues
        self.invalid = invalid
        self.duplicates = duplicates
    }
}

extension PostbackReportRow {
    /// For tables: the key, with its label when it has one (`com.apple.ads (Apple Ads)`).
    public var displayKey: String { label.map { "\(key) (\($0))" } ?? key }
}

extension PostbackReportRow: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "key": FieldNote("The group."), "postbacks": .count, "installs": .count, "redownloads": .count, "reengagements": .count,
        "nonWinning": .count, "withheld": .count, "fineValues": .count, "coarseValues": .count, "invalid": .count, "duplicates": .count,
        "label": FieldNote("What the key stands for, when known (Apple Ads, a placement)."),
        "missingFields": FieldNote("Verified postbacks lacking each field Apple withholds at lower postback data tiers."),
    ]
}

/// How many of a group's verified postbacks lack one field that Apple includes only at the postback data tiers that
/// allow it.
public struct MissingFieldCount: Codable, Sendable, Equatable {
    /// Postbacks without it (the source identifier: with fewer than its four digits).
    public var missing: Int
    /// Postbacks whose format has the field at some tier: the share's denominator.
    public var outOf: Int
    /// `missing / outOf`, to four places; 0 when `outOf` is 0.
    public var share: Double

    public init(missing: Int = 0, outOf: Int = 0) {
        self.missing = missing
        self.outOf = outOf
        self.share = outOf > 0 ? (Double(missing) / Double(outOf) * 10_000).rounded() / 10_000 : 0
    }

    /// For tables: `40% (2 of 5)`, or `–` when no postback could carry the field. The percentage is worked out from the
    /// counts and held to 0–100, so a count read from elsewhere cannot make it trap.
    public var summary: String {
        guard outOf > 0 else { return "–" }
        let percent = min(max((Double(missing) / Double(outOf) * 100).rounded(), 0), 100)
        return "\(Int(percent))% (\(missing) of \(outOf))"
    }
}

extension MissingFieldCount: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "missing": .between(0, nil, "Postbacks without it (a source identifier: fewer than four digits)."),
        "outOf": .between(0, nil, "Postbacks whose format has the field."),
        "share": FieldNote.between(0, 1, "missing / outOf, to four places; 0 when outOf is 0."),
    ]
}

/// The fields Apple withholds at lower postback data tiers (crowd anonymity), each with how many postbacks lack it.
public struct PostbackMissingFields: Codable, Sendable, Equatable {
    /// AdAttributionKit `country-code`, sent only when the country's crowd reaches the highest tier.
    public var countryCode: MissingFieldCount
    /// AdAttributionKit `marketplace-identifier`, left out at tier 0.
    public var marketplaceIdentifier: MissingFieldCount
    /// Digits of `source-identifier` (SKAdNetwork 4.0, AdAttributionKit): two or three instead of four.
    public var sourceIdentifierDigits: MissingFieldCount
    /// The publisher: `source-app-id` or `source-domain` (SKAdNetwork 2.0 and later), `publisher-item-identifier`
    /// (AdAttributionKit).
    public var publisher: MissingFieldCount

    public init(countryCode: MissingFieldCount = MissingFieldCount(), marketplaceIdentifier: MissingFieldCount = MissingFieldCount(),
                sourceIdentifierDigits: MissingFieldCount = MissingFieldCount(), publisher: MissingFieldCount = MissingFieldCount()) {
        self.countryCode = countryCode
        self.marketplaceIdentifier = marketplaceIdentifier
        self.sourceIdentifierDigits = sourceIdentifierDigits
        self.publisher = publisher
    }
}

extension PostbackMissingFields: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "countryCode": FieldNote("AdAttributionKit country-code: only when the country's crowd reaches tier 3."),
        "marketplaceIdentifier": FieldNote("AdAttributionKit marketplace-identifier: absent at tier 0."),
        "sourceIdentifierDigits": FieldNote("source-identifier with two or three digits instead of four."),
        "publisher": FieldNote("source-app-id or source-domain (SKAdNetwork), publisher-item-identifier (AdAttributionKit)."),
    ]
}

/// `POST /v1/ad-networks`: an ad network identity this workspace signs impressions with.
public struct CreateAdNetworkRequest: Codable, Sendable {
    public var workspaceId: String?
    /// As registered with Apple, e.g. `example.skadnetwork` or `example.adattributionkit`: lower-case, as Apple matches
    /// it (https://developer.apple.com/documentation/adattributionkit/configuring-a-publisher-app);
    /// an id with capitals is refused, not changed.
    public var adNetworkId: String
    /// The P-256 key registered with Apple (PKCS#8 PEM); a new one is made when absent.
    public var privateKeyPem: String?

    public init(workspaceId: String? = nil, adNetworkId: String, privateKeyPem: String? = nil) {
        self.workspaceId = workspaceId
        self.adNetworkId = adNetworkId
        self.privateKeyPem = privateKeyPem
    }
}

extension CreateAdNetworkRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "workspaceId": .adminWorkspace,
        "adNetworkId": FieldNote("As registered with Apple, lower-case.", pattern: "^[a-z0-9._-]{3,100}$"),
        "privateKeyPem": FieldNote("The P-256 key Apple knows, PKCS#8 PEM; made here when absent.", maxLength: 8192),
    ]
}

/// An ad network identity; the private key never leaves the server.
public struct AdNetwork: Codable, Sendable, Equatable {
    public var id: String
    public var workspaceId: String
    public var adNetworkId: String
    /// SubjectPublicKeyInfo, base64: what Apple needs.
    public var publicKey: String
    public var createdAt: String

    public init(id: String, workspaceId: String, adNetworkId: String, publicKey: String, createdAt: String) {
        self.id = id
        self.workspaceId = workspaceId
        self.adNetworkId = adNetworkId
        self.publicKey = publicKey
        self.createdAt = createdAt
    }
}

extension AdNetwork: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "id": .id("Id (adn_…)."), "workspaceId": .id("Workspace."), "adNetworkId": FieldNote("Ad network id."),
        "publicKey": FieldNote("SubjectPublicKeyInfo, base64: what Apple needs."), "createdAt": .timestamp,
    ]
}

/// Where a signed impression is also recorded for view-through matching.
public struct ImpressionRecord: Codable, Sendable, Equatable {
    public var appId: String
    /// The device's numeric address; only its keyed hash is kept.
    public var ip: String
    public var campaign: String?

    public init(appId: String, ip: String, campaign: String? = nil) {
        self.appId = appId
        self.ip = ip
        self.campaign = campaign
    }
}

extension ImpressionRecord: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "appId": FieldNote("App.", minLength: 1), "ip": FieldNote("The device's numeric address.", minLength: 2, maxLength: 45),
        "campaign": FieldNote("Campaign (the source identifier by default).", minLength: 1, maxLength: 100),
    ]
}

/// `POST /v1/ad-networks/{id}/impressions`: sign an impression.
public struct SignImpressionRequest: Codable, Sendable {
    /// `adattributionkit` or `skadnetwork-4.0`.
    public var format: String
    public var sourceIdentifier: Int
    public var advertisedItemId: Int64
    public var publisherItemId: Int64?
    public var impressionId: String?
    /// Milliseconds since 1970; now when absent.
    public var timestamp: Int64?
    public var fidelityType: Int?
    public var eligibleForReengagement: Bool?
    public var record: ImpressionRecord?

    public init(format: String, sourceIdentifier: Int, advertisedItemId: Int64, publisherItemId: Int64? = nil, impressionId: String? = nil,
                timestamp: Int64? = nil, fidelityType: Int? = nil, eligibleForReengagement: Bool? = nil, record: ImpressionRecord? = nil) {
        self.format = format
        self.sourceIdentifier = sourceIdentifier
        self.advertisedItemId = advertisedItemId
        self.publisherItemId = publisherItemId
        self.impressionId = impressionId
        self.timestamp = timestamp
        self.fidelityType = fidelityType
        self.eligibleForReengagement = eligibleForReengagement
        self.record = record
    }
}

extension SignImpressionRequest: DescribedWireType {
    /// What an impression can be signed as.
    public static let formats = ["adattributionkit", "skadnetwork-4.0"]

    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "format": .oneOf(formats, "What to sign."), "sourceIdentifier": .between(0, 9999, "Up to four digits."),
        "advertisedItemId": .between(1, 999_999_999_999, "App Store id."),
        "publisherItemId": .between(0, 999_999_999_999, "The app showing the ad; 0 while testing."),
        "impressionId": FieldNote("A UUID; made here when absent.", maxLength: 36),
        "timestamp": .between(0, WireLimits.latestTime, "Milliseconds since 1970, within a day of now."),
        "fidelityType": .between(0, 1, "1 StoreKit-rendered, 0 view-through."),
    ]
}

/// A signed impression: a compact JWS (AdAttributionKit) or the parameters and signature for StoreKit (SKAdNetwork).
public struct SignedImpression: Codable, Sendable, Equatable {
    public var format: String
    public var adNetworkId: String
    public var impressionId: String
    public var timestamp: Int64
    public var sourceIdentifier: Int
    public var advertisedItemId: Int64
    public var publisherItemId: Int64
    public var fidelityType: Int
    public var jws: String?
    /// Base64 DER ECDSA signature (SKAdNetwork).
    public var signature: String?
    /// The exact string signed (SKAdNetwork).
    public var signedMessage: String?
    /// The impression recorded for view-through matching, when asked.
    public var recordedImpressionId: String?

    public init(format: String, adNetworkId: String, impressionId: String, timestamp: Int64, sourceIdentifier: Int, advertisedItemId: Int64,
                publisherItemId: Int64, fidelityType: Int, jws: String? = nil, signature: String? = nil, signedMessage: String? = nil,
                recordedImpressionId: String? = nil) {
        self.format = format
        self.adNetworkId = adNetworkId
        self.impressionId = impressionId
        self.timestamp = timestamp
        self.sourceIdentifier = sourceIdentifier
        self.advertisedItemId = advertisedItemId
        self.publisherItemId = publisherItemId
        self.fidelityType = fidelityType
        self.jws = jws
        self.signature = signature
        self.signedMessage = signedMessage
        self.recordedImpressionId = recordedImpressionId
    }
}

extension SignedImpression: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "format": FieldNote("What was signed."), "adNetworkId": FieldNote("Ad network."), "impressionId": FieldNote("The impression's UUID."),
        "sourceIdentifier": .count, "advertisedItemId": .count, "publisherItemId": .count, "fidelityType": .count,
        "jws": FieldNote("AdAttributionKit compact JWS."), "signature": FieldNote("SKAdNetwork signature, base64 DER."),
        "signedMessage": FieldNote("The exact string signed."),
        "recordedImpressionId": FieldNote("The impression recorded for view-through matching."),
    ]
}

/// `GET /v1/apps/{appId}/conversion-schema/versions`.
public struct ConversionSchemaList: Codable, Sendable, Equatable {
    public var items: [ConversionSchema]

    public init(items: [ConversionSchema]) { self.items = items }
}

extension ConversionSchemaList: DescribedWireType {
    public static let notes: [String: FieldNote] = ["items": .list(of: nil, "Newest first.")]
}

/// `GET /v1/reports/postbacks`.
public struct PostbackReport: Codable, Sendable, Equatable {
    public var from: String
    public var to: String
    public var groupBy: String
    /// `production`, or `development` for the sandbox view: postbacks signed with Apple's development keys or for
    /// its development ad network, which the production view never counts.
    public var environment: String
    public var rows: [PostbackReportRow]

    public init(from: String, to: String, groupBy: String, environment: String = "production", rows: [PostbackReportRow]) {
        self.from = from
        self.to = to
        self.groupBy = groupBy
        self.environment = environment
        self.rows = rows
    }
}

extension PostbackReport: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "from": .timestamp, "to": .timestamp, "groupBy": FieldNote("The grouping."),
        "environment": .oneOf(["production", "development"], "Which view: production, or the development sandbox."),
        "rows": .list(of: nil, "One per group."),
    ]
}

/// What the receivers answer Apple (and anyone else): the stored postback's id and status.
public struct PostbackReceipt: Codable, Sendable, Equatable {
    public var id: String
    /// `valid`, `invalid` or `duplicate`.
    public var status: String
    public var reason: String?

    public init(id: String, status: String, reason: String? = nil) {
        self.id = id
        self.status = status
        self.reason = reason
    }
}

extension PostbackReceipt: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "id": .id("Postback id."), "status": .postbackStatus, "reason": FieldNote("Why not valid."),
    ]
}
