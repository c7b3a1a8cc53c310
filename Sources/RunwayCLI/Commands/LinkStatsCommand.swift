import AppleFormats
import Foundation
import LinkRunwayAPI

/// `link stats`: a link's figures over a range of UTC days (`GET /v1/links/{id}/stats`), as tables, JSON or CSV.
enum LinkStatsCommand {
    static let command: Command = Command(["link", "stats"], summary: "A link's clicks, opens, installs, events and revenue per day, with breakdowns.",
                                 arguments: "<link-id>", options: [
        .value("--from", "day", "The first UTC day, 2026-11-01 (default: 29 days before --to)."),
        .value("--to", "day", "The last UTC day, included (default: today); at most \(LinkStats.maxDays) days in all."),
        .value("--by", "list", "Comma-separated: \(LinkStats.groupings.joined(separator: ", ")) (default: all)."),
        .flag("--include-simulated", "Count simulated installs and their events too."), .flag("--csv", "Print CSV."), TenancyCommands.jsonFlag,
    ] + APIClient.options, details: """
        The figures come from the daily rollups the server keeps with every click, install and event, so a long range
        answers at once. Days are UTC. Country and referrer count clicks and opens only: an install keeps neither.
        """) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give exactly one link id") }
        var query = [("--from", "from"), ("--to", "to"), ("--by", "by")].compactMap { option, parameter in
            a.value(option).map { "\(parameter)=\(APIClient.escape($0))" }
        }
        if a.flag("--include-simulated") { query.append("includeSimulated=true") }
        let path = "/v1/links/\(APIClient.escape(a.positionals[0]))/stats" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        let client = try APIClient(a, c)
        if a.flag("--csv") {
            return c.output(String(decoding: try await client.raw("GET", path, accept: "text/csv"), as: UTF8.self))
        }
        let stats = try await client.get(path, as: LinkStats.self)
        c.output(a.flag("--json") ? try Output.json(stats) : text(stats))
    }

    /// A line of totals, then a table of the days and one per breakdown.
    static func text(_ stats: LinkStats) -> String {
        let total = stats.total
        var sections = ["\(stats.from) to \(stats.to) (UTC): clicks \(total.clicks), opens \(total.opens), installs \(total.installs ?? 0), "
            + "events \(total.events?.values.reduce(0, +) ?? 0), revenue \(revenue(total)); previews \(total.previews ?? 0), bots \(total.bots ?? 0)"
            + (stats.includeSimulated ? " (simulated installs included)" : "")]
        if let days = stats.days, !days.isEmpty {
            sections.append(Output.table(["DAY", "CLICKS", "OPENS", "INSTALLS", "EVENTS", "REVENUE", "PREVIEWS", "BOTS"], days.map { row in
                cells(row) + [String(row.previews ?? 0), String(row.bots ?? 0)]
            }))
        }
        for breakdown in stats.breakdowns where !breakdown.rows.isEmpty {
            let headings = ["qr": "SCAN OR TAP", "osVersion": "OS", "inAppBrowser": "IN-APP BROWSER"]
            let heading = headings[breakdown.dimension] ?? breakdown.dimension.uppercased()
            if LinkStats.clickOnlyDimensions.contains(breakdown.dimension) {
                sections.append(Output.table([heading, "CLICKS", "OPENS"], breakdown.rows.map { [$0.key, String($0.clicks), String($0.opens)] }))
            } else {
                sections.append(Output.table([heading, "CLICKS", "OPENS", "INSTALLS", "EVENTS", "REVENUE"], breakdown.rows.map(cells)))
            }
        }
        return sections.joined(separator: "\n\n")
    }

    static func cells(_ row: LinkStatsRow) -> [String] {
        let events = (row.events ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        return [row.key, String(row.clicks), String(row.opens), String(row.installs ?? 0), events.isEmpty ? "-" : events.joined(separator: " "), revenue(row)]
    }

    static func revenue(_ row: LinkStatsRow) -> String {
        let amounts = (row.revenue ?? [:]).sorted { $0.key < $1.key }.map { Currency.text(minorUnits: $0.value, currency: $0.key) }
        return amounts.isEmpty ? "-" : amounts.joined(separator: ", ")
    }
}
