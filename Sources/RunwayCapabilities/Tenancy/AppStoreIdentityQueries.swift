import LinkRunwayAPI
import RunwayStore

/// The SQL of `app_store_id_claims`: the apps that name an App Store id, and the one that proved it (`AppStoreIdentity`).
enum AppStoreIdentityQueries {
    /// The app claims the App Store id it names, unproven.
    static func claim(_ db: any SQLExecutor, appStoreId: String, app: App, now: Int64) throws {
        try db.execute("""
            INSERT INTO app_store_id_claims (app_store_id, app_id, workspace_id, created_at) VALUES (\(appStoreId), \(app.id), \(app.workspaceId), \(now))
            ON CONFLICT (app_store_id, app_id) DO NOTHING
            """)
    }

    /// The app no longer names the App Store id: its claim and any proof go.
    static func release(_ db: any SQLExecutor, appStoreId: String, appId: String) throws {
        try db.execute("DELETE FROM app_store_id_claims WHERE app_store_id = \(appStoreId) AND app_id = \(appId)")
    }

    /// The app holding the App Store id's proof, if one does.
    static func holder(_ db: any SQLExecutor, appStoreId: String) throws -> AppStoreIdentity.Holder? {
        try db.first("""
            SELECT app_id, workspace_id, proof, proven_at FROM app_store_id_claims WHERE app_store_id = \(appStoreId) AND proven_at IS NOT NULL
            """, as: HolderRow.self).map { row in
            AppStoreIdentity.Holder(appId: row.appId, workspaceId: row.workspaceId, proof: AppStoreIdentity.Proof(rawValue: row.proof) ?? .heldBeforeProofs,
                                    provenAt: row.provenAt)
        }
    }

    /// A proven claim's row; a proof this version does not name reads as the oldest kind.
    private struct HolderRow: Decodable {
        let appId: String
        let workspaceId: String
        let proof: String
        let provenAt: Int64
    }

    /// The proof of the app holding the App Store id becomes `proof`.
    static func setProof(_ db: any SQLExecutor, _ proof: AppStoreIdentity.Proof, appStoreId: String, appId: String) throws {
        try db.execute("UPDATE app_store_id_claims SET proof = \(proof.rawValue) WHERE app_store_id = \(appStoreId) AND app_id = \(appId)")
    }

    /// The app no longer holds the App Store id; its claim stays, unproven.
    static func unprove(_ db: any SQLExecutor, appStoreId: String, appId: String) throws {
        try db.execute("UPDATE app_store_id_claims SET proven_at = NULL, proof = NULL WHERE app_store_id = \(appStoreId) AND app_id = \(appId)")
    }

    /// The app holds the App Store id from `now`, by `proof`.
    static func markProven(_ db: any SQLExecutor, _ proof: AppStoreIdentity.Proof, appStoreId: String, appId: String, now: Int64) throws {
        try db.execute("""
            UPDATE app_store_id_claims SET proven_at = \(now), proof = \(proof.rawValue) WHERE app_store_id = \(appStoreId) AND app_id = \(appId)
            """)
    }
}
