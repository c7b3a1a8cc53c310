import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
import RunwayHTTP
@testable import RunwayKit
@testable import RunwayServer
import RunwayTestKit
import Testing

@Suite("Previews and bots")
struct AutomatedVisitTests {
    @Test("every listed preview and bot is caught by its own example", arguments: AutomatedClients.builtIn.map { ($0.pattern.token, $0.example) })
    func listedEntry(_ token: String, _ example: String) {
        #expect(ClientClass(userAgent: example) == .crawler(token))
    }

    @Test("operators' patterns: one a line, preview or bot, comments and blank lines skipped; anything else refused")
    func operatorFile() {
        let parsed = AutomatedClientPattern.parse("# ours\n\nbot Acme-Monitor/2\npreview  Our Chat Unfurler \n")
        #expect(parsed == [AutomatedClientPattern(token: "acme-monitor/2", kind: .bot), AutomatedClientPattern(token: "our chat unfurler", kind: .preview)])
        #expect(AutomatedClientPattern.parse("crawler x") == nil)
        #expect(AutomatedClientPattern.parse("bot") == nil)
        #expect(AutomatedClientPattern.parse("bot   ") == nil)
    }

    @Test("the setting reads the file once at start and refuses one it cannot use")
    func setting() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lr-automated-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = folder.appendingPathComponent("good.txt").path
        let bad = folder.appendingPathComponent("bad.txt").path
        try "bot acme-monitor\n".write(toFile: good, atomically: true, encoding: .utf8)
        try "robot acme-monitor\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let configuration = try ServerConfiguration.load(environment: ["LINKRUNWAY_AUTOMATED_CLIENTS_FILE": good], flags: [:])
        #expect(configuration.capabilities[LinksSettings.self].extraAutomatedClients == [AutomatedClientPattern(token: "acme-monitor", kind: .bot)])
        #expect(throws: (any Error).self) { try ServerConfiguration.load(environment: ["LINKRUNWAY_AUTOMATED_CLIENTS_FILE": bad], flags: [:]) }
    }

    @Test("previews, bots, HEAD and prefetches are answered but counted apart, never as clicks, and never match an install",
          arguments: StoreBackend.all)
    func countedApart(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend, extraAutomatedClients: [AutomatedClientPattern(token: "Acme-Monitor", kind: .bot)])
        let ws = server.defaultWorkspace.id
        let app = try await server.createApp(in: ws)
        _ = try await server.admin.patch("/v1/apps/\(app.id)", UpdateAppRequest(attribution: AttributionSettingsUpdate(probabilisticMinutes: 30))).decoded(App.self)
        let key = try await server.createKey(.publishable, app: app.id).secret
        let link = try await server.createLink(CreateLinkRequest(workspaceId: ws, appId: app.id, path: "spring", destinations: LinkDestinations(web: "https://example.com/s"),
                                                                 campaign: "spring"))

        let slack = await server.follow("/spring", userAgent: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)")
        #expect(slack.status == 200 && slack.bodyText.contains("og:url"), "an unfurler gets the preview")
        let google = await server.follow("/spring", userAgent: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")
        #expect(google.status == 200 && google.bodyText.contains("og:url"), "a search crawler gets the preview")
        let monitor = await server.follow("/spring", userAgent: "acme-monitor/3.1")
        #expect(monitor.status == 200, "an operator's pattern is a bot like the built-in ones")
        let head = await server.follow("/spring", userAgent: UserAgents.iPhone, method: "HEAD")
        #expect(head.status == 302 && head.headers["Location"] != nil)
        let prefetch = await server.follow("/spring", userAgent: UserAgents.iPhone, headers: [("Sec-Purpose", "prefetch;prerender")])
        #expect(prefetch.status == 302 && prefetch.headers["Location"] != nil)
        let purpose = await server.follow("/spring", userAgent: UserAgents.desktop, headers: [("Purpose", "prefetch")])
        #expect(purpose.status == 302)
        #expect(try await server.clicks().isEmpty, "none of them is a click")

        // None of them takes part in matching: an install from the same address right after is organic.
        let organic = MatchInstallRequest(installId: "i1", platform: "ios", osVersion: "17.4", language: "en-GB", consent: true)
        let match = try await server.client(key).send("POST", "/v1/installs/match", body: try TestClient.encoded(organic), remoteAddress: "203.0.113.7")
            .decoded(InstallMatch.self)
        #expect(!match.matched)

        // A person's tap is the one click; it is written after the counts above were queued, so they are in once it is.
        #expect(await server.follow("/spring", userAgent: UserAgents.iPhone).status == 302)
        let report = try await Self.report(server, groupBy: "link", expecting: link.id, previews: 3, bots: 3)
        #expect((report.clicks, report.previews, report.bots) == (1, 3, 3))
        let rows = try await server.store.read { db in try db.query("SELECT kind, agent, visits FROM link_automated_visits ORDER BY kind, agent") }
        #expect(try rows.map { "\(try $0.string("kind")) \(try $0.string("agent")) \(try $0.int("visits"))" }
                == ["bot HEAD 1", "bot acme-monitor 1", "bot googlebot 1", "preview prefetch 2", "preview slackbot 1"])
        for grouping in FunnelReport.groupings {
            let all = try await server.admin.get("/v1/reports/funnel?workspaceId=\(ws)&groupBy=\(grouping)").decoded(FunnelReport.self)
            #expect(all.rows.reduce(0) { $0 + $1.bots } == 3 && all.rows.reduce(0) { $0 + $1.previews } == 3, "grouped by \(grouping)")
        }
        let csv = await server.admin.get("/v1/reports/funnel?workspaceId=\(ws)&groupBy=campaign", headers: [("Accept", "text/csv")])
        #expect(csv.bodyText.split(separator: "\r\n").contains("spring,1,0,0,3,3"))
        await server.stop()
    }

    /// The link's row once the background counts are in (they are written after the answer).
    static func report(_ server: TestServer, groupBy: String, expecting linkId: String, previews: Int, bots: Int) async throws -> FunnelRow {
        for _ in 0..<50 {
            let report = try await server.admin.get("/v1/reports/funnel?workspaceId=\(server.defaultWorkspace.id)&groupBy=\(groupBy)").decoded(FunnelReport.self)
            if let row = report.rows.first(where: { $0.key == linkId }), row.previews == previews, row.bots == bots { return row }
            try await Task.sleep(for: .milliseconds(40))
        }
        return try #require(try await server.admin.get("/v1/reports/funnel?workspaceId=\(server.defaultWorkspace.id)&groupBy=\(groupBy)")
            .decoded(FunnelReport.self).rows.first { $0.key == linkId })
    }
}
