import LinkRunwayAPI
import RunwayKit
import RunwayStore

/// The webhook tables' rows as the capability reads them (`RowDecoder`: each property names its column), and the wire
/// forms made from them.
enum WebhookRows {
    /// An endpoint, without its sealed secret.
    struct Endpoint: Decodable {
        let id: String
        let workspaceId: String
        let url: String
        /// Comma-separated.
        let topics: String
        let enabled: Bool
        let createdAt: Int64

        static let columns = "id, workspace_id, url, topics, enabled, created_at"

        var wire: WebhookEndpoint {
            WebhookEndpoint(id: id, workspaceId: workspaceId, url: url, topics: topics.split(separator: ",").map(String.init), enabled: enabled,
                            createdAt: Timestamp.iso(createdAt))
        }
    }

    /// A delivery's history, without its payload.
    struct Delivery: Decodable {
        let id: String
        let webhookId: String
        let topic: String
        let status: String
        let attempts: Int
        let lastStatus: Int?
        let lastError: String?
        let nextAttemptAt: Int64
        let createdAt: Int64
        let deliveredAt: Int64?

        /// Named, so that a column added later leaves prepared statements' shape alone.
        static let columns = "id, webhook_id, topic, status, attempts, last_status, last_error, next_attempt_at, created_at, delivered_at"

        var wire: WebhookDelivery {
            WebhookDelivery(id: id, webhookId: webhookId, topic: topic, status: status, attempts: attempts, lastStatus: lastStatus,
                            lastError: lastError, nextAttemptAt: status == "pending" ? Timestamp.iso(nextAttemptAt) : nil,
                            createdAt: Timestamp.iso(createdAt), deliveredAt: deliveredAt.map(Timestamp.iso))
        }
    }

    /// A delivery's payload.
    struct Payload: Decodable {
        let payload: String
    }

    /// An enabled endpoint's id and topics.
    struct Subscription: Decodable {
        let id: String
        let topics: String
    }

    /// A delivery due, with what sending it takes.
    struct Due: Decodable {
        let id: String
        let payload: String
        let attempts: Int64
        let url: String
        /// Sealed with the secret key file.
        let secret: String
    }

    /// A delivery as an installation's export shows it.
    struct Exported: Decodable {
        let id: String
        let webhookId: String
        let topic: String
        let status: String
        let payload: String
        let createdAt: Int64

        var wire: ExportedWebhookDelivery {
            ExportedWebhookDelivery(id: id, webhookId: webhookId, topic: topic, status: status, payload: payload, createdAt: Timestamp.iso(createdAt))
        }
    }
}
