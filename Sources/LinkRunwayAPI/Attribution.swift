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

extension EventBatchResponse: DescribedWireType {
    public static let notes: [String: FieldNote] = ["results": .list(of: nil, "One per event, in order.")]
}

/// What deleting an installation removed.
public struct DeletionReceipt: Codable, Sendable, Equatable {
    public var installId: String
    public var appId: String
    public var deletedAt: String
    /// Rows removed, by kind.
    public var deleted: [String: Int]

    public init(installId: String, appId: String, deletedAt: String, deleted: [String: Int]) {
        self.installId = installId
        self.appId = appId
        self.deletedAt = deletedAt
        self.deleted = deleted
    }
}

extension DeletionReceipt: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "installId": FieldNote("Install."), "appId": FieldNote("App."), "deletedAt": .timestamp,
    ]
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

/// An HTTPS endpoint that hears about installs, events or clicks of a workspace.
public struct WebhookEndpoint: Codable, Sendable, Equatable {
    public var id: String
    public var workspaceId: String
    public var url: String
    /// `install`, `event`, `click`.
    public var topics: [String]
    public var enabled: Bool
    public var createdAt: String

    public init(id: String, workspaceId: String, url: String, topics: [String], enabled: Bool, createdAt: String) {
        self.id = id
        self.workspaceId = workspaceId
        self.url = url
        self.topics = topics
        self.enabled = enabled
        self.createdAt = createdAt
    }
}

extension WebhookEndpoint: DescribedWireType {
    /// What a webhook can hear about.
    public static let topics = ["install", "event", "click"]

    public static let pageComponentName = "WebhookPage"
    public static let notes: [String: FieldNote] = [
        "id": .id("Webhook id."), "workspaceId": FieldNote("Workspace."), "url": FieldNote("Endpoint."),
        "topics": .list(of: .oneOf(topics, "Topic."), "Topics."), "createdAt": .timestamp,
    ]
}

public struct CreateWebhookRequest: Codable, Sendable {
    public var workspaceId: String?
    public var url: String
    public var topics: [String]

    public init(workspaceId: String? = nil, url: String, topics: [String]) {
        self.workspaceId = workspaceId
        self.url = url
        self.topics = topics
    }
}

extension CreateWebhookRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "workspaceId": .adminWorkspace,
        "url": FieldNote(FieldNote.outboundURL, minLength: 1, maxLength: 2048),
        "topics": .list(of: .oneOf(WebhookEndpoint.topics, "Topic."), "What to hear about.", minItems: 1),
    ]
}

extension FieldNote {
    /// What an address the server sends to may be.
    static let outboundURL = "A public https:// URL (private addresses and http:// only with LINKRUNWAY_OUTBOUND_PRIVATE_TARGETS=on)."
}

/// A new webhook with the secret that signs its deliveries, shown only here.
public struct CreatedWebhook: Codable, Sendable {
    public var webhook: WebhookEndpoint
    public var secret: String

    public init(webhook: WebhookEndpoint, secret: String) {
        self.webhook = webhook
        self.secret = secret
    }
}

extension CreatedWebhook: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "secret": FieldNote("Signs deliveries (LinkRunway-Signature: t=…,v1=HMAC-SHA256 of \"t.body\"). Shown only here.", pattern: "^whsec_"),
    ]
}

/// One delivery to a webhook endpoint and how its attempts went.
public struct WebhookDelivery: Codable, Sendable, Equatable {
    public var id: String
    public var webhookId: String
    /// `install`, `event`, `click`, or `ping` for a test delivery.
    public var topic: String
    /// `pending`, `delivered` or `failed` (gave up).
    public var status: String
    public var attempts: Int
    public var lastStatus: Int?
    public var lastError: String?
    public var nextAttemptAt: String?
    public var createdAt: String
    public var deliveredAt: String?

    public init(id: String, webhookId: String, topic: String, status: String, attempts: Int, lastStatus: Int?, lastError: String?,
                nextAttemptAt: String?, createdAt: String, deliveredAt: String?) {
        self.id = id
        self.webhookId = webhookId
        self.topic = topic
        self.status = status
        self.attempts = attempts
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.nextAttemptAt = nextAttemptAt
        self.createdAt = createdAt
        self.deliveredAt = deliveredAt
    }
}

extension WebhookDelivery: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "id": FieldNote("Delivery id."), "webhookId": FieldNote("Webhook."), "topic": FieldNote("install, event, click, or ping for a test."),
        "status": .oneOf(["pending", "delivered", "failed"], "State."),
        "lastError": FieldNote("Last failure: dns_failed, connect_failed, blocked_address, blocked_port, blocked_scheme, tls_failed, timeout, http_<status> or send_failed."),
        "nextAttemptAt": .timestamp, "createdAt": .timestamp, "deliveredAt": .timestamp,
    ]
}

/// `GET /v1/webhooks/{id}/deliveries`: the deliveries of one endpoint.
public struct WebhookDeliveryList: Codable, Sendable, Equatable {
    public var items: [WebhookDelivery]

    public init(items: [WebhookDelivery]) { self.items = items }
}

extension WebhookDeliveryList: DescribedWireType {
    public static let notes: [String: FieldNote] = ["items": .list(of: nil, "Newest first.")]
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

/// An event as stored, for exports.
public struct StoredEvent: Codable, Sendable, Equatable {
    public var eventId: String
    public var type: String
    public var name: String?
    public var userId: String?
    public var occurredAt: String
    public var receivedAt: String
    public var amount: Int64?
    public var currency: String?
    public var properties: [String: JSONLiteral]?
    public var attested: Bool
    public var attribution: EventAttribution

    public init(eventId: String, type: String, name: String?, userId: String?, occurredAt: String, receivedAt: String, amount: Int64?,
                currency: String?, properties: [String: JSONLiteral]?, attested: Bool, attribution: EventAttribution) {
        self.eventId = eventId
        self.type = type
        self.name = name
        self.userId = userId
        self.occurredAt = occurredAt
        self.receivedAt = receivedAt
        self.amount = amount
        self.currency = currency
        self.properties = properties
        self.attested = attested
        self.attribution = attribution
    }
}

extension StoredEvent: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "eventId": FieldNote("Id."), "type": FieldNote("Type."), "name": FieldNote("Name."), "userId": FieldNote("User."),
        "occurredAt": .timestamp, "receivedAt": .timestamp, "currency": FieldNote("Currency."), "properties": .eventProperties,
    ]
}

/// A click or app open tied to an installation, for exports.
public struct StoredVisit: Codable, Sendable, Equatable {
    public var token: String
    /// `click` (the link followed in a browser) or `open` (the app resolved it).
    public var kind: String
    public var linkId: String
    public var platform: String
    public var osVersion: String?
    public var referrerHost: String?
    public var variant: String?
    /// The country of its address (never the address).
    public var country: String?
    /// True when it came from the link's QR code.
    public var qr: Bool?
    /// The app whose own browser it came from (`instagram`, `tiktok`…).
    public var inAppBrowser: String?
    public var createdAt: String

    public init(token: String, kind: String, linkId: String, platform: String, osVersion: String?, referrerHost: String?,
                variant: String? = nil, country: String? = nil, qr: Bool? = nil, inAppBrowser: String? = nil, createdAt: String) {
        self.token = token
        self.kind = kind
        self.linkId = linkId
        self.platform = platform
        self.osVersion = osVersion
        self.referrerHost = referrerHost
        self.variant = variant
        self.country = country
        self.qr = qr
        self.inAppBrowser = inAppBrowser
        self.createdAt = createdAt
    }
}

extension StoredVisit: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "token": FieldNote("Token."), "kind": .oneOf(["click", "open"], "Kind."), "linkId": FieldNote("Link."),
        "platform": FieldNote("Platform."), "osVersion": FieldNote("OS version."), "referrerHost": FieldNote("Referrer host."),
        "variant": FieldNote("Variant."), "country": FieldNote("Country of the address."), "qr": FieldNote("From the QR code."),
        "inAppBrowser": FieldNote("The app whose own browser it came from."), "createdAt": .timestamp,
    ]
}

/// `GET /v1/installs/{installId}/export`: everything stored about an installation.
public struct InstallExport: Codable, Sendable, Equatable {
    public var attribution: AttributionExplanation?
    public var appleAds: AppleAdsClaim?
    public var events: [StoredEvent]
    public var visits: [StoredVisit]
    public var referralCodes: [ReferralCode]
    /// Links this installation shared.
    public var sharedLinkIds: [String]
    /// Affiliate binds made from this installation (the purchase token and whose code it was).
    public var affiliateBinds: [ExportedBind]
    /// Webhook deliveries, sent or queued, whose payload mentions this installation.
    public var webhookDeliveries: [ExportedWebhookDelivery]

    public init(attribution: AttributionExplanation?, appleAds: AppleAdsClaim? = nil, events: [StoredEvent], visits: [StoredVisit],
                referralCodes: [ReferralCode], sharedLinkIds: [String], affiliateBinds: [ExportedBind] = [],
                webhookDeliveries: [ExportedWebhookDelivery] = []) {
        self.attribution = attribution
        self.appleAds = appleAds
        self.events = events
        self.visits = visits
        self.referralCodes = referralCodes
        self.sharedLinkIds = sharedLinkIds
        self.affiliateBinds = affiliateBinds
        self.webhookDeliveries = webhookDeliveries
    }
}

extension InstallExport: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "events": .list(of: nil, "Events."), "visits": .list(of: nil, "Clicks and opens."),
        "referralCodes": .list(of: nil, "Referral codes."),
        "sharedLinkIds": .list(of: FieldNote("Link id."), "Links this installation shared."),
        "affiliateBinds": .list(of: nil, "Affiliate binds made from this installation."),
        "webhookDeliveries": .list(of: nil, "Webhook deliveries, sent or queued, that mention it."),
    ]
}

/// An affiliate bind of an installation, as exported.
public struct ExportedBind: Codable, Sendable, Equatable {
    /// The `appAccountToken` the app set on the purchase.
    public var appAccountToken: String
    public var affiliateId: String
    public var programId: String
    /// How the bind was made (`code`, `link`).
    public var method: String
    public var createdAt: String

    public init(appAccountToken: String, affiliateId: String, programId: String, method: String, createdAt: String) {
        self.appAccountToken = appAccountToken
        self.affiliateId = affiliateId
        self.programId = programId
        self.method = method
        self.createdAt = createdAt
    }
}

extension ExportedBind: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "appAccountToken": FieldNote("The purchase token."), "affiliateId": FieldNote("Affiliate."), "programId": FieldNote("Program."),
        "method": FieldNote("How the bind was made."), "createdAt": .timestamp,
    ]
}

/// A webhook delivery about an installation, as exported: the payload exactly as it is (or was) sent.
public struct ExportedWebhookDelivery: Codable, Sendable, Equatable {
    public var id: String
    public var webhookId: String
    public var topic: String
    public var status: String
    public var payload: String
    public var createdAt: String

    public init(id: String, webhookId: String, topic: String, status: String, payload: String, createdAt: String) {
        self.id = id
        self.webhookId = webhookId
        self.topic = topic
        self.status = status
        self.payload = payload
        self.createdAt = createdAt
    }
}

extension ExportedWebhookDelivery: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "id": FieldNote("Delivery."), "webhookId": FieldNote("Endpoint."), "topic": FieldNote("Topic."),
        "status": FieldNote("pending, delivered or failed."), "payload": FieldNote("The JSON body as sent."), "createdAt": .timestamp,
    ]
}

/// `POST /v1/claims/apple-ads`: the AdServices token of an installation.
public struct AppleAdsClaimRequest: Codable, Sendable {
    public var installId: String
    /// From `AAAttribution.attributionToken()`; valid for 24 hours.
    public var token: String

    public init(installId: String, token: String) {
        self.installId = installId
        self.token = token
    }
}

extension AppleAdsClaimRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "installId": .installId, "token": FieldNote("The AdServices token.", pattern: "^[A-Za-z0-9+/=_-]{1,8192}$"),
    ]
}

/// What Apple said about the tap or view that led to an install.
public struct AppleAdsAttribution: Codable, Sendable, Equatable {
    public var orgId: String?
    public var campaignId: String?
    public var adGroupId: String?
    /// Absent with search match.
    public var keywordId: String?
    public var adId: String?
    /// `Download`, `Redownload` or `Preorder` (an install of an app pre-ordered from the ad, since 2025:
    /// https://developer.apple.com/documentation/adservices/changelog); kept as Apple sends it.
    public var conversionType: String?
    /// `Click` (tap, 30 days) or `Impression` (view, 24 hours).
    public var claimType: String?
    public var clickDate: String?
    public var impressionDate: String?
    public var countryOrRegion: String?
    public var supplyPlacement: String?

    public init(orgId: String?, campaignId: String?, adGroupId: String?, keywordId: String?, adId: String?, conversionType: String?,
                claimType: String?, clickDate: String?, impressionDate: String?, countryOrRegion: String?, supplyPlacement: String?) {
        self.orgId = orgId
        self.campaignId = campaignId
        self.adGroupId = adGroupId
        self.keywordId = keywordId
        self.adId = adId
        self.conversionType = conversionType
        self.claimType = claimType
        self.clickDate = clickDate
        self.impressionDate = impressionDate
        self.countryOrRegion = countryOrRegion
        self.supplyPlacement = supplyPlacement
    }
}

extension AppleAdsAttribution: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "orgId": FieldNote("Org."), "campaignId": FieldNote("Campaign."), "adGroupId": FieldNote("Ad group."),
        "keywordId": FieldNote("Keyword (absent with search match)."), "adId": FieldNote("Ad."),
        "conversionType": FieldNote("Download, Redownload or Preorder, as Apple sends it."), "claimType": FieldNote("Click or Impression."),
        "clickDate": .timestamp, "impressionDate": .timestamp, "countryOrRegion": FieldNote("Country or region."),
        "supplyPlacement": FieldNote("Placement."),
    ]
}

/// The state of an installation's Apple Ads claim.
public struct AppleAdsClaim: Codable, Sendable, Equatable {
    public var installId: String
    /// `pending` (Apple has no answer yet), `attributed`, `not_attributed`, `invalid` or `expired`.
    public var status: String
    /// Seconds until the next try, while pending.
    public var retryAfter: Int?
    public var attribution: AppleAdsAttribution?
    /// Apple's developer-mode test payload: kept, but out of reports.
    public var testData: Bool

    public init(installId: String, status: String, retryAfter: Int?, attribution: AppleAdsAttribution?, testData: Bool) {
        self.installId = installId
        self.status = status
        self.retryAfter = retryAfter
        self.attribution = attribution
        self.testData = testData
    }
}

extension AppleAdsClaim: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "installId": FieldNote("Install."),
        "status": .oneOf(["pending", "attributed", "not_attributed", "invalid", "expired"], "State."),
        "retryAfter": .between(1, nil),
    ]
}

/// `GET /v1/reports/apple-ads`: what Apple answered for the claims received in a time range.
public struct AppleAdsReport: Codable, Sendable, Equatable {
    public var from: String
    public var to: String
    public var rows: [AppleAdsReportRow]

    public init(from: String, to: String, rows: [AppleAdsReportRow]) {
        self.from = from
        self.to = to
        self.rows = rows
    }
}

extension AppleAdsReport: DescribedWireType {
    public static let notes: [String: FieldNote] = ["from": .timestamp, "to": .timestamp, "rows": .list(of: nil, "One per outcome with claims.")]
}

/// Claims with one outcome. Apple's `attribution: false` (no Apple Ads tap or view, or, since 2026, an ad group
/// targeted by age or gender: https://developer.apple.com/documentation/adservices/changelog) is "not attributed by
/// Apple", apart from claims Apple never answered.
public struct AppleAdsReportRow: Codable, Sendable, Equatable {
    /// `attributed` (with its `conversionType`), `not_attributed_by_apple`, `unanswered` (pending or expired) or
    /// `invalid` (Apple's 400).
    public var outcome: String
    /// For attributed claims: `Download`, `Redownload`, `Preorder`, or whatever else Apple sent.
    public var conversionType: String?
    /// The outcome in words.
    public var label: String
    public var claims: Int

    public init(outcome: String, conversionType: String?, label: String, claims: Int) {
        self.outcome = outcome
        self.conversionType = conversionType
        self.label = label
        self.claims = claims
    }
}

extension AppleAdsReportRow: DescribedWireType {
    /// Every outcome a claim can have in the report.
    public static let outcomes = ["attributed", "not_attributed_by_apple", "unanswered", "invalid"]

    public static let notes: [String: FieldNote] = [
        "outcome": .oneOf(outcomes, "What Apple answered."), "conversionType": FieldNote("Apple's conversionType, for attributed claims."),
        "label": FieldNote("The outcome in words."), "claims": .between(0, nil),
    ]
}

/// `POST /v1/attest/apple/challenge`: a one-time challenge, taken by an assertion for five minutes and by an attestation for an hour.
public struct AttestChallenge: Codable, Sendable, Equatable {
    public var challenge: String
    /// Until when an assertion takes it.
    public var expiresAt: String
    /// Until when an attestation takes it (later: a device retries an Apple outage with the same challenge).
    public var attestationExpiresAt: String?

    public init(challenge: String, expiresAt: String, attestationExpiresAt: String? = nil) {
        self.challenge = challenge
        self.expiresAt = expiresAt
        self.attestationExpiresAt = attestationExpiresAt
    }
}

extension AttestChallenge: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "challenge": FieldNote("Use its SHA-256 as the client data hash, once: for an assertion within five minutes, for an attestation within an hour."),
        "expiresAt": FieldNote("When an assertion stops taking the challenge (five minutes).", format: "date-time"),
        "attestationExpiresAt": FieldNote("When an attestation stops taking the challenge (an hour): after Apple's service was unavailable at attestKey, the device tries again with the same key and challenge.", format: "date-time"),
    ]
}

/// `POST /v1/attest/apple/register`: a new key's attestation (from `DCAppAttestService.attestKey`, with the SHA-256 of
/// the challenge text as client data hash).
public struct AttestRegisterRequest: Codable, Sendable {
    public var appId: String
    /// Base64, as `generateKey()` returns it.
    public var keyId: String
    /// Base64 CBOR attestation object.
    public var attestation: String
    public var challenge: String
    public var installId: String?

    public init(appId: String, keyId: String, attestation: String, challenge: String, installId: String? = nil) {
        self.appId = appId
        self.keyId = keyId
        self.attestation = attestation
        self.challenge = challenge
        self.installId = installId
    }
}

extension AttestRegisterRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "appId": .id("The publishable key's app."),
        "keyId": FieldNote("The key id from DCAppAttestService.generateKey, base64.", pattern: WirePattern.base64, maxLength: 64),
        "attestation": FieldNote("The attestation object from attestKey, base64.", pattern: WirePattern.base64, maxLength: 131_072),
        "challenge": .attestChallenge, "installId": .installId,
    ]
}

extension FieldNote {
    static let attestChallenge = FieldNote("A challenge from /v1/attest/apple/challenge.", minLength: 1, maxLength: 64)
}

/// `POST /v1/attest/apple/assert`: an assertion with an attested key (from `generateAssertion`, same client data hash).
public struct AttestAssertRequest: Codable, Sendable {
    public var appId: String
    public var keyId: String
    /// Base64 CBOR assertion object.
    public var assertion: String
    public var challenge: String
    public var installId: String?

    public init(appId: String, keyId: String, assertion: String, challenge: String, installId: String? = nil) {
        self.appId = appId
        self.keyId = keyId
        self.assertion = assertion
        self.challenge = challenge
        self.installId = installId
    }
}

extension AttestAssertRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "appId": .id("The publishable key's app."),
        "keyId": FieldNote("A registered key id, base64.", pattern: WirePattern.base64, maxLength: 64),
        "assertion": FieldNote("The assertion from generateAssertion, base64.", pattern: WirePattern.base64, maxLength: 10_924),
        "challenge": .attestChallenge, "installId": .installId,
    ]
}

/// An attestation token: send it as `attestation` with events and matches until it expires.
public struct AttestationGrant: Codable, Sendable, Equatable {
    public var token: String
    public var expiresAt: String
    /// `development` or `production`.
    public var environment: String
    /// The build the key was attested from, as iOS 27 says (`app_store`, `testflight`, `development`, `enterprise`,
    /// `developer_id`, or `category_<n>`); absent when the device did not say.
    public var build: String?
    /// The attested app's bundle version (`CFBundleVersion`, iOS 27).
    public var bundleVersion: String?

    public init(token: String, expiresAt: String, environment: String, build: String? = nil, bundleVersion: String? = nil) {
        self.token = token
        self.expiresAt = expiresAt
        self.environment = environment
        self.build = build
        self.bundleVersion = bundleVersion
    }
}

extension AttestationGrant: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "token": FieldNote("Send as attestation with matches and events."), "expiresAt": .timestamp,
        "environment": .oneOf(["development", "production"], "The key's App Attest environment."),
        "build": FieldNote("The build the key was attested from (iOS 27): app_store, testflight, development, enterprise, developer_id or category_<n>."),
        "bundleVersion": FieldNote("The attested app's bundle version (iOS 27)."),
    ]
}
