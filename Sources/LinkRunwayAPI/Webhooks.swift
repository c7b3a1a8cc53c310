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
