import RunwayStore

/// Every schema step, in order, for both dialects. Append only: a released step never changes.
public enum Schema {
    /// Append-only tables kept by `PartitionMaintenance` (partitioned by time on PostgreSQL, pruned on SQLite). The
    /// capabilities that add clicks, events, postbacks and notifications list their tables here.
    public static let partitionedTables: [TimePartitionedTable] = []

    public static let migrations: [Migration] = [
        Migration(id: "0001_tenancy", sql: """
            CREATE TABLE instance_meta (
                name TEXT PRIMARY KEY,
                value TEXT NOT NULL
            );
            CREATE TABLE workspaces (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                created_at BIGINT NOT NULL
            );
            CREATE INDEX workspaces_by_creation ON workspaces (created_at, id);
            CREATE TABLE apps (
                id TEXT PRIMARY KEY,
                workspace_id TEXT NOT NULL REFERENCES workspaces (id),
                name TEXT NOT NULL,
                team_id TEXT NOT NULL,
                bundle_id TEXT NOT NULL,
                app_store_id TEXT,
                platforms TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL,
                UNIQUE (workspace_id, team_id, bundle_id)
            );
            CREATE INDEX apps_by_workspace ON apps (workspace_id, created_at, id);
            CREATE TABLE api_keys (
                id TEXT PRIMARY KEY,
                kind TEXT NOT NULL CHECK (kind IN ('publishable', 'server', 'admin')),
                name TEXT NOT NULL,
                workspace_id TEXT REFERENCES workspaces (id),
                app_id TEXT REFERENCES apps (id),
                secret_hash TEXT NOT NULL,
                display_prefix TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                revoked_at BIGINT
            );
            CREATE INDEX api_keys_by_workspace ON api_keys (workspace_id, created_at, id);
            """),
        Migration(id: "0002_idempotency", sql: """
            CREATE TABLE idempotency_keys (
                scope TEXT NOT NULL,
                idempotency_key TEXT NOT NULL,
                request_hash TEXT NOT NULL,
                status BIGINT,
                content_type TEXT,
                response_body TEXT,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (scope, idempotency_key)
            );
            CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
            """),
    ]
}
