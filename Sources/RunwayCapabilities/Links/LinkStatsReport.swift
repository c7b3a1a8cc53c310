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
        // The total is the days' sum: each amount is added to it as it is to its day (a day left empty adds nothing).
        var total = LinkStatsRow(key: LinkRollup.total, installs: 0, events: [:], revenue: [:], previews: 0, bots: 0)
        for entry in try LinkStatsQueries.days(db, linkId: linkId, first: first, last: last) {
            guard let measure = Measure(entry.measure, includeSimulated: query.includeSimulated) else { continue }
            try measure.add(entry.amount, to: &days[entry.day, default: blank(entry.day)])
            if entry.amount != 0 { try measure.add(entry.amount, to: &total) }
        }
        for entry in try LinkStatsQueries.automated(db, linkId: linkId, first: first, last: last) {
            let measure = entry.kind == "preview" ? Measure.previews : .bots
            try measure.add(entry.visits, to: &days[entry.day, default: blank(entry.day)])
            try measure.add(entry.visits, to: &total)
        }
        // A day with only simulated figures, left out, is no day with activity.
        let active = days.sorted { $0.key < $1.key }.map(\.value).filter { !$0.isEmpty }
        var breakdowns: [LinkStatsBreakdown] = []
        let years = try query.by.contains { $0 != "day" } && LinkStatsYears.whole(db)
        for dimension in query.by where dimension != "day" {
            // Country and referrer rows count clicks and opens only, so they have no installs, events or revenue at all.
            let clickOnly = LinkStats.clickOnlyDimensions.contains(dimension)
            func blank(_ key: String) -> LinkStatsRow { clickOnly ? LinkStatsRow(key: key) : LinkStatsRow(key: key, installs: 0, events: [:], revenue: [:]) }
            var rows: [String: LinkStatsRow] = [:]
            let amounts = try LinkStatsQueries.breakdown(db, linkId: linkId, dimension: dimension, first: first, last: last, today: query.today,
                                                          years: years && LinkRollup.yearlyDimensions.contains(dimension))
            for entry in amounts {
                guard let measure = Measure(entry.measure, includeSimulated: query.includeSimulated) else { continue }
                let key = entry.key.isEmpty ? LinkStats.noValue : entry.key
                try measure.add(entry.amount, to: &rows[key, default: blank(key)])
            }
            breakdowns.append(LinkStatsBreakdown(dimension: dimension, rows: rows.values.filter { !$0.isEmpty }.sorted {
                ($0.clicks, $0.installs ?? 0, $1.key) > ($1.clicks, $1.installs ?? 0, $0.key)
            }))
        }
        return LinkStats(linkId: linkId, from: iso(first), to: iso(last), includeSimulated: query.includeSimulated, total: total,
                         days: query.by.contains("day") ? active : nil, breakdowns: breakdowns)
    }

    /// What a stored amount counts, by its measure (`LinkRollup.measure`), read once per row.
    enum Measure {
        case clicks, opens, installs, previews, bots
        case event(String)
        case revenue(String)

        /// nil for a measure this version does not show, and for those of simulated installs unless they are asked for.
        init?(_ text: String, includeSimulated: Bool) {
            var name = text
            if name.hasPrefix(LinkStatsReport.simulated) {
                guard includeSimulated else { return nil }
                name = String(name.utf8.dropFirst(LinkStatsReport.simulated.utf8.count)) ?? ""
            }
            switch name {
            case "click": self = .clicks
            case "open": self = .opens
            case "install": self = .installs
            default:
                if name.hasPrefix("event:") {
                    self = .event(String(name.utf8.dropFirst(6)) ?? "")
                } else if name.hasPrefix("revenue:") {
                    self = .revenue(String(name.utf8.dropFirst(8)) ?? "")
                } else {
                    return nil
                }
            }
        }

        /// Adds the amount to the row, checked: totals stored by an older release may add up past 64 bits. A row
        /// that does not count the measure (installs by country) is left as it is.
        func add(_ amount: Int64, to row: inout LinkStatsRow) throws {
            switch self {
            case .clicks: row.clicks = try Checked.add(row.clicks, amount)
            case .opens: row.opens = try Checked.add(row.opens, amount)
            case .installs: if let installs = row.installs { row.installs = try Checked.add(installs, amount) }
            case .previews: if let previews = row.previews { row.previews = try Checked.add(previews, amount) }
            case .bots: if let bots = row.bots { row.bots = try Checked.add(bots, amount) }
            case .event(let type):
                guard var events = row.events else { return }
                row.events = nil  // `events` is then the map's one reference, so adding to it copies nothing
                events[type] = try Checked.add(events[type] ?? 0, amount)
                row.events = events
            case .revenue(let currency):
                guard var revenue = row.revenue else { return }
                row.revenue = nil
                revenue[currency] = try Checked.add(revenue[currency] ?? 0, amount)
                row.revenue = revenue
            }
        }
    }

    private static let simulated = "simulated:"

    static func iso(_ day: Int64) -> String { Timestamp.isoDay(day) }

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
