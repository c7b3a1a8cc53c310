import RunwayStore

/// The tables every capability relies on: idempotency keys with the process that holds each, and the running server
/// processes. Append only: a released step never changes.
package enum PlatformSchema {
    package static let migrations: [Migration] = [
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
        // An Idempotency-Key in progress names the process running it (ServerInstance.owner) and a random claim token
        // the answer must present when it is stored; every running server writes a heartbeat.
        Migration(id: "0014_idempotency_owners", sql: """
            ALTER TABLE idempotency_keys ADD COLUMN owner TEXT;
            ALTER TABLE idempotency_keys ADD COLUMN claim TEXT;
            CREATE TABLE server_instances (
                id TEXT PRIMARY KEY,
                owner TEXT NOT NULL,
                started_at BIGINT NOT NULL,
                heartbeat_at BIGINT NOT NULL
            );
            """),
        // Each running server says the newest schema step it knows, so a newer one can tell that an older one still runs
        // (its heartbeat has none, or an older step) and wait before changing what the older one reads.
        Migration(id: "0048_server_instance_steps", sql: "ALTER TABLE server_instances ADD COLUMN newest_step TEXT;"),
    ]
}
