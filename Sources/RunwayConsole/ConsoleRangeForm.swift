import Foundation
import RunwayHTTP
import RunwayKit

/// The date range of a page's GET form, as the overview and a link's page show it: From and To (whole UTC days), a
/// box for simulated installs, links to the presets (the last 7, 30 or 90 days) that keep the page's other choices,
/// and the figures' tiles.
enum ConsoleRangeForm {
    /// What the request asks for, read once: the range (nil when refused), its problems, what the fields show again.
    struct Choice {
        let range: ConsoleDateRange?
        let problems: [FormProblem]
        let typed: (from: String?, to: String?)
        let simulated: Bool
        let today: Int64
    }

    static func read(_ context: ConsoleContext) -> Choice {
        let request = context.request
        let today = ConsoleDateRange.today(context.services.clock.nowMilliseconds())
        let (chosen, problems) = ConsoleDateRange.read(from: request.queryValue("from"), to: request.queryValue("to"), today: today)
        return Choice(range: chosen, problems: problems, typed: (chosen?.fromText ?? request.queryValue("from"), chosen?.toText ?? request.queryValue("to")),
                      simulated: request.queryValue("simulated") == "on", today: today)
    }

    /// The range asked for, as hidden fields, for another GET form of the same page to keep it.
    static func hidden(_ request: HTTPRequest) -> Markup {
        Markup.join(["from", "to", "simulated"].compactMap { name in
            request.queryValue(name).flatMap { $0.isEmpty ? nil : "<input type=\"hidden\" name=\"\(name)\" value=\"\($0)\">" }
        })
    }

    /// The box for simulated installs and the From and To fields, each refusal beside its field.
    static func fields(_ choice: Choice) -> Markup {
        func problem(_ field: String) -> String? { choice.problems.first { $0.fieldId == field }?.message }
        return """
             <label class="check"><input type="checkbox" name="simulated"\(choice.simulated ? Markup(" checked") : "")> include simulated installs</label>
             \(ConsoleForms.input("from", "From", value: choice.typed.from, problem: problem("from"), type: "date"))
             \(ConsoleForms.input("to", "To", value: choice.typed.to, problem: problem("to"), type: "date"))
            """
    }

    /// Links to the presets on `path`, keeping `keeping` and the box; the current one is marked. `fragment` names
    /// where the page should open (`#analytics`).
    static func presets(_ context: ConsoleContext, _ choice: Choice, path: String, keeping: [(String, String?)] = [], fragment: String = "") -> Markup {
        let current = choice.range?.preset(today: choice.today)
        let links = Markup.join(ConsoleDateRange.presets.map { days in
            let range = ConsoleDateRange.last(days, today: choice.today)
            let href = context.link(path, keeping + [("simulated", choice.simulated ? "on" : nil), ("from", range.fromText), ("to", range.toText)]) + fragment
            return "<a href=\"\(href)\"\(current == days ? Markup(" aria-current=\"true\"") : "")>\(days) days</a>"
        }, separator: " ")
        return "<p class=\"presets\">The last \(links)</p>"
    }

    /// The range in words, with how days and simulated installs are counted.
    static func hint(_ range: ConsoleDateRange, simulated: Bool, _ f: ConsoleFormat) -> Markup {
        """
        <p class="hint">\(f.day(range.fromText, year: true)) to \(f.day(range.toText, year: true)) (\(range.count) \(range.count == 1 ? "day" : "days")), \
        by UTC day\(simulated ? ", simulated installs included" : "; simulated installs left out").</p>
        """
    }

    /// Clicks, installs, events and revenue as tiles.
    static func tiles(clicks: Int64, installs: Int64, events: Int64, revenue: [String: Int64], _ f: ConsoleFormat) -> Markup {
        """
        <div class="tiles">
        <div class="tile"><div class="value">\(f.number(clicks))</div><div class="label">clicks</div></div>
        <div class="tile"><div class="value">\(f.number(installs))</div><div class="label">installs</div></div>
        <div class="tile"><div class="value">\(f.number(events))</div><div class="label">events</div></div>
        <div class="tile"><div class="value">\(ConsolePages.revenue(revenue, f))</div><div class="label">revenue</div></div>
        </div>
        """
    }
}
