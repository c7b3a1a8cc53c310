import LinkRunwayAPI
import RunwayKit
import RunwayStore

/// The SQL of the webhook tables that the routes, the outbox and the capability run.
enum WebhookQueries {
    static func insert(_ db: any SQLExecutor, _ endpoint: WebhookEndpoint, sealedSecret: String, now: Int64) throws {
        try db.execute("""
            INSERT INTO webhooks (id, workspace_id, url, secret, topics, enabled, created_at)
            VALUES (\(endpoint.id), \(endpoint.workspaceId), \(endpoint.url), \(sealedSecret), \(endpoint.topics.joined(separator: ",")), 1, \(now))
            """)
    }

    /// The workspace of webhook `id`, or nil when there is none.
    static func workspace(_ db: any SQLExecutor, id: String) throws -> String? {
        try db.first("SELECT workspace_id FROM webhooks WHERE id = \(id)", as: WorkspaceOf.self)?.workspaceId
    }

    /// Deletes webhook `id` and its deliveries.
    static func delete(_ db: any SQLExecutor, id: String) throws {
        try db.execute("DELETE FROM webhook_deliveries WHERE webhook_id = \(id)")
        try db.execute("DELETE FROM webhooks WHERE id = \(id)")
    }

    /// Delivery `id` of webhook `webhookId` with the body it sends, or nil when that endpoint has no such delivery.
    static func delivery(_ db: any SQLExecutor, id: String, webhookId: String) throws -> (delivery: WebhookDelivery, body: String)? {
        try db.first("SELECT \(raw: WebhookRows.Delivery.columns), payload FROM webhook_deliveries WHERE id = \(id) AND webhook_id = \(webhookId)").map {
            (try $0.decode(WebhookRows.Delivery.self).wire, try $0.decode(WebhookRows.Payload.self).payload)
        }
    }

    /// The newest 100 deliveries of webhook `id`.
    static func deliveries(_ db: any SQLExecutor, webhookId id: String) throws -> [WebhookDelivery] {
        try db.query("""
            SELECT \(raw: WebhookRows.Delivery.columns) FROM webhook_deliveries WHERE webhook_id = \(id) ORDER BY created_at DESC, id DESC LIMIT 100
            """, as: WebhookRows.Delivery.self).map(\.wire)
    }

    // MARK: Deliveries

    /// The workspace's enabled endpoints, with their topics comma-separated.
    static func subscriptions(_ db: any SQLExecutor, workspaceId: String) throws -> [WebhookRows.Subscription] {
        try db.query("SELECT id, topics FROM webhooks WHERE workspace_id = \(workspaceId) AND enabled = 1", as: WebhookRows.Subscription.self)
    }

    /// Queues delivery `id` of `body` to webhook `webhookId`, due at `now`.
    static func insertDelivery(_ db: any SQLExecutor, id: String, webhookId: String, workspaceId: String, topic: String, body: String,
                               now: Int64) throws {
        try db.execute("""
            INSERT INTO webhook_deliveries (id, webhook_id, workspace_id, topic, payload, status, attempts, next_attempt_at, created_at)
            VALUES (\(id), \(webhookId), \(workspaceId), \(topic), \(body), 'pending', 0, \(now), \(now))
            """)
    }

    /// At most `limit` pending deliveries due at `now` and not leased, the longest due first, with their endpoint's URL
    /// and sealed secret.
    static func due(_ db: any SQLExecutor, now: Int64, limit: Int) throws -> [WebhookRows.Due] {
        try db.query("""
            SELECT d.id, d.payload, d.attempts, w.url, w.secret FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
            WHERE d.status = 'pending' AND d.next_attempt_at <= \(now) AND (d.lease_until IS NULL OR d.lease_until < \(now))
            ORDER BY d.next_attempt_at LIMIT \(Int64(limit))
            """, as: WebhookRows.Due.self)
    }

    // MARK: Forgetting and exporting an install

    /// Deletes the deliveries that name the install; how many.
    static func deleteDeliveries(_ db: any SQLExecutor, of install: InstallReference) throws -> Int {
        try db.execute("DELETE FROM webhook_deliveries WHERE \(deliveries(of: install))")
    }

    /// The deliveries that name the install, oldest first.
    static func exportedDeliveries(_ db: any SQLExecutor, of install: InstallReference) throws -> [ExportedWebhookDelivery] {
        try db.query("""
            SELECT id, webhook_id, topic, status, payload, created_at FROM webhook_deliveries
            WHERE \(deliveries(of: install)) ORDER BY created_at, id
            """, as: WebhookRows.Exported.self).map(\.wire)
    }

    /// The webhook deliveries whose payload names the installation or its click token.
    private static func deliveries(of install: InstallReference) -> SQL {
        let byInstall = "%\"installId\":\"\(install.installId)\"%"
        let byToken: SQL = install.clickToken.map { " OR payload LIKE \("%\($0)%")" } ?? ""
        return "workspace_id = \(install.workspaceId) AND (payload LIKE \(byInstall)\(byToken))"
    }

    private struct WorkspaceOf: Decodable {
        let workspaceId: String
    }
}
