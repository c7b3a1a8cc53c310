import Foundation
import LinkRunwayAPI
import RunwayKit
import RunwayStore

/// A link's analytics on its page, from `GET /v1/links/{id}/stats` (the daily rollups): the overview's range form
/// and presets, tiles, a chart of clicks, installs and events per day and one of revenue per currency, and a table for
/// each breakdown (platform, OS version, country, referrer, variant, scan or tap), with a CSV download of it all.
enum LinkStatsPanel {
    /// Rows a breakdown table shows; the CSV has all.
    static let rowsShown = 20

    static let titles = ["platform": "Platform", "osVersion": "OS version", "country": "Country", "referrer": "Referrer",
                         "inAppBrowser": "In-app browser", "variant": "Variant", "qr": "Scan or tap"]

    /// What `(none)` means in each breakdown.
    static let none = ["platform": "not known", "osVersion": "version not known", "country": "not known (no country database, or not in it)",
                       "referrer": "none (typed, scanned, or from an app)",
                       "inAppBrowser": "none (a browser, or counted before in-app browsers were)", "variant": "no variant", "qr": "not known"]

    /// The panel, and what was wrong with the range asked for.
    static func render(_ context: ConsoleContext, link: Link) async throws -> (Markup, [FormProblem]) {
        let choice = ConsoleRangeForm.read(context)
        let path = "/console/links/\(link.id)"
        // The QR code's options stay as they are when the range changes. The form opens the page at its top, where a
        // refused range is summed up; the presets (never refused) open it at the analytics.
        let qr = QRPanel.chosen(context.request).filter { $0.1 != nil }
        let kept = Markup.join(qr.map { "<input type=\"hidden\" name=\"\($0.0)\" value=\"\($0.1 ?? "")\">" })
        let form: Markup = """
            <h2 id="analytics">Analytics</h2>
            <form method="get" action="\(path)" class="inline filter"><input type="hidden" name="ws" value="\(context.workspace.id)">\(kept)
            \(ConsoleRangeForm.fields(choice)) <button type="submit">Show</button></form>
            \(ConsoleRangeForm.presets(context, choice, path: path, keeping: qr, fragment: "#analytics"))
            """
        guard let range = choice.range else { return (section(form), choice.problems) }
        let query: [(String, String?)] = [("from", range.fromText), ("to", range.toText), ("includeSimulated", choice.simulated ? "true" : nil)]
        let stats = try await context.api.get("/v1/links/\(link.id)/stats", query: query, as: LinkStats.self)
        let f = context.format
        let total = stats.total
        var partial: [String: String] = [:]
        if let made = ISOTime.milliseconds(link.createdAt).map({ ConsoleDateRange.iso(ConsoleDateRange.today($0)) }), range.days.contains(made) {
            partial[made] = "the link was made that day"
        }
        if range.last == choice.today { partial[range.toText] = "today, so far" }
        let days = stats.days ?? []
        let counts = ConsoleChart(title: "Clicks, installs and events of this link per day", days: range.days, series: [
            .init(name: "Clicks", style: "clicks", points: days.map { ($0.key, Int64($0.clicks)) }),
            .init(name: "Installs", style: "installs", points: days.map { ($0.key, Int64($0.installs ?? 0)) }),
            .init(name: "Events", style: "events", points: try days.map { ($0.key, try Checked.sum(($0.events ?? [:]).values.lazy.map(Int64.init))) }),
        ], partial: partial)
        let money = ConsoleChart.revenue(days.map { ($0.key, $0.revenue ?? [:]) }, days: range.days, partial: partial, subject: " of this link")
        let csv = context.link(path + "/stats.csv", query)
        let content: Markup
        if total.isEmpty {
            content = ConsoleLayout.empty("Nothing in this range yet: the clicks of this link, the installs they bring and the events after them show here.")
        } else {
            content = counts.render(f) + Markup.join(money.filter { !$0.isEmpty }.map { $0.render(f) })
                + Markup.join(stats.breakdowns.map { table($0, range: range, f) })
                + "<p class=\"hint\">Installs keep no country and no referrer, so those two tables count clicks and opens only.</p>"
                + "<p><a href=\"\(csv)\" download>Download these figures as CSV</a> (every row of every table).</p>"
        }
        return (section("""
            \(form)
            \(ConsoleRangeForm.hint(range, simulated: choice.simulated, f))
            \(ConsoleRangeForm.tiles(clicks: Int64(total.clicks), installs: Int64(total.installs ?? 0),
                                     events: try Checked.sum((total.events ?? [:]).values.lazy.map(Int64.init)), revenue: total.revenue ?? [:], f))
            <p>Opened in the app: \(f.number(total.opens)). Previews: \(f.number(total.previews ?? 0)); bots: \(f.number(total.bots ?? 0)) (never counted as clicks).</p>
            \(content)
            """), [])
    }

    static func section(_ body: Markup) -> Markup { "<section class=\"card\" aria-labelledby=\"analytics\">\(body)</section>" }

    /// One breakdown: its values, most clicks first, the first `rowsShown` of them.
    static func table(_ breakdown: LinkStatsBreakdown, range: ConsoleDateRange, _ f: ConsoleFormat) -> Markup {
        let title = titles[breakdown.dimension] ?? breakdown.dimension
        let clickOnly = LinkStats.clickOnlyDimensions.contains(breakdown.dimension)
        let caption = "\(title), \(f.day(range.fromText, year: true)) to \(f.day(range.toText, year: true))"
        guard !breakdown.rows.isEmpty else { return "" }
        let rows: [[Markup]] = breakdown.rows.prefix(rowsShown).map { row in
            let key: Markup = row.key == LinkStats.noValue ? "<span class=\"muted\">\(none[breakdown.dimension] ?? "none")</span>" : "\(row.key)"
            let counts: [Markup] = ["\(f.number(row.clicks))", "\(f.number(row.opens))"]
            guard !clickOnly else { return [key] + counts }
            return [key] + counts + ["\(f.number(row.installs ?? 0))", "\(f.number((row.events ?? [:]).values.reduce(0, +)))",
                                     "\(ConsolePages.revenue(row.revenue ?? [:], f))"]
        }
        let headers = [title.lowercased(), "clicks", "opens"] + (clickOnly ? [] : ["installs", "events", "revenue"])
        let more: Markup = breakdown.rows.count > rowsShown
            ? "<p class=\"hint\">\(breakdown.rows.count - rowsShown) more in the CSV download.</p>" : ""
        return "<h3>By \(title.lowercased())</h3>" + ConsoleLayout.table(headers, rows, caption: caption, numericFrom: 1) + more
    }
}
