import Foundation
import LinkRunwayAPI
@testable import RunwayConsole
@testable import RunwayKit
import RunwayTestKit
import Testing

/// The overview's date range: whole UTC days, chosen in a GET form or by a preset, applied to the tiles and the charts;
/// a range that is not one is refused beside its field.
@Suite("Console overview")
struct ConsoleOverviewTests {
    /// Dates as the console writes them for a browser that names no language.
    static let us = ConsoleFormat(request: ConsoleChartTests.Viewer(language: "en-US"))

    static func day(_ milliseconds: Int64) -> String { String(Timestamp.iso(milliseconds).prefix(10)) }

    /// The value of each tile, in order: clicks, installs, events, revenue.
    static func tiles(_ html: String) -> [String] {
        html.components(separatedBy: "<div class=\"value\">").dropFirst().map { String($0.prefix { $0 != "<" }) }
    }

    @Test("a range of whole days counts only its days: the click an hour before it and the revenue that day stay out, its first day is that day alone")
    func range() async throws {
        let w = try await MatchingTests.world(settings: AttributionSettingsUpdate(probabilisticMinutes: 30))
        let clock = w.clock, ws = w.server.defaultWorkspace.id
        let backend = w.server.client(try await w.server.createKey(.server, workspace: ws).secret)
        let app = w.app.id
        // Day A at 23:00 UTC: four clicks, an install and a purchase of 10 €.
        let start = clock.wall.nowMilliseconds()
        let tomorrow: Int64 = (start / 86_400_000 + 1) * 86_400_000
        let toElevenPM: Int64 = tomorrow - 3_600_000 - start
        clock.advance(seconds: Double(toElevenPM) / 1000)
        let dayA = Self.day(clock.wall.nowMilliseconds())
        for _ in 0..<4 { _ = await w.server.follow("/promo", userAgent: UserAgents.iPhone) }
        _ = try await MatchingTests.match(w, install: "r1")
        _ = try await backend.post("/v1/events", EventTests.event("p1", type: "PURCHASE", install: "r1", amount: 1000, currency: "EUR", app: app))
            .decoded(EventResult.self, status: 201)
        // Two hours later, day A+1: two clicks and a purchase of 5 €; five days on, today: one click.
        clock.advance(seconds: 7_200)
        let dayB = Self.day(clock.wall.nowMilliseconds())
        for _ in 0..<2 { _ = await w.server.follow("/promo", userAgent: UserAgents.iPhone) }
        _ = try await backend.post("/v1/events", EventTests.event("p2", type: "PURCHASE", install: "r1", amount: 500, currency: "EUR", app: app))
            .decoded(EventResult.self, status: 201)
        clock.advance(seconds: 5 * 86_400)
        let today = Self.day(clock.wall.nowMilliseconds())
        _ = await w.server.follow("/promo", userAgent: UserAgents.iPhone)

        let visitor = ConsoleTests.Visitor(w.server.application)
        _ = await visitor.signIn(key: w.server.adminKey)
        let chosen = await visitor.send("GET", "/console?ws=\(ws)&from=\(dayB)&to=\(today)")
        #expect(chosen.status == 200)
        let page = chosen.bodyText
        #expect(Self.tiles(page) == ["3", "0", "1", "€5.00"], "only the range's days: \(Self.tiles(page))")
        let line = try #require(ConsoleChartTests.lines(page, "clicks").first)
        #expect(line.first.map { $0 == (0, 0) } == true, "the first day is its own 2 clicks, the top of a 0–2 axis, not 6 with the day before: \(line)")
        #expect(ConsoleChartTests.texts(page, "li", inside: "<ul class=\"y-axis\" aria-hidden=\"true\">") == ["2", "1", "0"])
        #expect(!page.contains("Nothing before"), "the range starts with data")
        #expect(page.contains("(today, so far)") && page.contains("<polyline class=\"clicks partial\""), "today is not a whole day yet")
        #expect(page.contains("Revenue in EUR per day") && page.contains("<td class=\"num\">€5.00</td>") && !page.contains("€10.00"))
        #expect(page.contains("name=\"from\" type=\"date\" value=\"\(dayB)\"") && page.contains("name=\"to\" type=\"date\" value=\"\(today)\""))

        let standard = await visitor.send("GET", "/console?ws=\(ws)").bodyText
        #expect(Self.tiles(standard) == ["7", "1", "2", "€15.00"], "\(Self.tiles(standard))")
        #expect(standard.contains(">30 days</a>") && standard.contains("aria-current=\"true\">30 days</a>"), "the default is the 30-day preset")
        #expect(standard.contains("Nothing before \(Self.us.day(dayA, year: true)); the chart starts there."))
        let week = await visitor.send("GET", "/console?ws=\(ws)&from=\(Self.day(clock.wall.nowMilliseconds() - 6 * 86_400_000))&to=\(today)").bodyText
        #expect(week.contains("aria-current=\"true\">7 days</a>") && Self.tiles(week)[0] == "7")
        let single = await visitor.send("GET", "/console?ws=\(ws)&from=\(today)&to=\(today)").bodyText
        #expect(Self.tiles(single)[0] == "1" && single.contains("class=\"clicks dot\"") && single.contains("(1 day)"))
        let quiet = await visitor.send("GET", "/console?ws=\(ws)&from=2020-01-01&to=2020-01-31").bodyText
        #expect(quiet.contains("Nothing from \(Self.us.day("2020-01-01", year: true)) to \(Self.us.day("2020-01-31", year: true)).") && !quiet.contains("<svg"))
        await w.server.stop()
    }

    @Test("a date that is not one, a start after the end and a range over 366 days are refused beside their fields, with nothing counted")
    func refused() async throws {
        let (server, visitor, _, ws) = try await ConsoleTests.signedIn()
        let bad = await visitor.send("GET", "/console?ws=\(ws)&from=01.03.2026&to=2026-02-30")
        #expect(bad.status == 400 && bad.bodyText.contains("<title>Error: Overview · LinkRunway</title>"))
        #expect(bad.bodyText.contains("<li><a href=\"#from\">The start date must be a date written as 2026-03-01</a></li>"))
        #expect(bad.bodyText.contains("<li><a href=\"#to\">The end date must be a date written as 2026-03-01</a></li>"))
        #expect(bad.bodyText.contains("id=\"from\" name=\"from\" type=\"date\" value=\"01.03.2026\" aria-invalid=\"true\""))
        #expect(!bad.bodyText.contains("class=\"tiles\""), "no figures for a range that is not one")
        let backwards = await visitor.send("GET", "/console?ws=\(ws)&from=2026-03-10&to=2026-03-01")
        #expect(backwards.status == 400 && backwards.bodyText.contains("The start date must be on or before the end date"))
        let long = await visitor.send("GET", "/console?ws=\(ws)&from=2020-01-01&to=2021-06-01")
        #expect(long.status == 400 && long.bodyText.contains("A range is at most 366 days"))
        await server.stop()
    }
}
