/// The webhook tables: endpoints and their durable delivery queue. Step 0004 made them (`AttributionSchema`), released
/// before webhooks were a capability of their own; that step keeps its SQL, taking this part of it from here, so the
/// tables are defined beside the code that reads them. Append only: a released step never changes.
enum WebhooksSchema {
    static let tablesOfStep0004 = """
        CREATE TABLE webhooks (
            id TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL REFERENCES workspaces (id),
            url TEXT NOT NULL,
            secret TEXT NOT NULL,
            topics TEXT NOT NULL,
            enabled BIGINT NOT NULL,
            created_at BIGINT NOT NULL
        );
        CREATE INDEX webhooks_by_workspace ON webhooks (workspace_id, created_at, id);
        CREATE TABLE webhook_deliveries (
            id TEXT PRIMARY KEY,
            webhook_id TEXT NOT NULL,
            workspace_id TEXT NOT NULL,
            topic TEXT NOT NULL,
            payload TEXT NOT NULL,
            status TEXT NOT NULL,
            attempts BIGINT NOT NULL,
            next_attempt_at BIGINT NOT NULL,
            lease_until BIGINT,
            last_status BIGINT,
            last_error TEXT,
            created_at BIGINT NOT NULL,
            delivered_at BIGINT
        );
        CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
        CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at, id);
        """
}
