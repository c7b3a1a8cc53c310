import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayGeo
import RunwayHTTP
@testable import RunwayKit
@testable import RunwayServer
import RunwayTestKit
import Testing

@Suite("Funnel reports")
struct ReportTests {
    @Test("clicks, installs, opens, events and net revenue, by day, link, campaign, channel or source, as JSON or CSV", arguments: StoreBackend.all)
    func funnel(_ backend: StoreBackend) async throws {
        let w = try await MatchingTests.world(backend, settings: AttributionSettingsUpdate(probabilisticMinutes: 30))
        let ws = w.server.defaultWorkspace.id
        let client = w.server.client(w.key)
        let server = w.server.client(try await w.server.createKey(.server, workspace: ws).secret)
        _ = try await w.server.createLink(#"{"workspaceId":"\#(ws)","path":"other","campaign":"fall","channel":"email"}"#)
        for _ in 0..<3 { _ = await w.server.follow("/promo", userAgent: UserAgents.iPhone) }
        _ = await w.server.follow("/other", userAgent: UserAgents.desktop)
        _ = try await MatchingTests.match(w, install: "r1")
        _ = try await MatchingTests.match(w, install: "r2", address: "192.0.2.1")
        _ = try await client.post("/v1/resolve", json: #"{"url":"https://localhost/promo","platform":"ios","installId":"r1"}"#).decoded(ResolvedLink.self)
        let app = w.app.id
        _ = try await server.post("/v1/events", EventTests.event("p1", type: "PURCHASE", install: "r1", amount: 1000, currency: "EUR", app: app)).decoded(EventResult.self, status: 201)
        _ = try await server.post("/v1/events", EventTests.event("p2", type: "REFUND", install: "r1", amount: 300, currency: "EUR", app: app)).decoded(EventResult.self, status: 201)
        _ = try await server.post("/v1/events", EventTests.event("p3", type: "PURCHASE", install: "r2", amount: 500, currency: "USD", app: app)).decoded(EventResult.self, status: 201)

        let byCampaign = try await server.get("/v1/reports/funnel?groupBy=campaign").decoded(FunnelReport.self)
        let spring = try #require(byCampaign.rows.first { $0.key == "spring" })
        #expect((spring.clicks, spring.installs, spring.opens) == (3, 1, 1))
        #expect(spring.events == ["PURCHASE": 1, "REFUND": 1])
        #expect(spring.revenue == ["EUR": 700])
        let fall = try #require(byCampaign.rows.first { $0.key == "fall" })
        #expect(fall.clicks == 1 && fall.installs == 0)
        let organic = try await server.get("/v1/reports/funnel?groupBy=source").decoded(FunnelReport.self)
        #expect(organic.rows.first { $0.key == "organic" }?.revenue == ["USD": 500])
        let byDay = try await server.get("/v1/reports/funnel").decoded(FunnelReport.self)
        let day = String(Timestamp.iso(w.server.services.clock.nowMilliseconds()).prefix(10))
        #expect(byDay.rows.map(\.key) == [day])
        #expect(byDay.rows[0].clicks == 4 && byDay.rows[0].installs == 2)
        // A range of bare days includes its last day.
        let today = try await server.get("/v1/reports/funnel?from=\(day)&to=\(day)").decoded(FunnelReport.self)
        #expect(today.rows.map(\.key) == [day] && today.rows[0].clicks == 4)
        #expect(await server.get("/v1/reports/funnel?from=30.11.2026").errorCode == "invalid_query")

        let csv = await server.get("/v1/reports/funnel?groupBy=campaign", headers: [("Accept", "text/csv")])
        #expect(csv.headers["Content-Type"]?.hasPrefix("text/csv") == true)
        let lines = csv.bodyText.split(separator: "\r\n")
        #expect(lines[0] == "campaign,clicks,installs,opens,events_PURCHASE,events_REFUND,revenue_EUR,revenue_USD,previews,bots")
        #expect(lines.contains("spring,3,1,1,1,1,700,0,0,0"))
        #expect(await server.get("/v1/reports/funnel?groupBy=weekday").errorCode == "invalid_query")
        #expect(await server.get("/v1/reports/funnel?from=2026-12-01T00:00:00Z&to=2026-11-01T00:00:00Z").errorField == "from")
        #expect(ReportQuery.escape("=SUM(A1)") == "'=SUM(A1)")
        #expect(ReportQuery.escape("a,b") == "\"a,b\"")
        await w.server.stop()
    }

    @Test("simulated installs and their events are left out unless includeSimulated=true", arguments: StoreBackend.all)
    func simulated(_ backend: StoreBackend) async throws {
        let (w, server) = try await InstallListTests.realAndSimulated(backend)
        for install in ["real", "pretend"] {
            _ = try await server.post("/v1/events", EventTests.event("e-\(install)", type: "PURCHASE", install: install, amount: 100, currency: "USD",
                                                                    app: w.app.id))
                .decoded(EventResult.self, status: 201)
        }
        let real = try await server.get("/v1/reports/funnel?groupBy=source").decoded(FunnelReport.self)
        #expect(real.rows.map(\.installs).reduce(0, +) == 1 && real.rows.map { $0.events["PURCHASE"] ?? 0 }.reduce(0, +) == 1)
        let all = try await server.get("/v1/reports/funnel?groupBy=source&includeSimulated=true").decoded(FunnelReport.self)
        #expect(all.rows.map(\.installs).reduce(0, +) == 2 && all.rows.map { $0.events["PURCHASE"] ?? 0 }.reduce(0, +) == 2)
        #expect(await server.get("/v1/reports/funnel?includeSimulated=yes").errorField == "includeSimulated")
        await w.server.stop()
    }

    @Test("the funnel groups clicks by the country of their address; installs, which keep none, stay under (none)", arguments: StoreBackend.all)
    func byCountry(_ backend: StoreBackend) async throws {
        let folder = TemporaryDirectory()
        let countries = try CountryDatabase(path: try CountryDatabaseTests.database(in: folder))
        let server = try await TestServer.start(backend, countries: countries)
        _ = try await server.createLink(#"{"workspaceId":"\#(server.defaultWorkspace.id)","path":"abroad","destinations":{"web":"https://example.com"}}"#)
        for address in ["203.0.113.7", "203.0.113.8", "198.51.100.1", "10.0.0.9"] {
            let answer = await server.client().send("GET", "/abroad", headers: [("Host", "localhost"), ("User-Agent", UserAgents.desktop)], remoteAddress: address)
            #expect(answer.status == 302)
        }
        let report = try await server.admin.get("/v1/reports/funnel?groupBy=country&workspaceId=\(server.defaultWorkspace.id)").decoded(FunnelReport.self)
        #expect(report.groupBy == "country")
        #expect(Dictionary(uniqueKeysWithValues: report.rows.map { ($0.key, $0.clicks) }) == ["FR": 2, "US": 1, "(none)": 1], "\(report.rows)")
        let csv = await server.admin.get("/v1/reports/funnel?groupBy=country&workspaceId=\(server.defaultWorkspace.id)", headers: [("Accept", "text/csv")]).bodyText
        #expect(csv.hasPrefix("country,clicks") && csv.contains("\nFR,2,"), "\(csv)")
        await server.stop()
    }
}
