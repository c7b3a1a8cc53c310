import AppleFormats
import RunwayKit
import RunwayStore

/// The SQL of apps' In-App Purchase keys.
enum AppStoreReplayQueries {
    /// Sets the app's key, replacing any earlier one; `sealedKey` is already sealed.
    static func setKey(_ db: any SQLExecutor, appId: AppId, issuerId: String, keyId: String, sealedKey: String, now: Int64) throws {
        try db.execute("""
            INSERT INTO app_store_api_keys (app_id, issuer_id, key_id, private_key, updated_at)
            VALUES (\(appId), \(issuerId), \(keyId), \(sealedKey), \(now))
            ON CONFLICT (app_id) DO UPDATE SET issuer_id = excluded.issuer_id, key_id = excluded.key_id,
                private_key = excluded.private_key, updated_at = excluded.updated_at
            """)
    }

    /// An app's In-App Purchase key as stored.
    struct Key: Decodable {
        let issuerId: String
        let keyId: String
        /// PEM, sealed with the secret key file.
        let privateKey: String
        let updatedAt: Int64
    }

    /// The app's key (sealed), or nil.
    static func key(_ db: any SQLExecutor, appId: AppId) throws -> Key? {
        try db.first("SELECT issuer_id, key_id, private_key, updated_at FROM app_store_api_keys WHERE app_id = \(appId)", as: Key.self)
    }

    /// Removes the app's key; false when it had none.
    static func deleteKey(_ db: any SQLExecutor, appId: AppId) throws -> Bool {
        try db.execute("DELETE FROM app_store_api_keys WHERE app_id = \(appId)") == 1
    }

    /// The oldest surface of the app in `environment`, which replayed notifications are processed as arriving at.
    static func replaySurface(_ db: any SQLExecutor, appId: AppId, environment: AppStoreVerifier.Environment) throws -> SurfaceId? {
        try db.first("""
            SELECT id FROM app_store_surfaces WHERE app_id = \(appId) AND environment = \(environment.surfaceName) ORDER BY created_at, id LIMIT 1
            """, as: Surface.self)?.id
    }

    private struct Surface: Decodable {
        let id: SurfaceId
    }
}
