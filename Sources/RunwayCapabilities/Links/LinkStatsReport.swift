import LinkRunwayAPI
import RunwayKit
import RunwayStore

/// A link's figures (`LinkStats`) from its daily rollups, and the same as CSV. Reads only `link_stats` and
/// `link_automated_visits`, by the link and the range of days, so a year of a busy link is some thousands of rows per
/// breakdown, however many clicks are behind them.
enum LinkStatsReport {
    static func read(_ db: any SQLExecutor, linkId: String, query: LinkStatsQuery) throws -> LinkStats {
        let (first, last) = (query.firstDay, query.lastDay)
        var days: [Int64: LinkStatsRow] = [:]
        func blank(_ number: Int64) -> LinkStatsRow { LinkStatsRow(key: iso(number), installs: 0, events: [:], revenue: [:], previews: 0, bots: 0) }
        for entry in try LinkStatsQueries.days(db, linkId: linkId, first: first, last: last) {
            try add(entry.amount, entry.measure, to: &days[entry.day, default: blank(entry.day)], includeSimulated: query.includeSimulated)
        }
        for entry in try LinkStatsQueries.automated(db, linkId: linkId, first: first, last: last) {
            var day = days[entry.day, default: blank(entry.day)]
            if entry.kind == "preview" {
                day.previews = try Checked.add(day.previews ?? 0, entry.visits)
            } else {
                day.bots = try Checked.add(day.bots ?? 0, entry.visits)
            }
            days[entry.day] = day
        }
        // A day with only simulated figures, left out, is no day with activity.
        let active = days.sorted { $0.key < $1.key }.map(\.value).filter { !$0.isEmpty }
        var total = LinkStatsRow(key: LinkRollup.total, installs: 0, events: [:], revenue: [:], previews: 0, bots: 0)
        for row in active { total = try sum(total, row) }
        var breakdowns: [LinkStatsBreakdown] = []
        for dimension in query.by where dimension != "day" {
            // Country and referrer rows count clicks and opens only, so they have no installs, events or revenue at all.
            let clickOnly = LinkStats.clickOnlyDimensions.contains(dimension)
            func blank(_ key: String) -> LinkStatsRow { clickOnly ? LinkStatsRow(key: key) : LinkStatsRow(key: key, installs: 0, events: [:], revenue: [:]) }
            var rows: [String: LinkStatsRow] = [:]
            let amounts = try LinkStatsQueries.breakdown(db, linkId: linkId, dimension: dimension, first: first, last: last, today: query.today)
            for entry in amounts {
                let key = entry.key.isEmpty ? LinkStats.noValue : entry.key
                try add(entry.amount, entry.measure, to: &rows[key, default: blank(key)], includeSimulated: query.includeSimulated)
            }
            breakdowns.append(LinkStatsBreakdown(dimension: dimension, rows: rows.values.filter { !$0.isEmpty }.sorted {
                ($0.clicks, $0.installs ?? 0, $1.key) > ($1.clicks, $1.installs ?? 0, $0.key)
            }))
        }
        return LinkStats(linkId: linkId, from: iso(first), to: iso(last), includeSimulated: query.includeSimulated, total: total,
                         days: query.by.contains("day") ? active : nil, breakdowns: breakdowns)
    }

    static func iso(_ day: Int64) -> String { Timestamp.isoDay(day) }

    /// Adds one stored amount to a row by its measure (`LinkRollup.measure`); those of simulated installs only when
    /// asked for. Checked: totals stored by an older release may add up past 64 bits.
    static func add(_ amount: Int64, _ measure: String, to row: inout LinkStatsRow, includeSimulated: Bool) throws {
        var name = Substring(measure)
        if name.hasPrefix(simulated) {
            guard includeSimulated else { return }
            name = name.dropFirst(simulated.count)
        }
        switch name {
        case "click": row.clicks = try Checked.add(row.clicks, amount)
        case "open": row.opens = try Checked.add(row.opens, amount)
        case "install": row.installs = try Checked.add(row.installs ?? 0, amount)
        default:
            if name.hasPrefix("event:"), var events = row.events {
                try Checked.add(try Checked.int(amount), to: &events, at: String(name.dropFirst(6)))
                row.events = events
            } else if name.hasPrefix("revenue:"), var revenue = row.revenue {
                try Checked.add(amount, to: &revenue, at: String(name.dropFirst(8)))
                row.revenue = revenue
            }
        }
    }

    private static let simulated = "simulated:"

    static func sum(_ a: LinkStatsRow, _ b: LinkStatsRow) throws -> LinkStatsRow {
        LinkStatsRow(key: a.key, clicks: try Checked.add(a.clicks, b.clicks), opens: try Checked.add(a.opens, b.opens),
                     installs: try Checked.add(a.installs ?? 0, b.installs ?? 0),
                     events: try Checked.merge(a.events ?? [:], b.events ?? [:]), revenue: try Checked.merge(a.revenue ?? [:], b.revenue ?? [:]),
                     previews: try Checked.add(a.previews ?? 0, b.previews ?? 0), bots: try Checked.add(a.bots ?? 0, b.bots ?? 0))
    }

    /// One line per row: the total, the days, then each breakdown's values; a column per event type and currency
    /// seen. A cell is empty where the row does not count that (installs by country, previews by platform).
    static func csv(_ stats: LinkStats) -> String {
        let sections: [(String, [LinkStatsRow])] = [("total", [stats.total])] + (stats.days.map { [("day", $0)] } ?? [])
            + stats.breakdowns.map { ($0.dimension, $0.rows) }
        let rows = sections.flatMap(\.1)
        let types = Set(rows.flatMap { Array(($0.events ?? [:]).keys) }).sorted()
        let currencies = Set(rows.flatMap { Array(($0.revenue ?? [:]).keys) }).sorted()
        var lines = [(["dimension", "key", "clicks", "opens", "installs", "previews", "bots"] + types.map { "events_\($0)" }
                      + currencies.map { "revenue_\($0)" }).joined(separator: ",")]
        func cell(_ value: (some BinaryInteger)?) -> String { value.map { String($0) } ?? "" }
        for (dimension, section) in sections {
            for row in section {
                let cells = [dimension, ReportQuery.escape(row.key), String(row.clicks), String(row.opens), cell(row.installs), cell(row.previews), cell(row.bots)]
                    + types.map { type in cell(row.events.map { $0[type] ?? 0 }) } + currencies.map { code in cell(row.revenue.map { $0[code] ?? 0 }) }
                lines.append(cells.joined(separator: ","))
            }
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}
