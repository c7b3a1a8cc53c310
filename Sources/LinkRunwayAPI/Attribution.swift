import RunwayJSON

/// `POST /v1/installs/match`: the SDK's first-launch question.
public struct MatchInstallRequest: Codable, Sendable {
    public var installId: String
    /// `ios` or `tvos`.
    public var platform: String
    public var osVersion: String?
    public var language: String?
    /// Must be true: nothing is stored for a client without consent.
    public var consent: Bool
    /// A click token the app already holds (from a resolved link).
    public var clickToken: String?
    /// An App Attest token (`POST /v1/attest/apple/…`), required when the app requires attestation.
    public var attestation: String?
    /// A random secret (16 to 128 visible characters) the device keeps: the first one sent for an install is kept (as
    /// a hash), and forgetting the install then needs it in `LinkRunway-Install-Secret`.
    public var installSecret: String?
    /// True when this device already reported its installation under an install id it has since deleted (consent was
    /// withdrawn and given again): the new id is registered unmatched and left out of install counts. It names no
    /// earlier id.
    public var returning: Bool?
    /// StoreKit 2's `AppTransaction.appTransactionID` as the client reports it: kept with the install, never used to
    /// credit a purchase. Ignored when `returning` is true or `signedAppTransaction` is sent.
    public var appTransactionId: String?
    /// `AppTransaction.shared`'s `jwsRepresentation`: verified to Apple's root for the app's bundle id, App Store id
    /// and environment, its id is owned by the first install that proves it, and purchases made without the bind's
    /// appAccountToken are credited through it. Ignored when `returning` is true.
    public var signedAppTransaction: String?
    /// iOS 27's `AppTransaction.all`: every signed app transaction of this app version, each verified as
    /// `signedAppTransaction` is; the stores they name are kept with the install. Ignored when `returning` is true.
    public var signedAppTransactions: [String]?
    /// App Attest's `isSupported`, sent where the SDK expected it (a device, not a simulator or an extension).
    public var appAttestSupported: Bool?

    public init(installId: String, platform: String, osVersion: String? = nil, language: String? = nil, consent: Bool,
                clickToken: String? = nil, attestation: String? = nil, installSecret: String? = nil, returning: Bool? = nil,
                appTransactionId: String? = nil, signedAppTransaction: String? = nil, signedAppTransactions: [String]? = nil,
                appAttestSupported: Bool? = nil) {
        self.signedAppTransactions = signedAppTransactions
        self.appAttestSupported = appAttestSupported
        self.returning = returning
        self.appTransactionId = appTransactionId
        self.signedAppTransaction = signedAppTransaction
        self.installId = installId
        self.platform = platform
        self.osVersion = osVersion
        self.language = language
        self.consent = consent
        self.installSecret = installSecret
        self.clickToken = clickToken
        self.attestation = attestation
    }
}

extension MatchInstallRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "installId": .installId,
        "platform": .oneOf(["ios", "tvos"], "The device's platform."),
        "osVersion": .osVersion,
        "language": FieldNote("A language tag.", pattern: "^[A-Za-z0-9_-]{1,35}$"),
        "consent": FieldNote("Must be true."),
        "clickToken": FieldNote("A click token the app holds.", maxLength: 64),
        "attestation": .attestationToken,
        "installSecret": FieldNote("A random secret the device keeps; forgetting the install then needs it in LinkRunway-Install-Secret.",
                                   pattern: "^[!-~]{16,128}$", minLength: 16, maxLength: 128),
        "returning": FieldNote("This device reported its installation before, under an id it has since deleted: register unmatched and leave out of install counts."),
        "appTransactionId": FieldNote("StoreKit 2's AppTransaction.appTransactionID as reported: kept with the install, never used to credit a purchase (ignored when returning or signedAppTransaction is sent).",
                                      pattern: "^[A-Za-z0-9-]{1,64}$", minLength: 1, maxLength: 64),
        "signedAppTransaction": FieldNote("AppTransaction.shared's jwsRepresentation, verified to Apple's root for the app's bundle id, App Store id and environment; the first install to prove its id owns it (ignored when returning).",
                                          minLength: 1, maxLength: 16_384),
        "signedAppTransactions": .list(of: FieldNote("An app transaction's jwsRepresentation.", minLength: 1, maxLength: 16_384),
                                       "AppTransaction.all (iOS 27): each verified as signedAppTransaction is; the stores they name are kept with the install (ignored when returning).",
                                       minItems: 1, maxItems: 8),
        "appAttestSupported": FieldNote("App Attest's isSupported where the SDK expected it; false is kept as a fraud signal."),
    ]
}

extension FieldNote {
    /// The SDK's install id in a request.
    static let installId = FieldNote("The SDK's install id (a UUID).", pattern: WirePattern.installId)
    static let osVersion = FieldNote("major.minor", pattern: "^[0-9.]{1,16}$")
    static let attestationToken = FieldNote("An App Attest token from /v1/attest/apple/register or /assert.", maxLength: 1024)
    /// A time a caller gives.
    static let isoTime = FieldNote("ISO 8601 time.", minLength: 1, maxLength: 40)
    /// How an install was matched.
    static let matchMethod = FieldNote.oneOf(["referrer", "probabilistic", "view_through", "unmatched"], "How the install was matched.")
    /// The tags an attribution carries.
    static let attributionTags: [String: FieldNote] = [
        "linkId": FieldNote("Link."), "campaign": FieldNote("Campaign."), "channel": FieldNote("Channel."), "feature": FieldNote("Feature."),
    ]
}

/// The stored answer for an installation; the same install id always gets the same one.
public struct InstallMatch: Codable, Sendable, Equatable {
    public var installId: String
    public var appId: String
    public var matched: Bool
    /// `referrer`, `probabilistic`, `view_through` or `unmatched`.
    public var method: String
    /// 1 for a referrer match, less for estimates, 0 when unmatched.
    public var confidence: Double
    /// `link`, `ad:<network>`, `organic`, or `returning` (registered again after consent was given again).
    public var source: String
    /// The matched click's token.
    public var clickId: String?
    public var linkId: String?
    /// The link's in-app path.
    public var path: String?
    public var url: String?
    public var metadata: [String: JSONLiteral]?
    public var campaign: String?
    public var channel: String?
    public var feature: String?
    /// The variant of the matched click, when its link or rule has variants: the app may show what it promised.
    public var variant: String?
    public var matchedAt: String
    /// The stores Apple's verified app transactions sent with the match name (`CONSUMER`, `EDUCATION`,
    /// `ENTERPRISE`, or what Apple adds), sorted; absent when none was sent or verified.
    public var storeTypes: [String]?
    /// App Attest's `isSupported` as the SDK reported it on a device that should support it; false is a fraud signal.
    public var appAttestSupported: Bool?

    public init(installId: String, appId: String, matched: Bool, method: String, confidence: Double, source: String,
                clickId: String?, linkId: String?, path: String?, url: String?, metadata: [String: JSONLiteral]?,
                campaign: String?, channel: String?, feature: String?, variant: String? = nil, matchedAt: String,
                storeTypes: [String]? = nil, appAttestSupported: Bool? = nil) {
        self.storeTypes = storeTypes
        self.appAttestSupported = appAttestSupported
        self.installId = installId
        self.appId = appId
        self.matched = matched
        self.method = method
        self.confidence = confidence
        self.source = source
        self.clickId = clickId
        self.linkId = linkId
        self.path = path
        self.url = url
        self.metadata = metadata
        self.campaign = campaign
        self.channel = channel
        self.feature = feature
        self.variant = variant
        self.matchedAt = matchedAt
    }
}

extension InstallMatch: DescribedWireType {
    public static let notes: [String: FieldNote] = FieldNote.attributionTags.merging([
        "installId": FieldNote("Install id."), "appId": .id("App."), "method": .matchMethod, "confidence": .between(0, 1),
        "source": FieldNote("link, ad:<network>, organic or returning (registered again after consent was given again)."),
        "clickId": FieldNote("The matched click's token."), "path": FieldNote("The link's in-app path."), "url": FieldNote("The link."),
        "matchedAt": .timestamp,
        "storeTypes": .list(of: FieldNote("Apple's storeType: CONSUMER, EDUCATION, ENTERPRISE, or a value Apple adds."),
                            "The stores Apple's verified app transactions sent with the match name, sorted."),
        "appAttestSupported": FieldNote("App Attest's isSupported as the SDK reported it where it was expected; false is a fraud signal."),
    ]) { $1 }
}

/// One thing the matcher looked at.
public struct MatchCandidate: Codable, Sendable, Equatable {
    /// `referrer`, `probabilistic` or `view_through`.
    public var method: String
    public var clickToken: String?
    public var impressionId: String?
    public var linkId: String?
    public var network: String?
    public var campaign: String?
    /// How long before the match the click or impression happened.
    public var ageSeconds: Int
    public var eligible: Bool
    /// Why it was taken or passed over.
    public var reason: String

    public init(method: String, clickToken: String? = nil, impressionId: String? = nil, linkId: String? = nil, network: String? = nil,
                campaign: String? = nil, ageSeconds: Int, eligible: Bool, reason: String) {
        self.method = method
        self.clickToken = clickToken
        self.impressionId = impressionId
        self.linkId = linkId
        self.network = network
        self.campaign = campaign
        self.ageSeconds = ageSeconds
        self.eligible = eligible
        self.reason = reason
    }
}

/// A match's explanation holds several candidates, and is written with every match: each writes itself.
extension MatchCandidate: CompactJSONWritable {
    public func write(into writer: inout CompactJSONObjectWriter) {
        writer.member("ageSeconds", ageSeconds)
        writer.member("campaign", campaign)
        writer.member("clickToken", clickToken)
        writer.member("eligible", eligible)
        writer.member("impressionId", impressionId)
        writer.member("linkId", linkId)
        writer.member("method", method)
        writer.member("network", network)
        writer.member("reason", reason)
    }
}

extension MatchCandidate: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "method": .oneOf(["referrer", "probabilistic", "view_through"], "Method."),
        "clickToken": FieldNote("Click."), "impressionId": FieldNote("Impression."), "linkId": FieldNote("Link."),
        "network": FieldNote("Ad network."), "campaign": FieldNote("Campaign."), "reason": FieldNote("Why it was taken or passed over."),
    ]
}

/// `GET /v1/installs/{installId}/attribution`: why an installation was attributed (or not).
public struct AttributionExplanation: Codable, Sendable, Equatable {
    public var match: InstallMatch
    /// The settings in force when the install was matched.
    public var settings: AttributionSettings
    /// The rules, in the order they were applied.
    public var rules: [String]
    public var candidates: [MatchCandidate]
    public var winner: MatchCandidate?
    /// Made through `POST /v1/simulate/installs`.
    public var simulated: Bool

    public init(match: InstallMatch, settings: AttributionSettings, rules: [String], candidates: [MatchCandidate],
                winner: MatchCandidate?, simulated: Bool) {
        self.match = match
        self.settings = settings
        self.rules = rules
        self.candidates = candidates
        self.winner = winner
        self.simulated = simulated
    }
}

extension AttributionExplanation: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "rules": .list(of: FieldNote("A rule.", minLength: 1), "The rules in the order applied."),
        "candidates": .list(of: nil, "Everything considered."),
    ]
}

/// `POST /v1/impressions`: an ad network or the app's backend reports that an ad was shown to a device.
public struct ImpressionRequest: Codable, Sendable {
    public var appId: String
    /// The device's address as the ad server saw it; only its keyed hash is kept.
    public var ip: String
    /// ISO 8601; now when absent.
    public var timestamp: String?
    public var network: String?
    public var campaign: String?

    public init(appId: String, ip: String, timestamp: String? = nil, network: String? = nil, campaign: String? = nil) {
        self.appId = appId
        self.ip = ip
        self.timestamp = timestamp
        self.network = network
        self.campaign = campaign
    }
}

extension ImpressionRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "appId": FieldNote("App.", minLength: 1), "ip": FieldNote("The device's numeric address.", minLength: 2, maxLength: 45),
        "timestamp": .isoTime, "network": FieldNote("Ad network.", minLength: 1, maxLength: 100),
        "campaign": FieldNote("Campaign.", minLength: 1, maxLength: 100),
    ]
}

public struct Impression: Codable, Sendable, Equatable {
    public var id: String
    public var appId: String
    public var network: String?
    public var campaign: String?
    public var createdAt: String

    public init(id: String, appId: String, network: String?, campaign: String?, createdAt: String) {
        self.id = id
        self.appId = appId
        self.network = network
        self.campaign = campaign
        self.createdAt = createdAt
    }
}

extension Impression: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "id": .id("Impression id."), "appId": FieldNote("App."), "network": FieldNote("Network."), "campaign": FieldNote("Campaign."),
        "createdAt": .timestamp,
    ]
}

/// One event of an installation.
public struct EventRequest: Codable, Sendable {
    /// Yours: a retry with the same id is stored once.
    public var eventId: String
    /// INSTALL, OPEN, SIGNUP, LOGIN, CUSTOM (with a name), or the revenue types PURCHASE, SUBSCRIPTION, REFUND.
    public var type: String
    public var name: String?
    public var userId: String?
    public var installId: String
    /// ISO 8601, when it happened.
    public var timestamp: String
    /// Integer minor units (cents), for revenue types.
    public var amount: Int64?
    /// ISO 4217, with an amount.
    public var currency: String?
    public var properties: [String: JSONLiteral]?
    /// Required with a server key; a publishable key's own app otherwise.
    public var appId: String?
    /// An App Attest token, while the app holds one.
    public var attestation: String?
    /// The click token of the link that last opened the app (recorded with the event).
    public var clickToken: String?

    public init(eventId: String, type: String, name: String? = nil, userId: String? = nil, installId: String, timestamp: String,
                amount: Int64? = nil, currency: String? = nil, properties: [String: JSONLiteral]? = nil, appId: String? = nil,
                attestation: String? = nil, clickToken: String? = nil) {
        self.eventId = eventId
        self.type = type
        self.name = name
        self.userId = userId
        self.installId = installId
        self.timestamp = timestamp
        self.amount = amount
        self.currency = currency
        self.properties = properties
        self.appId = appId
        self.attestation = attestation
        self.clickToken = clickToken
    }
}

/// An event is decoded on every request, a hundred in a batch: it reads itself from the parsed document when it can.
/// `properties` is left to the decoder (its values become `JSONLiteral`s as the decoder makes them).
extension EventRequest: StrictlyReadable {
    public static func read(strictly value: JSONValue) -> EventRequest? {
        guard case .object(let members) = value else { return nil }
        var eventId: String?, type: String?, installId: String?, timestamp: String?
        var name: String?, userId: String?, currency: String?, appId: String?, attestation: String?, clickToken: String?
        var amount: Int64?
        for (key, member) in members {
            switch key {
            case "eventId": guard let text = member.strictText else { return nil }; eventId = text
            case "type": guard let text = member.strictText else { return nil }; type = text
            case "installId": guard let text = member.strictText else { return nil }; installId = text
            case "timestamp": guard let text = member.strictText else { return nil }; timestamp = text
            case "name": guard let text = member.strictOptional(\.strictText) else { return nil }; name = text
            case "userId": guard let text = member.strictOptional(\.strictText) else { return nil }; userId = text
            case "currency": guard let text = member.strictOptional(\.strictText) else { return nil }; currency = text
            case "appId": guard let text = member.strictOptional(\.strictText) else { return nil }; appId = text
            case "attestation": guard let text = member.strictOptional(\.strictText) else { return nil }; attestation = text
            case "clickToken": guard let text = member.strictOptional(\.strictText) else { return nil }; clickToken = text
            case "amount":
                guard let number = member.strictOptional(\.strictInt64), number.map({ allows($0, at: key) }) != false else { return nil }
                amount = number
            case "properties": guard case .null = member else { return nil }
            default: return nil
            }
        }
        guard let eventId, let type, let installId, let timestamp else { return nil }
        return EventRequest(eventId: eventId, type: type, name: name, userId: userId, installId: installId, timestamp: timestamp,
                            amount: amount, currency: currency, appId: appId, attestation: attestation, clickToken: clickToken)
    }
}

extension EventRequest: DescribedWireType {
    /// The event types, in order.
    public static let types = ["CUSTOM", "INSTALL", "LOGIN", "OPEN", "PURCHASE", "REFUND", "SIGNUP", "SUBSCRIPTION"]

    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "eventId": FieldNote("Yours; a retry with the same id is stored once.", pattern: "^[0-9A-Za-z._:-]{1,64}$"),
        "type": .oneOf(types, "Event type; revenue types need a server key."),
        "name": FieldNote("Required for CUSTOM.", minLength: 1, maxLength: 100),
        "userId": FieldNote("Your user id.", minLength: 1, maxLength: 128),
        "installId": .installId, "timestamp": .isoTime,
        "amount": .money(from: 0, "Minor units, for revenue types."),
        "currency": FieldNote("ISO 4217, with an amount.", pattern: WirePattern.currency),
        "properties": .eventProperties,
        "appId": FieldNote("Required with a server key."),
        "attestation": .attestationToken,
        "clickToken": FieldNote("The click token of the link that last opened the app.", maxLength: 64),
    ]
}

extension FieldNote {
    static let eventProperties = FieldNote("Free JSON, at most 4 KiB.")
}

/// `POST /v1/events/batch`: up to 500 events, each stored or rejected on its own.
public struct EventBatchRequest: Codable, Sendable {
    public var events: [EventRequest]

    public init(events: [EventRequest]) { self.events = events }
}

extension EventBatchRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = ["events": FieldNote(minItems: 1, maxItems: 500)]
}

/// The attribution an event was written with.
public struct EventAttribution: Codable, Sendable, Equatable {
    public var method: String
    /// `link`, `apple_ads`, `ad:<network>` or `organic`.
    public var source: String
    public var linkId: String?
    public var campaign: String?
    public var channel: String?
    public var feature: String?
    public var appleAdsCampaignId: String?
    public var appleAdsAdGroupId: String?
    public var appleAdsKeywordId: String?
    /// The variant of the click the install was matched to.
    public var variant: String?
    /// True when that click came from the link's QR code.
    public var qr: Bool?

    public init(method: String, source: String, linkId: String?, campaign: String?, channel: String?, feature: String?,
                appleAdsCampaignId: String? = nil, appleAdsAdGroupId: String? = nil, appleAdsKeywordId: String? = nil,
                variant: String? = nil, qr: Bool? = nil) {
        self.method = method
        self.source = source
        self.linkId = linkId
        self.campaign = campaign
        self.channel = channel
        self.feature = feature
        self.appleAdsCampaignId = appleAdsCampaignId
        self.appleAdsAdGroupId = appleAdsAdGroupId
        self.appleAdsKeywordId = appleAdsKeywordId
        self.variant = variant
        self.qr = qr
    }
}

extension EventAttribution: DescribedWireType {
    public static let summary: String? = "The attribution an event was written with."
    public static let notes: [String: FieldNote] = FieldNote.attributionTags.merging([
        "method": .matchMethod, "source": FieldNote("link, apple_ads, ad:<network>, organic or returning."),
        "appleAdsCampaignId": FieldNote("Apple Ads campaign."), "appleAdsAdGroupId": FieldNote("Apple Ads ad group."),
        "appleAdsKeywordId": FieldNote("Apple Ads keyword."), "variant": FieldNote("The variant of the matched click."),
        "qr": FieldNote("Present and true when the matched click came from the link's QR code."),
    ]) { $1 }
}

public struct EventResult: Codable, Sendable, Equatable {
    public var eventId: String?
    /// `stored`, `duplicate` or `rejected`.
    public var status: String
    public var attribution: EventAttribution?
    public var error: ErrorBody.Detail?

    public init(eventId: String?, status: String, attribution: EventAttribution? = nil, error: ErrorBody.Detail? = nil) {
        self.eventId = eventId
        self.status = status
        self.attribution = attribution
        self.error = error
    }
}

extension EventResult: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "eventId": FieldNote("The event's id."), "status": .oneOf(["stored", "duplicate", "rejected"], "What happened."),
    ]
}

public struct EventBatchResponse: Codable, Sendable, Equatable {
    public var results: [EventResult]
    public var stored: Int
    public var duplicates: Int
    public var rejected: Int

    public init(results: [EventResult], stored: Int, duplicates: Int, rejected: Int) {
        self.results = results
        self.stored = stored
        self.duplicates = duplicates
        self.rejected = rejected
    }
}

/// An event's answer is written for every event (a hundred in a batch's): each writes itself.
extension EventAttribution: CompactJSONWritable {
    public func write(into writer: inout CompactJSONObjectWriter) {
        writer.member("appleAdsAdGroupId", appleAdsAdGroupId)
        writer.member("appleAdsCampaignId", appleAdsCampaignId)
        writer.member("appleAdsKeywordId", appleAdsKeywordId)
        writer.member("campaign", campaign)
        writer.member("channel", channel)
        writer.member("feature", feature)
        writer.member("linkId", linkId)
        writer.member("method", method)
        writer.member("qr", qr)
        writer.member("source", source)
        writer.member("variant", variant)
    }
}

extension EventResult: CompactJSONWritable {
    public func write(into writer: inout CompactJSONObjectWriter) {
        writer.member("attribution", attribution)
        writer.member("error", error)
        writer.member("eventId", eventId)
        writer.member("status", status)
    }
}

extension EventBatchResponse: CompactJSONWritable {
    public func write(into writer: inout CompactJSONObjectWriter) {
        writer.member("duplicates", duplicates)
        writer.member("rejected", rejected)
        writer.member("results", results)
        writer.member("stored", stored)
    }
}

extension EventBatchResponse: DescribedWireType {
    public static let notes: [String: FieldNote] = ["results": .list(of: nil, "One per event, in order.")]
}

/// One row of a funnel report.
public struct FunnelRow: Codable, Sendable, Equatable {
    public var key: String
    public var clicks: Int
    public var installs: Int
    public var opens: Int
    /// Visits by link previews (chat and social unfurlers, prefetches), never counted as clicks.
    public var previews: Int
    /// Visits by bots (crawlers, uptime checkers, `HEAD` requests), never counted as clicks.
    public var bots: Int
    public var events: [String: Int]
    /// Net revenue (purchases and subscriptions less refunds) in minor units, by currency.
    public var revenue: [String: Int64]

    public init(key: String, clicks: Int, installs: Int, opens: Int, previews: Int = 0, bots: Int = 0, events: [String: Int],
                revenue: [String: Int64]) {
        self.key = key
        self.clicks = clicks
        self.installs = installs
        self.opens = opens
        self.previews = previews
        self.bots = bots
        self.events = events
        self.revenue = revenue
    }
}

extension FunnelRow: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "key": FieldNote("The group."),
        "clicks": FieldNote("Links followed by people."),
        "previews": FieldNote("Visits by link previews (unfurlers of messengers and social networks, browser prefetches), counted by UTC day and never as clicks."),
        "bots": FieldNote("Visits by bots (search and SEO crawlers, uptime checkers, HEAD requests), counted by UTC day and never as clicks."),
    ]
}

public struct FunnelReport: Codable, Sendable, Equatable {
    public var from: String
    public var to: String
    public var groupBy: String
    public var rows: [FunnelRow]
    /// `all`, or `consumer`: installs whose signed app transactions named only education or enterprise stores, and their
    /// events, were left out.
    public var stores: String?

    public init(from: String, to: String, groupBy: String, rows: [FunnelRow], stores: String? = nil) {
        self.from = from
        self.to = to
        self.groupBy = groupBy
        self.rows = rows
        self.stores = stores
    }
}

extension FunnelReport: DescribedWireType {
    /// What a funnel report can be grouped by.
    public static let groupings = ["day", "link", "campaign", "channel", "source", "appleAdsCampaign", "appleAdsAdGroup", "appleAdsKeyword",
                                   "variant", "qr", "country", "inAppBrowser", "utmSource", "utmMedium", "utmCampaign", "utmTerm", "utmContent"]

    /// Which installs a funnel report counts: `all`, or `consumer` (those from education or enterprise stores only left out).
    public static let storeChoices = ["all", "consumer"]

    public static let notes: [String: FieldNote] = [
        "from": .timestamp, "to": .timestamp, "groupBy": .oneOf(groupings, "Grouping."), "rows": .list(of: nil, "Rows, by key."),
        "stores": .oneOf(storeChoices, "Which installs were counted."),
    ]
}

/// `POST /v1/simulate/clicks`: follow a link as a device would, without a device.
public struct SimulateClickRequest: Codable, Sendable {
    public var url: String
    public var ip: String?
    public var userAgent: String?

    public init(url: String, ip: String? = nil, userAgent: String? = nil) {
        self.url = url
        self.ip = ip
        self.userAgent = userAgent
    }
}

extension SimulateClickRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "url": FieldNote("The link.", minLength: 1, maxLength: 2048), "ip": .simulatedAddress,
        "userAgent": FieldNote("Default: an iPhone.", maxLength: 1024),
    ]
}

extension FieldNote {
    static let simulatedAddress = FieldNote("The device's address (default: yours).", maxLength: 45)
}

public struct SimulatedClick: Codable, Sendable, Equatable {
    public var clickToken: String
    public var linkId: String
    public var platform: String
    /// Where the device would have been sent.
    public var location: String?
    /// The variant the click was given.
    public var variant: String?

    public init(clickToken: String, linkId: String, platform: String, location: String?, variant: String? = nil) {
        self.clickToken = clickToken
        self.linkId = linkId
        self.platform = platform
        self.location = location
        self.variant = variant
    }
}

extension SimulatedClick: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "clickToken": FieldNote("Token."), "linkId": FieldNote("Link."), "platform": FieldNote("Platform."),
        "location": FieldNote("Where the device would have gone."), "variant": FieldNote("The variant it was given."),
    ]
}

/// `POST /v1/simulate/installs`: a first launch, as the SDK would send it, from a chosen address.
public struct SimulateInstallRequest: Codable, Sendable {
    public var appId: String
    public var installId: String?
    public var ip: String?
    public var platform: String?
    public var osVersion: String?
    public var clickToken: String?

    public init(appId: String, installId: String? = nil, ip: String? = nil, platform: String? = nil, osVersion: String? = nil,
                clickToken: String? = nil) {
        self.appId = appId
        self.installId = installId
        self.ip = ip
        self.platform = platform
        self.osVersion = osVersion
        self.clickToken = clickToken
    }
}

extension SimulateInstallRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "appId": FieldNote("App.", minLength: 1), "installId": .installId, "ip": .simulatedAddress,
        "platform": .oneOf(["ios", "tvos"], "Default ios."), "osVersion": .osVersion,
        "clickToken": FieldNote("A click token.", maxLength: 64),
    ]
}
