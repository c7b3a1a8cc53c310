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
