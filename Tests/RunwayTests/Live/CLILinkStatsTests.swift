import Foundation
import LinkRunwayAPI
@testable import RunwayCLI
import Testing

/// `link stats` against a real server: the totals, a table per breakdown, JSON and CSV, and the server's refusals.
@Suite("CLI link stats")
struct CLILinkStatsTests {
    @Test("a link's figures as tables, JSON and CSV; a day that is not one is the server's refusal, a missing link id a usage error")
    func stats() async throws {
        let (runtime, _, environment) = try await CLITests.startServer()
        func run(_ arguments: [String]) async -> CLITests.Run { await CLITests.run(arguments, environment: environment) }
        let made = await run(["link", "create", "--path", "counted", "--web", "https://example.com/counted", "--json"])
        #expect(made.status == 0, "\(made.errors)")
        let link = try JSONDecoder().decode(Link.self, from: Data(made.output.utf8))
        #expect(await run(["simulate", "click", link.url, "--ip", "192.0.2.10"]).status == 0)
        #expect(await run(["simulate", "click", link.url, "--ip", "192.0.2.11", "--ua", "Mozilla/5.0 (Linux; Android 14; Pixel 8)"]).status == 0)
        let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))

        let text = await run(["link", "stats", link.id, "--by", "day,platform,country"])
        #expect(text.status == 0, "\(text.errors)")
        #expect(text.output.contains("(UTC): clicks 2, opens 0, installs 0, events 0, revenue -; previews 0, bots 0"), "\(text.output)")
        #expect(text.output.contains("DAY ") && text.output.contains("\(today)  2 "), "\(text.output)")
        let platform = text.output.components(separatedBy: "\n\n").first { $0.hasPrefix("PLATFORM") } ?? ""
        let platformRows: [String] = platform.split(separator: "\n").map { (line: Substring) -> String in line.split(separator: " ").prefix(2).joined(separator: " ") }
        #expect(platformRows == ["PLATFORM CLICKS", "android 1", "ios 1"], "\(platform)")
        #expect(text.output.contains("COUNTRY  CLICKS  OPENS\n(none)   2       0"), "countries without installs: \(text.output)")

        let json = await run(["link", "stats", link.id, "--json", "--by", "qr"])
        let stats = try JSONDecoder().decode(LinkStats.self, from: Data(json.output.utf8))
        #expect(stats.total.clicks == 2 && stats.days == nil && stats.breakdowns.map(\.dimension) == ["qr"])
        let csv = await run(["link", "stats", link.id, "--csv", "--from", today, "--to", today, "--by", "platform"])
        #expect(csv.output.hasPrefix("dimension,key,clicks,opens,installs,previews,bots\r\ntotal,total,2,0,0,0,0\r\nplatform,android,1,0,0,,\r\n"),
                "\(csv.output)")

        let refused = await run(["link", "stats", link.id, "--from", "\(today)T00:00:00Z"])
        #expect(refused.status == 1 && refused.errors.contains("from must be a UTC day"), "\(refused.errors)")
        #expect(await run(["link", "stats"]).status == 64)
        await runtime.stop()
    }
}
