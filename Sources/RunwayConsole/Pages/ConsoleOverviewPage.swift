import Foundation
import LinkRunwayAPI
import RunwayKit

/// Clicks → installs → events → revenue, per UTC day, over a chosen range (the last 30 days unless the GET form or a
/// preset link says otherwise): the figures as tiles, a chart of the counts and one of revenue per currency.
enum OverviewPage {
    static func show(_ context: ConsoleContext) async throws -> ConsoleResult {
        let request = context.request
        let apps = try await context.apps()
        let app = request.queryValue("app").flatMap { $0.isEmpty ? nil : $0 }
        let simulated = request.queryValue("simulated") == "on"
        let now = context.services.clock.nowMilliseconds()
        let today = ConsoleDateRange.today(now)
        let (chosen, problems) = ConsoleDateRange.read(from: request.queryValue("from"), to: request.queryValue("to"), today: today)
        let typed = (from: chosen?.fromText ?? request.queryValue("from"), to: chosen?.toText ?? request.queryValue("to"))
        let filter = form(context, apps: apps, app: app, simulated: simulated, typed: typed, problems: problems, chosen: chosen, today: today)
        guard let range = chosen else {
            return .page(ConsolePage(title: "Overview", body: filter, status: 400, problems: problems))
        }
        let report = try await ConsolePages.funnel(context, groupBy: "day", app: app, from: range.fromMilliseconds, to: range.toMilliseconds,
                                                   includeSimulated: simulated)
        let f = context.format
        typealias Points = [(day: String, value: Int64)]
        let clicks: Points = report.rows.map { ($0.key, Int64($0.clicks)) }
        let installs: Points = report.rows.map { ($0.key, Int64($0.installs)) }
        let events: Points = report.rows.map { ($0.key, Int64($0.events.values.reduce(0, +))) }
        var revenue: [String: Int64] = [:]
        for row in report.rows { for (currency, amount) in row.revenue { revenue[currency, default: 0] += amount } }
        let tiles: Markup = """
            <div class="tiles">
            <div class="tile"><div class="value">\(f.number(clicks.reduce(0) { $0 + $1.value }))</div><div class="label">clicks</div></div>
            <div class="tile"><div class="value">\(f.number(installs.reduce(0) { $0 + $1.value }))</div><div class="label">installs</div></div>
            <div class="tile"><div class="value">\(f.number(events.reduce(0) { $0 + $1.value }))</div><div class="label">events</div></div>
            <div class="tile"><div class="value">\(ConsolePages.revenue(revenue, f))</div><div class="label">revenue</div></div>
            </div>
            """
        let partial = range.last == today ? [range.toText: "today, so far"] : [:]
        let counts = ConsoleChart(title: "Clicks, installs and events per day", days: range.days, series: [
            .init(name: "Clicks", style: "clicks", points: clicks), .init(name: "Installs", style: "installs", points: installs),
            .init(name: "Events", style: "events", points: events),
        ], partial: partial)
        let money = revenue.keys.sorted().map { currency in
            ConsoleChart(title: "Revenue in \(currency) per day", days: range.days,
                         series: [.init(name: "Revenue (\(currency))", style: "revenue", points: report.rows.compactMap { row in
                             row.revenue[currency].map { (row.key, $0) }
                         })], unit: .money(currency: currency), partial: partial)
        }
        let content: Markup
        if counts.isEmpty && money.allSatisfy(\.isEmpty) {
            content = ConsoleLayout.empty(apps.isEmpty
                ? "No apps yet. Register one on the Apps page (or with linkrunway app create), then create a link for it."
                : range.preset(today: today).map { "Nothing in the last \($0) days yet." } ?? "Nothing from \(f.day(range.fromText, year: true)) to \(f.day(range.toText, year: true)).",
                "<p><a href=\"\(context.link("/console/links"))\">Create a link</a> and share it: its clicks, the installs they bring and the events after them show here.</p>")
        } else {
            content = counts.render(f) + Markup.join(money.filter { !$0.isEmpty }.map { $0.render(f) })
        }
        return .page(ConsolePage(title: "Overview", body: """
            \(filter)
            <p class="hint">\(f.day(range.fromText, year: true)) to \(f.day(range.toText, year: true)) (\(range.count) \(range.count == 1 ? "day" : "days")), \
            by UTC day\(simulated ? ", simulated installs included" : "; simulated installs left out").</p>
            \(tiles)
            \(content)
            """))
    }

    /// The GET form: app, simulated installs, from and to; and links to the presets, which keep the other choices.
    static func form(_ context: ConsoleContext, apps: [App], app: String?, simulated: Bool, typed: (from: String?, to: String?),
                     problems: [FormProblem], chosen: ConsoleDateRange?, today: Int64) -> Markup {
        func problem(_ field: String) -> String? { problems.first { $0.fieldId == field }?.message }
        let current = chosen?.preset(today: today)
        let presets = Markup.join(ConsoleDateRange.presets.map { days in
            let range = ConsoleDateRange.last(days, today: today)
            let href = context.link("/console", [("app", app), ("simulated", simulated ? "on" : nil), ("from", range.fromText), ("to", range.toText)])
            return "<a href=\"\(href)\"\(current == days ? Markup(" aria-current=\"true\"") : "")>\(days) days</a>"
        }, separator: " ")
        return """
            \(ConsolePages.appFilter(context, apps: apps, selected: app, extra: """
                 <label class="check"><input type="checkbox" name="simulated"\(simulated ? Markup(" checked") : "")> include simulated installs</label>
                 \(ConsoleForms.input("from", "From", value: typed.from, problem: problem("from"), type: "date"))
                 \(ConsoleForms.input("to", "To", value: typed.to, problem: problem("to"), type: "date"))
                """))
            <p class="presets">The last \(presets)</p>
            """
    }
}
