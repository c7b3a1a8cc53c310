import LinkRunwayAPI
import RunwayStore

/// The SQL of matching an install (`Matcher`): the candidates it reads, the click it claims, and the claim it gives back.
enum MatchQueries {
    /// The click with `token`, with its link's app.
    static func click(_ db: any SQLExecutor, token: String) throws -> AttributionRows.ReferrerClick? {
        try db.first("""
            SELECT c.token, c.kind, c.created_at, c.workspace_id, l.id AS link_id, l.app_id FROM clicks c JOIN links l ON l.id = c.link_id
            WHERE c.token = \(token)
            """, as: AttributionRows.ReferrerClick.self)
    }

    /// The newest link the app resolved with this install id in the workspace.
    static func lastOpen(_ db: any SQLExecutor, installId: String, workspaceId: String) throws -> AttributionRows.ReferrerClick? {
        try db.first("""
            SELECT c.token, c.kind, c.created_at, c.workspace_id, l.id AS link_id, l.app_id FROM clicks c JOIN links l ON l.id = c.link_id
            WHERE c.install_id = \(installId) AND c.kind = 'open' AND c.workspace_id = \(workspaceId)
            ORDER BY c.created_at DESC LIMIT 1
            """, as: AttributionRows.ReferrerClick.self)
    }

    /// Up to `limit` unmatched iOS clicks of the workspace from `addressHash` made from `from` to `to`, newest first, with
    /// their link's app; only those whose link is `appId`'s or no app's when `appId` is given.
    static func unmatchedClicks(_ db: any SQLExecutor, workspaceId: String, addressHash: String, from: Int64, to: Int64, appId: String? = nil,
                                limit: Int64) throws -> [AttributionRows.AddressClick] {
        let linkOfApp: SQL = appId.map { " AND (l.app_id IS NULL OR l.app_id = \($0))" } ?? ""
        // Read column by column rather than through `Decodable`: every match reads up to ten of these in the writer.
        return try db.query("""
            SELECT c.token, c.created_at, l.id AS link_id, l.app_id FROM clicks c JOIN links l ON l.id = c.link_id
            WHERE c.workspace_id = \(workspaceId) AND c.address_hash = \(addressHash) AND c.claimed = 0
              AND c.created_at >= \(from) AND c.created_at <= \(to) AND c.kind = 'click' AND c.platform = 'ios'\(linkOfApp)
            ORDER BY c.created_at DESC LIMIT \(limit)
            """).map { row in
            AttributionRows.AddressClick(token: try row.string("token"), createdAt: try row.int("created_at"),
                                         linkId: try row.string("link_id"), appId: try row.optionalString("app_id"))
        }
    }

    /// The app's newest ad impression from `addressHash` from `from` to `to`.
    static func newestImpression(_ db: any SQLExecutor, appId: String, addressHash: String, from: Int64, to: Int64) throws
        -> AttributionRows.Impression? {
        try db.first("""
            SELECT id, network, campaign, created_at FROM impressions
            WHERE app_id = \(appId) AND address_hash = \(addressHash) AND created_at >= \(from) AND created_at <= \(to)
            ORDER BY created_at DESC LIMIT 1
            """, as: AttributionRows.Impression.self)
    }

    /// Claims the click for the install, on the click's row: false when another install claimed it first.
    static func claim(_ db: any SQLExecutor, token: String, appId: String, installId: String) throws -> Bool {
        try db.execute("""
            UPDATE clicks SET claimed = 1, claimed_app_id = \(appId), claimed_install_id = \(installId)
            WHERE token = \(token) AND claimed = 0
            """) > 0
    }

    /// Gives back the install's claim on the click, which is unclaimed again.
    static func releaseClaim(_ db: any SQLExecutor, token: String, appId: String, installId: String) throws {
        try db.execute("""
            UPDATE clicks SET claimed = 0, claimed_app_id = NULL, claimed_install_id = NULL
            WHERE token = \(token) AND claimed_app_id = \(appId) AND claimed_install_id = \(installId)
            """)
    }

    /// The click's variant and whether it was a QR scan.
    static func variant(_ db: any SQLExecutor, token: String) throws -> AttributionRows.ClickVariant? {
        try db.first("SELECT variant, qr FROM clicks WHERE token = \(token)", as: AttributionRows.ClickVariant.self)
    }
}
