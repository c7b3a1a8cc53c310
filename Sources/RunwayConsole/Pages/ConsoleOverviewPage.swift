import Foundation
import LinkRunwayAPI
import RunwayKit
import RunwayStore

/// Clicks → installs → events → revenue, per UTC day, over a chosen range (the last 30 days unless the GET form or a
/// preset link says otherwise): the figures as tiles, a chart of the counts and one of revenue per currency.
enum OverviewPage {
    static func show(_ context: ConsoleContext) async throws -> ConsoleResult {
        let apps = try await context.apps()
        let app = context.request.queryValue("app").flatMap { $0.isEmpty ? nil : $0 }
        let choice = ConsoleRangeForm.read(context)
        // Installs whose app transactions named only education or enterprise stores, left out when asked.
        let consumer = context.request.queryValue("stores") == "consumer"
        let storesBox: Markup = """
             <label class="check"><input type="checkbox" name="stores" value="consumer"\(consumer ? Markup(" checked") : "")> consumer stores only</label>
            """
        let filter = ConsolePages.appFilter(context, apps: apps, selected: app, extra: ConsoleRangeForm.fields(choice) + storesBox)
            + ConsoleRangeForm.presets(context, choice, path: "/console", keeping: [("app", app), ("stores", consumer ? "consumer" : nil)])
        guard let range = choice.range else {
            return .page(ConsolePage(title: "Overview", body: filter, status: 400, problems: choice.problems))
        }
        let report = try await ConsolePages.funnel(context, groupBy: "day", app: app, from: range.fromMilliseconds, to: range.toMilliseconds,
                                                   includeSimulated: choice.simulated, consumerOnly: consumer)
        let f = context.format
        typealias Points = [(day: String, value: Int64)]
        let clicks: Points = report.rows.map { ($0.key, Int64($0.clicks)) }
        let installs: Points = report.rows.map { ($0.key, Int64($0.installs)) }
        let events: Points = try report.rows.map { ($0.key, try Checked.sum($0.events.values.lazy.map(Int64.init))) }
        var revenue: [String: Int64] = [:]
        for row in report.rows { revenue = try Checked.merge(revenue, row.revenue) }
        let tiles = ConsoleRangeForm.tiles(clicks: try Checked.sum(clicks.lazy.map(\.value)), installs: try Checked.sum(installs.lazy.map(\.value)),
                                           events: try Checked.sum(events.lazy.map(\.value)), revenue: revenue, f)
        let partial = range.last == choice.today ? [range.toText: "today, so far"] : [:]
        let counts = ConsoleChart(title: "Clicks, installs and events per day", days: range.days, series: [
            .init(name: "Clicks", style: "clicks", points: clicks), .init(name: "Installs", style: "installs", points: installs),
            .init(name: "Events", style: "events", points: events),
        ], partial: partial)
        let money = ConsoleChart.revenue(report.rows.map { ($0.key, $0.revenue) }, days: range.days, partial: partial)
        let content: Markup
        if counts.isEmpty && money.allSatisfy(\.isEmpty) {
            content = ConsoleLayout.empty(apps.isEmpty
                ? "No apps yet. Register one on the Apps page (or with linkrunway app create), then create a link for it."
                : range.preset(today: choice.today).map { "Nothing in the last \($0) days yet." } ?? "Nothing from \(f.day(range.fromText, year: true)) to \(f.day(range.toText, year: true)).",
                "<p><a href=\"\(context.link("/console/links"))\">Create a link</a> and share it: its clicks, the installs they bring and the events after them show here.</p>")
        } else {
            content = counts.render(f) + Markup.join(money.filter { !$0.isEmpty }.map { $0.render(f) })
        }
        return .page(ConsolePage(title: "Overview", body: """
            \(filter)
            \(ConsoleRangeForm.hint(range, simulated: choice.simulated, f))\(consumer ? Markup("<p class=\"hint\">Installs from education or enterprise stores only are left out, with their events.</p>") : "")
            \(tiles)
            \(content)
            """))
    }
}
