import RunwayKit
import RunwayStore

/// The SQL of the funnel report (`FunnelReports`): four counts of one workspace's rows in [from, to), narrowed to one
/// app when `appId` is given, each bucketed by `key`, the SQL of the report's grouping for that table
/// (`FunnelReports.key`). A `constant` key is one PostgreSQL will not group by; those counts group by a column that has
/// one value under their filter instead.
enum FunnelReportQueries {
    /// Clicks and opens of the workspace's links, by key and kind.
    static func visits(_ db: any SQLExecutor, workspaceId: String, appId: String?, from: Int64, to: Int64, key: String,
                       constant: Bool) throws -> [AttributionRows.VisitGroup] {
        let appFilter: SQL = appId.map { " AND l.app_id = \($0)" } ?? ""
        let groups = constant ? "c.kind" : "\(key), c.kind"
        return try db.query("""
            SELECT \(raw: key) AS k, c.kind, COUNT(*) AS n FROM clicks c JOIN links l ON l.id = c.link_id
            WHERE c.workspace_id = \(workspaceId) AND c.created_at >= \(from) AND c.created_at < \(to)\(appFilter)
            GROUP BY \(raw: groups)
            """, as: AttributionRows.VisitGroup.self)
    }

    /// Previews and bots of the workspace's links, by key and kind; counted by UTC day, so the day `from` falls in
    /// counts whole.
    static func automatedVisits(_ db: any SQLExecutor, workspaceId: String, appId: String?, from: Int64, to: Int64, key: String,
                                constant: Bool) throws -> [AttributionRows.VisitGroup] {
        let appFilter: SQL = appId.map { " AND l.app_id = \($0)" } ?? ""
        let groups = constant ? "v.kind" : "\(key), v.kind"
        return try db.query("""
            SELECT \(raw: key) AS k, v.kind, SUM(v.visits) AS n FROM link_automated_visits v JOIN links l ON l.id = v.link_id
            WHERE v.workspace_id = \(workspaceId) AND v.day >= \(from / 86_400_000) AND v.day * 86400000 < \(to)\(appFilter)
            GROUP BY \(raw: groups)
            """, as: AttributionRows.VisitGroup.self)
    }

    /// Installs matched, but returning devices', by key: simulated ones only with `includeSimulated`, and with
    /// `consumerOnly` only those from consumer stores (or stores not known). `utm` joins each install's link `l`.
    static func installs(_ db: any SQLExecutor, workspaceId: String, appId: String?, from: Int64, to: Int64, key: String, constant: Bool,
                         utm: Bool, includeSimulated: Bool, consumerOnly: Bool) throws -> [AttributionRows.InstallGroup] {
        let installFilter: SQL = appId.map { " AND i.app_id = \($0)" } ?? ""
        let realInstalls: SQL = (includeSimulated ? "" : " AND i.simulated = \(false)")
            + (consumerOnly ? " AND (i.store_types IS NULL OR i.store_types NOT IN \(StoreTypes.nonConsumerValues))" : "")
        return try db.query("""
            SELECT \(raw: key) AS k, COUNT(*) AS n FROM installs i\(raw: utm ? " LEFT JOIN links l ON l.id = i.link_id" : "")
            WHERE i.workspace_id = \(workspaceId) AND i.matched_at >= \(from) AND i.matched_at < \(to) AND i.source <> 'returning'\(installFilter)\(realInstalls)
            GROUP BY \(raw: constant ? "i.workspace_id" : key)
            """, as: AttributionRows.InstallGroup.self)
    }

    /// Events received, by key, type and currency, with their net revenue: those of simulated installs only with
    /// `includeSimulated`, and with `consumerOnly` none of installs from other stores. `utm` joins each event's link `l`.
    static func events(_ db: any SQLExecutor, workspaceId: String, appId: String?, from: Int64, to: Int64, key: String, constant: Bool,
                       utm: Bool, includeSimulated: Bool, consumerOnly: Bool) throws -> [AttributionRows.EventGroup] {
        let eventFilter: SQL = appId.map { " AND e.app_id = \($0)" } ?? ""
        let leftOut: SQL? = switch (includeSimulated, consumerOnly) {
        case (true, false): nil
        case (true, true): "s.store_types IN \(StoreTypes.nonConsumerValues)"
        case (false, false): "s.simulated = \(true)"
        case (false, true): "(s.simulated = \(true) OR s.store_types IN \(StoreTypes.nonConsumerValues))"
        }
        let realEvents: SQL = leftOut.map { condition in
            " AND NOT EXISTS (SELECT 1 FROM installs s WHERE s.app_id = e.app_id AND s.install_id = e.install_id AND \(condition))"
        } ?? ""
        return try db.query("""
            SELECT \(raw: key) AS k, e.type, e.currency, COUNT(*) AS n,
                   SUM(CASE WHEN e.type = 'REFUND' THEN -e.amount WHEN e.type IN ('PURCHASE', 'SUBSCRIPTION') THEN e.amount ELSE 0 END) AS net
            FROM events e\(raw: utm ? " LEFT JOIN links l ON l.id = e.link_id" : "")
            WHERE e.workspace_id = \(workspaceId) AND e.received_at >= \(from) AND e.received_at < \(to)\(eventFilter)\(realEvents)
            GROUP BY \(raw: constant ? "e.workspace_id" : key), e.type, e.currency
            """, as: AttributionRows.EventGroup.self)
    }
}
