import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// The funnel report: clicks → installs → opens → events and net revenue, grouped, as JSON or CSV. Events are
/// read with the attribution they were written with; only simulated installs are looked up, to leave them and their
/// events out unless asked for.
enum FunnelReports {
    static let groupings = FunnelReport.groupings

    /// The SQL that buckets a row: day numbers (days since 1970), link ids, tags, sources or Apple Ads ids (clicks on
    /// our links have none of those: they group under `(none)`).
    static func key(_ groupBy: String, time: String, link: String, campaign: String, channel: String, source: String,
                    appleAds: String? = nil) -> String {
        switch groupBy {
        case "day": return "(\(time) / 86400000)"
        case "link": return link
        case "campaign": return campaign
        case "channel": return channel
        case "appleAdsCampaign": return appleAds.map { "\($0)apple_ads_campaign_id" } ?? "NULL"
        case "appleAdsAdGroup": return appleAds.map { "\($0)apple_ads_ad_group_id" } ?? "NULL"
        case "appleAdsKeyword": return appleAds.map { "\($0)apple_ads_keyword_id" } ?? "NULL"
        default: return source
        }
    }

    static func funnel(_ db: any SQLExecutor, workspaceId: String, appId: String?, from: Int64, to: Int64, groupBy: String,
                       includeSimulated: Bool = false) throws -> FunnelReport {
        var rows: [String: FunnelRow] = [:]
        func row(_ key: SQLValue) -> String {
            switch key {
            case .null: return "(none)"
            case .integer(let day) where groupBy == "day": return String(Timestamp.iso(day * 86_400_000).prefix(10))
            case .integer(let n): return String(n)
            case .real(let d) where groupBy == "day": return String(Timestamp.iso(Int64(d) * 86_400_000).prefix(10))
            case .text(let s): return s
            default: return "(none)"
            }
        }
        func bump(_ key: SQLValue, _ update: (inout FunnelRow) -> Void) {
            let name = row(key)
            var entry = rows[name] ?? FunnelRow(key: name, clicks: 0, installs: 0, opens: 0, previews: 0, bots: 0, events: [:], revenue: [:])
            update(&entry)
            rows[name] = entry
        }
        let appFilter: SQL = appId.map { " AND l.app_id = \($0)" } ?? ""
        let visitKey = key(groupBy, time: "c.created_at", link: "c.link_id", campaign: "l.campaign", channel: "l.channel", source: "'link'")
        // Every click comes from a link: grouped by source or Apple Ads ids, they have one constant key, which PostgreSQL
        // will not group by.
        let visitGroups = groupBy == "source" || groupBy.hasPrefix("appleAds") ? "c.kind" : "\(visitKey), c.kind"
        for visit in try db.query("""
            SELECT \(raw: visitKey) AS k, c.kind, COUNT(*) AS n FROM clicks c JOIN links l ON l.id = c.link_id
            WHERE c.workspace_id = \(workspaceId) AND c.created_at >= \(from) AND c.created_at < \(to)\(appFilter)
            GROUP BY \(raw: visitGroups)
            """) {
            let n = Int(try visit.int("n"))
            let kind = try visit.string("kind")
            bump(visit["k"]) { kind == "click" ? ($0.clicks += n) : ($0.opens += n) }
        }
        // Previews and bots are counted by UTC day: a range that starts within a day takes in that whole day.
        let automatedKey = key(groupBy, time: "(v.day * 86400000)", link: "v.link_id", campaign: "l.campaign", channel: "l.channel", source: "'link'")
        let automatedGroups = groupBy == "source" || groupBy.hasPrefix("appleAds") ? "v.kind" : "\(automatedKey), v.kind"
        for visit in try db.query("""
            SELECT \(raw: automatedKey) AS k, v.kind, SUM(v.visits) AS n FROM link_automated_visits v JOIN links l ON l.id = v.link_id
            WHERE v.workspace_id = \(workspaceId) AND v.day >= \(from / 86_400_000) AND v.day * 86400000 < \(to)\(appFilter)
            GROUP BY \(raw: automatedGroups)
            """) {
            let n = Int(try visit.int("n"))
            let kind = try visit.string("kind")
            bump(visit["k"]) { kind == "preview" ? ($0.previews += n) : ($0.bots += n) }
        }
        let installFilter: SQL = appId.map { " AND app_id = \($0)" } ?? ""
        let realInstalls: SQL = includeSimulated ? "" : " AND simulated = \(false)"
        let realEvents: SQL = includeSimulated ? "" : """
             AND NOT EXISTS (SELECT 1 FROM installs s WHERE s.app_id = events.app_id AND s.install_id = events.install_id AND s.simulated = \(true))
            """
        let installKey = key(groupBy, time: "matched_at", link: "link_id", campaign: "campaign", channel: "channel", source: "source", appleAds: "")
        for install in try db.query("""
            SELECT \(raw: installKey) AS k, COUNT(*) AS n FROM installs
            WHERE workspace_id = \(workspaceId) AND matched_at >= \(from) AND matched_at < \(to) AND source <> 'returning'\(installFilter)\(realInstalls)
            GROUP BY \(raw: installKey)
            """) {
            let n = Int(try install.int("n"))
            bump(install["k"]) { $0.installs += n }
        }
        let eventKey = key(groupBy, time: "received_at", link: "link_id", campaign: "campaign", channel: "channel", source: "source", appleAds: "")
        for event in try db.query("""
            SELECT \(raw: eventKey) AS k, type, currency, COUNT(*) AS n,
                   SUM(CASE WHEN type = 'REFUND' THEN -amount WHEN type IN ('PURCHASE', 'SUBSCRIPTION') THEN amount ELSE 0 END) AS net
            FROM events WHERE workspace_id = \(workspaceId) AND received_at >= \(from) AND received_at < \(to)\(installFilter)\(realEvents)
            GROUP BY \(raw: eventKey), type, currency
            """) {
            let n = Int(try event.int("n"))
            let type = try event.string("type")
            let currency = try event.optionalString("currency")
            let net = try event.optionalInt("net") ?? 0
            bump(event["k"]) { entry in
                entry.events[type, default: 0] += n
                if let currency { entry.revenue[currency, default: 0] += net }
            }
        }
        return FunnelReport(from: Timestamp.iso(from), to: Timestamp.iso(to), groupBy: groupBy,
                            rows: rows.values.sorted { $0.key < $1.key })
    }

    /// One line per row: key, clicks, installs, opens, then a column per event type and per currency seen, then
    /// previews and bots.
    static func csv(_ report: FunnelReport) -> String {
        let types = Set(report.rows.flatMap { $0.events.keys }).sorted()
        let currencies = Set(report.rows.flatMap { $0.revenue.keys }).sorted()
        var lines = [(["\(report.groupBy)", "clicks", "installs", "opens"] + types.map { "events_\($0)" } + currencies.map { "revenue_\($0)" } + ["previews", "bots"])
            .joined(separator: ",")]
        for row in report.rows {
            let cells = [ReportQuery.escape(row.key), String(row.clicks), String(row.installs), String(row.opens)]
                + types.map { String(row.events[$0] ?? 0) } + currencies.map { String(row.revenue[$0] ?? 0) } + [String(row.previews), String(row.bots)]
            lines.append(cells.joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}
