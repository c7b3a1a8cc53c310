import RunwayKit
import RunwayStore

/// Apps' In-App Purchase keys for the App Store Server API. Append only: a released step never changes.
enum AppStoreReplaySchema {
    static let migrations: [Migration] = [
        // One key per app; the private key is sealed with the secret key file (`AppStoreReplayCapability.sealedColumns`).
        Migration(id: "0023_app_store_api_keys", sql: """
            CREATE TABLE app_store_api_keys (
                app_id TEXT PRIMARY KEY REFERENCES apps (id),
                issuer_id TEXT NOT NULL,
                key_id TEXT NOT NULL,
                private_key TEXT NOT NULL,
                updated_at BIGINT NOT NULL
            );
            """),
    ]
}
