import RunwayKit
import RunwayStore

/// The SQL privacy runs itself (every capability forgets and exports its own rows).
enum PrivacyQueries {
    /// The apps that know `installId` (as an install or in events), within `workspaceId` unless `everywhere`.
    static func apps(_ db: any SQLExecutor, installId: String, workspaceId: String, everywhere: Bool) throws -> [String] {
        try db.query("""
            SELECT DISTINCT app_id FROM installs WHERE install_id = \(installId) AND (\(everywhere) = 1 OR workspace_id = \(workspaceId))
            UNION SELECT DISTINCT app_id FROM events WHERE install_id = \(installId) AND (\(everywhere) = 1 OR workspace_id = \(workspaceId))
            """, as: AppOf.self).map(\.appId)
    }

    private struct AppOf: Decodable {
        let appId: String
    }
}
