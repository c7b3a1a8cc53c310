import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// The funnel report: clicks → installs → opens → events and net revenue, grouped, as JSON or CSV. Events are
/// read with the attribution they were written with; only simulated installs are looked up, to leave them and their
/// events out unless asked for, and, with `stores=consumer`, installs from education or enterprise stores only
/// (`StoreTypes`), with their events.
enum FunnelReports {
    static let groupings = FunnelReport.groupings

    /// The columns a table gives each grouping; `links` is the alias of the joined `links` row (for UTM), nil when the
    /// rows have none.
    struct Columns {
        let time: String, link: String, campaign: String, channel: String, source: String
        var appleAds: String? = nil
        var variant: String? = nil
        /// The address's country: clicks and opens only (an install never keeps one).
        var country: String? = nil
        /// The app whose own browser a click came from: clicks only.
        var inAppBrowser: String? = nil
        /// Whether a row came from the QR code (1) or not (0), when it came from a link.
        var qr: String? = nil
        var linked: String? = nil
        var links: String? = nil
    }

    /// The SQL that buckets a row: day numbers (days since 1970), link ids, tags, sources, Apple Ads ids, variants,
    /// countries, in-app browsers, `scan` or `tap`, or the link's UTM values (what a table has none of groups under `(none)`).
    static func key(_ groupBy: String, _ c: Columns) -> String {
        switch groupBy {
        case "day": return "(\(c.time) / 86400000)"
        case "link": return c.link
        case "campaign": return c.campaign
        case "channel": return c.channel
        case "appleAdsCampaign": return c.appleAds.map { "\($0)apple_ads_campaign_id" } ?? "NULL"
        case "appleAdsAdGroup": return c.appleAds.map { "\($0)apple_ads_ad_group_id" } ?? "NULL"
        case "appleAdsKeyword": return c.appleAds.map { "\($0)apple_ads_keyword_id" } ?? "NULL"
        case "variant": return c.variant ?? "NULL"
        case "country": return c.country ?? "NULL"
        case "inAppBrowser": return c.inAppBrowser ?? "NULL"
        case "qr":
            guard let qr = c.qr else { return "NULL" }
            return "(CASE WHEN \(qr) = 1 THEN 'scan' WHEN \(c.linked ?? "1 = 1") THEN 'tap' END)"
        case let utm where utm.hasPrefix("utm"):
            guard let links = c.links else { return "NULL" }
            return "\(links).utm_" + utm.dropFirst(3).lowercased()
        default: return c.source
        }
    }

    /// Groupings under which every row of a table has one constant key, which PostgreSQL will not group by (the
    /// queries group by the workspace instead, one value under their filter).
    static func constant(_ groupBy: String, _ key: String) -> Bool {
        key == "NULL" || groupBy == "source" && key == "'link'"
    }

    /// The values of `stores`: every install, or consumer ones (and those whose store is not known).
    static let stores = FunnelReport.storeChoices

    static func funnel(_ db: any SQLExecutor, workspaceId: String, appId: String?, from: Int64, to: Int64, groupBy: String,
                       includeSimulated: Bool = false, consumerOnly: Bool = false) throws -> FunnelReport {
        var rows: [String: FunnelRow] = [:]
        func row(_ key: SQLValue) -> String {
            switch key {
            case .null: return "(none)"
            case .integer(let day) where groupBy == "day": return Timestamp.isoDay(day)
            case .integer(let n): return String(n)
            case .real(let d) where groupBy == "day": return Int64(exactly: d.rounded(.down)).map(Timestamp.isoDay) ?? "(none)"
            case .text(let s): return s
            default: return "(none)"
            }
        }
        func bump(_ key: SQLValue, _ update: (inout FunnelRow) throws -> Void) throws {
            let name = row(key)
            var entry = rows[name] ?? FunnelRow(key: name, clicks: 0, installs: 0, opens: 0, previews: 0, bots: 0, events: [:], revenue: [:])
            try update(&entry)
            rows[name] = entry
        }
        let visitKey = key(groupBy, Columns(time: "c.created_at", link: "c.link_id", campaign: "l.campaign", channel: "l.channel", source: "'link'",
                                            variant: "c.variant", country: "c.country", inAppBrowser: "c.in_app_browser", qr: "c.qr", links: "l"))
        for visit in try FunnelReportQueries.visits(db, workspaceId: workspaceId, appId: appId, from: from, to: to, key: visitKey,
                                                    constant: constant(groupBy, visitKey)) {
            try bump(visit.k) { row in
                if visit.kind == "click" { row.clicks = try Checked.add(row.clicks, visit.n) } else { row.opens = try Checked.add(row.opens, visit.n) }
            }
        }
        // Previews and bots are counted by UTC day: a range that starts within a day takes in that whole day. They have
        // no variant and are neither scans nor taps.
        let automatedKey = key(groupBy, Columns(time: "(v.day * 86400000)", link: "v.link_id", campaign: "l.campaign", channel: "l.channel",
                                                source: "'link'", links: "l"))
        for visit in try FunnelReportQueries.automatedVisits(db, workspaceId: workspaceId, appId: appId, from: from, to: to, key: automatedKey,
                                                             constant: constant(groupBy, automatedKey)) {
            try bump(visit.k) { row in
                if visit.kind == "preview" { row.previews = try Checked.add(row.previews, visit.n) } else { row.bots = try Checked.add(row.bots, visit.n) }
            }
        }
        // Installs and events carry their attribution; the UTM values are their link's, joined only for those groupings.
        let utm = groupBy.hasPrefix("utm")
        let installKey = key(groupBy, Columns(time: "i.matched_at", link: "i.link_id", campaign: "i.campaign", channel: "i.channel", source: "i.source",
                                              appleAds: "i.", variant: "i.variant", qr: "i.qr", linked: "i.link_id IS NOT NULL", links: "l"))
        for install in try FunnelReportQueries.installs(db, workspaceId: workspaceId, appId: appId, from: from, to: to, key: installKey,
                                                        constant: constant(groupBy, installKey), utm: utm, includeSimulated: includeSimulated,
                                                        consumerOnly: consumerOnly) {
            try bump(install.k) { $0.installs = try Checked.add($0.installs, install.n) }
        }
        let eventKey = key(groupBy, Columns(time: "e.received_at", link: "e.link_id", campaign: "e.campaign", channel: "e.channel", source: "e.source",
                                            appleAds: "e.", variant: "e.variant", qr: "e.qr", linked: "e.link_id IS NOT NULL", links: "l"))
        for event in try FunnelReportQueries.events(db, workspaceId: workspaceId, appId: appId, from: from, to: to, key: eventKey,
                                                    constant: constant(groupBy, eventKey), utm: utm, includeSimulated: includeSimulated,
                                                    consumerOnly: consumerOnly) {
            let n = try Checked.int(event.n)
            try bump(event.k) { entry in
                try Checked.add(n, to: &entry.events, at: event.type)
                if let currency = event.currency { try Checked.add(event.net ?? 0, to: &entry.revenue, at: currency) }
            }
        }
        return FunnelReport(from: Timestamp.iso(from), to: Timestamp.iso(to), groupBy: groupBy,
                            rows: rows.values.sorted { $0.key < $1.key }, stores: consumerOnly ? "consumer" : "all")
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
