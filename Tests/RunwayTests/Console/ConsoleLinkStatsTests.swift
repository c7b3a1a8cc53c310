import Foundation
import LinkRunwayAPI
@testable import RunwayConsole
@testable import RunwayKit
import Testing

/// A link's page shows its figures from the daily rollups: the overview's range form and presets, tiles, charts of
/// counts and revenue, and a table per breakdown, with the whole as CSV; without script.
@Suite("Console link analytics")
struct ConsoleLinkStatsTests {
    /// Every caption of a table on the page, in order.
    static func captions(_ html: String) -> [String] {
        html.components(separatedBy: "<caption>").dropFirst().map { String($0.prefix { $0 != "<" }) }
    }

    @Test("the link's page: tiles, the charts, and a table per breakdown over the range asked for; simulated installs only when ticked")
    func page() async throws {
        let w = try await LinkStatsTests.world(.sqlite)
        defer { Task { await w.server.stop() } }
        try await LinkStatsTests.traffic(w)
        let ws = w.server.defaultWorkspace.id
        let visitor = ConsoleTests.Visitor(w.server.application)
        _ = await visitor.signIn(key: w.server.adminKey)
        let response = await visitor.send("GET", "/console/links/\(w.link.id)?ws=\(ws)&from=2026-11-18&to=2026-11-19")
        #expect(response.status == 200)
        let page = response.bodyText
        #expect(ConsoleOverviewTests.tiles(page) == ["4", "1", "2", "€3.00"], "\(ConsoleOverviewTests.tiles(page))")
        #expect(page.contains("Opened in the app: 1. Previews: 1; bots: 1 (never counted as clicks)."))
        #expect(page.contains("Clicks, installs and events of this link per day") && page.contains("Revenue in EUR of this link per day"))
        #expect(page.contains("(today, so far)") && page.contains("the link was made that day"), "neither end is a whole day")
        let range = "\(ConsoleOverviewTests.us.day("2026-11-18", year: true)) to \(ConsoleOverviewTests.us.day("2026-11-19", year: true))"
        #expect(Self.captions(page).filter { !$0.hasPrefix("Clicks, installs") && !$0.hasPrefix("Revenue") }
                == ["Platform", "OS version", "Country", "Referrer", "In-app browser", "Variant", "Scan or tap"].map { "\($0), \(range)" })
        #expect(page.contains("<th scope=\"col\">country</th><th scope=\"col\" class=\"num\">clicks</th><th scope=\"col\" class=\"num\">opens</th></tr>"),
                "the country table counts clicks and opens only")
        #expect(page.contains("<td>ios 17</td><td class=\"num\">2</td><td class=\"num\">0</td><td class=\"num\">1</td><td class=\"num\">2</td><td class=\"num\">€3.00</td>"))
        #expect(page.contains("<span class=\"muted\">none (typed, scanned, or from an app)</span>"))
        #expect(page.contains("aria-current=\"true\"") == false, "two days are no preset")
        #expect(page.contains("action=\"/console/links/\(w.link.id)\" class=\"inline filter\"") && page.contains("#analytics\">7 days</a>"))

        let simulated = await visitor.send("GET", "/console/links/\(w.link.id)?ws=\(ws)&from=2026-11-18&to=2026-11-19&simulated=on").bodyText
        #expect(ConsoleOverviewTests.tiles(simulated) == ["4", "2", "3", "€13.00"] && simulated.contains("simulated installs included"))

        let href = try #require(page.components(separatedBy: "\" download>Download these figures as CSV").first?.components(separatedBy: "href=\"").last)
        #expect(href.hasPrefix("/console/links/\(w.link.id)/stats.csv?") && href.contains("from=2026%2D11%2D18&amp;to=2026%2D11%2D19"))
        let csv = await visitor.send("GET", href.replacingOccurrences(of: "&amp;", with: "&"))
        #expect(csv.status == 200 && csv.headers["Content-Type"]?.hasPrefix("text/csv") == true)
        #expect(csv.bodyText.hasPrefix("dimension,key,clicks,opens,installs,previews,bots,events_PURCHASE,events_REFUND,revenue_EUR\r\ntotal,total,4,1,1,1,1,1,1,300\r\n"))

        let quiet = await visitor.send("GET", "/console/links/\(w.link.id)?ws=\(ws)&from=2026-01-01&to=2026-01-31").bodyText
        #expect(quiet.contains("Nothing in this range yet") && !quiet.contains("<svg viewBox"))
    }

    @Test("a range that is not one is refused beside its field, and the rest of the link's page still works")
    func refused() async throws {
        let w = try await LinkStatsTests.world(.sqlite)
        defer { Task { await w.server.stop() } }
        let visitor = ConsoleTests.Visitor(w.server.application)
        _ = await visitor.signIn(key: w.server.adminKey)
        let bad = await visitor.send("GET", "/console/links/\(w.link.id)?ws=\(w.server.defaultWorkspace.id)&from=2026-11-19&to=2026-11-01")
        #expect(bad.status == 400)
        #expect(bad.bodyText.contains("<li><a href=\"#from\">The start date must be on or before the end date, and not after today (UTC)</a></li>"))
        #expect(bad.bodyText.contains("id=\"from\" name=\"from\" type=\"date\" value=\"2026-11-19\" aria-invalid=\"true\""))
        #expect(!bad.bodyText.contains("class=\"tiles\"") && bad.bodyText.contains("<h2>Edit</h2>"))
    }
}
