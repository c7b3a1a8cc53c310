import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
import RunwayGeo
import RunwayHTTP
@testable import RunwayKit
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

/// A click's variant, country and QR source, from the redirect to the install it brings, its events and revenue, and
/// the funnel report grouped by each.
@Suite("Variants, scans and UTM in attribution")
struct VariantAttributionTests {
    @Test("the click records its variant, country and QR source; the install, its events and revenue carry the variant; the funnel groups by variant, qr and UTM",
          arguments: StoreBackend.all)
    func journey(_ backend: StoreBackend) async throws {
        let (server, app) = try await LinkRoutingTests.server(backend)
        defer { Task { await server.stop() } }
        let ws = server.defaultWorkspace.id
        _ = try await server.admin.patch("/v1/apps/\(app.id)", UpdateAppRequest(attribution: AttributionSettingsUpdate(probabilisticMinutes: 60))).decoded(App.self)
        let key = try await server.createKey(.publishable, app: app.id).secret
        let serverKey = try await server.createKey(.server, workspace: ws).secret
        // Two variants for iPhones; weights 1 and 0 make the first certain here (the draw itself is tested on its own).
        let spring = try await server.createLink(CreateLinkRequest(
            workspaceId: ws, path: "spring", destinations: LinkDestinations(web: "https://example.com/spring"), passQuery: true,
            rules: [LinkRule(when: LinkCondition(platforms: ["ios"]),
                             variants: [LinkVariant(name: "blue", weight: 1, url: "https://example.com/blue"), LinkVariant(name: "green", weight: 0)])],
            utm: LinkUTM(source: "newsletter", campaign: "spring")))
        let fall = try await server.createLink(CreateLinkRequest(
            workspaceId: ws, path: "fall", variants: [LinkVariant(name: "green", weight: 1, url: "https://example.com/green")], utm: LinkUTM(source: "ads")))
        // 203.0.113.7 is FR in the test database: a tap, then a scan of the QR code from another address (US).
        let tap = await server.follow("/spring?ref=x", userAgent: UserAgents.iPhone)
        #expect(tap.headers["Location"] == "https://example.com/blue?utm_source=newsletter&utm_campaign=spring&ref=x")
        let scan = await server.client().send("GET", "/fall?qr=1", headers: [("Host", "localhost"), ("User-Agent", UserAgents.iPhone)],
                                              remoteAddress: "198.51.100.9")
        #expect(scan.headers["Location"] == "https://example.com/green?utm_source=ads", "the QR marker is never passed on")
        let clicks = try await server.clicks()
        #expect(try clicks.map { try $0.optionalString("variant") } == ["blue", "green"])
        #expect(try clicks.map { try $0.optionalString("country") } == ["FR", "US"])
        #expect(try clicks.map { try $0.bool("qr") } == [false, true])
        #expect(try clicks.allSatisfy { row in try row.optionalString("address_hash").map { !$0.contains("203.0.113") } ?? true },
                "the address itself is never stored")

        // Each click brings an install from its address, which carries the variant into its events and revenue.
        for (install, address) in [("i-blue", "203.0.113.7"), ("i-green", "198.51.100.9")] {
            let match = try await server.client(key).send("POST", "/v1/installs/match",
                                                          body: try TestClient.encoded(MatchInstallRequest(installId: install, platform: "ios", consent: true)),
                                                          remoteAddress: address).decoded(InstallMatch.self)
            #expect(match.variant == (install == "i-blue" ? "blue" : "green"))
        }
        let events = server.client(serverKey)
        let purchase: (String, String, Int64) -> EventRequest = { id, install, amount in
            EventRequest(eventId: id, type: "PURCHASE", installId: install, timestamp: "2026-11-01T10:00:00Z", amount: amount, currency: "EUR", appId: app.id)
        }
        let stored = try await events.post("/v1/events", purchase("p1", "i-blue", 500)).decoded(EventResult.self, status: 201)
        #expect(stored.attribution?.variant == "blue" && stored.attribution?.qr == nil)
        _ = try await events.post("/v1/events", purchase("p2", "i-green", 2000)).decoded(EventResult.self, status: 201)
        let scanned = try await events.post("/v1/events", purchase("p3", "i-green", 700)).decoded(EventResult.self, status: 201)
        #expect(scanned.attribution?.variant == "green" && scanned.attribution?.qr == true)

        // Which variant earned more, not only which got more clicks.
        let byVariant = try await events.get("/v1/reports/funnel?groupBy=variant").decoded(FunnelReport.self)
        let blue = try #require(byVariant.rows.first { $0.key == "blue" })
        let green = try #require(byVariant.rows.first { $0.key == "green" })
        #expect((blue.clicks, blue.installs, blue.revenue) == (1, 1, ["EUR": 500]))
        #expect((green.clicks, green.installs, green.revenue) == (1, 1, ["EUR": 2700]))
        let byScan = try await events.get("/v1/reports/funnel?groupBy=qr").decoded(FunnelReport.self)
        #expect(byScan.rows.map(\.key) == ["scan", "tap"])
        #expect(byScan.rows.map(\.clicks) == [1, 1] && byScan.rows.map { $0.revenue["EUR"] ?? 0 } == [2700, 500])
        let bySource = try await events.get("/v1/reports/funnel?groupBy=utmSource").decoded(FunnelReport.self)
        #expect(bySource.rows.map(\.key) == ["ads", "newsletter"] && bySource.rows.map { $0.revenue["EUR"] ?? 0 } == [2700, 500])
        let byCampaign = try await events.get("/v1/reports/funnel?groupBy=utmCampaign").decoded(FunnelReport.self)
        #expect(byCampaign.rows.first { $0.key == "spring" }?.installs == 1 && byCampaign.rows.first { $0.key == "(none)" }?.installs == 1)
        let csv = await events.get("/v1/reports/funnel?groupBy=variant", headers: [("Accept", "text/csv")]).bodyText
        #expect(csv.contains("\r\ngreen,1,1,0,2,2700,0,0\r\n"), "variant,clicks,installs,opens,events_PURCHASE,revenue_EUR,previews,bots: \(csv)")

        // The export of an installation says what its click held.
        let export = try await server.admin.get("/v1/installs/i-green/export?appId=\(app.id)").decoded(InstallExport.self)
        #expect(export.visits.first?.variant == "green" && export.visits.first?.country == "US" && export.visits.first?.qr == true)
        _ = (spring, fall)
    }

    @Test("a link's QR code is its URL with the QR marker, so a scan is told apart from a tap")
    func qrMarker() async throws {
        let (server, _) = try await LinkRoutingTests.server()
        let link = try await server.createLink(CreateLinkRequest(workspaceId: server.defaultWorkspace.id, path: "poster",
                                                                                destinations: LinkDestinations(web: "https://example.com/p")))
        let svg = await server.admin.get("/v1/links/\(link.id)/qr.svg")
        #expect(svg.status == 200)
        let folder = TemporaryDirectory(), file = folder.path("poster.png")
        try Data(await server.admin.get("/v1/links/\(link.id)/qr.png").body).write(to: URL(fileURLWithPath: file))
        #expect(try await QRDecodeTests.decode(file) == "http://localhost/poster?qr=1")
        await server.stop()
    }

    /// Links stored before step 0030: `path` and the metadata the customer wrote.
    static let metadataBefore0030: [(String, String?)] = [
        ("a", #"{"sku":42,"utm":{"campaign":"summer","source":"newsletter"}}"#),
        ("b", #"{"utm":{"medium":"email"}}"#),
        ("c", #"{"utm":{"source":7,"term":"shoes"}}"#),
        ("d", #"{"other":true}"#),
        ("e", nil),
    ]

    static func insertLink(_ db: any SQLExecutor, workspace: String, path: String, metadata: String?, updatedAt: Int64 = 0) throws {
        try db.execute("""
            INSERT INTO links (id, workspace_id, kind, domain, path, path_key, metadata, interstitial, pass_query, enabled, created_at, updated_at)
            VALUES (\("lnk_utm" + path + "aaaaaaaa"), \(workspace), 'link', 'localhost', \(path), \(path), \(metadata), 0, 0, 1, 0, \(updatedAt))
            """)
    }

    static func decoded(_ text: String?) -> [String: JSONLiteral]? {
        text.flatMap { try? JSONDecoder().decode([String: JSONLiteral].self, from: Data($0.utf8)) }
    }

    @Test("step 0030 leaves the customer's metadata.utm as it was and sets no UTM field", arguments: StoreBackend.all)
    func utmKept(_ backend: StoreBackend) async throws {
        let location = try await backend.makeLocation()
        let store = try backend.open(location.url, nil)
        defer { Task { await store.close() } }
        _ = try await store.migrate(Schema.migrations.filter { $0.id < "0030" })
        guard let bootstrap = try await Bootstrap.run(store: store, clock: .system) else { throw UnexpectedResponse(description: "no bootstrap") }
        try await store.write { db in
            for (path, metadata) in Self.metadataBefore0030 { try Self.insertLink(db, workspace: bootstrap.workspace.id, path: path, metadata: metadata) }
        }
        _ = try await store.migrate(Schema.migrations)
        let links = try await store.read { db in try db.query("SELECT \(raw: LinkRecord.columns) FROM links ORDER BY path", as: LinkRecord.self) }
        #expect(links.map(\.utm) == Array(repeating: LinkUTM(), count: 5), "no UTM field comes from the metadata")
        #expect(links.map(\.metadata) == Self.metadataBefore0030.map(\.1), "the metadata is the text the customer stored")
    }

    @Test("step 0047 puts back in metadata.utm what 0.2.0's step 0030 moved, on links unchanged since", arguments: StoreBackend.all)
    func utmRestored(_ backend: StoreBackend) async throws {
        let location = try await backend.makeLocation()
        let store = try backend.open(location.url, nil)
        defer { Task { await store.close() } }
        _ = try await store.migrate(Schema.migrations.filter { $0.id < "0047" })
        guard let bootstrap = try await Bootstrap.run(store: store, clock: .system) else { throw UnexpectedResponse(description: "no bootstrap") }
        let ws = bootstrap.workspace.id
        // What 0.2.0's step 0030 left of metadataBefore0030, at 0030's time of 1,000; "f" was given a UTM field since.
        try await store.write { db in
            try db.execute("UPDATE schema_migrations SET applied_at = 1000 WHERE id = '0030_link_routing'")
            try Self.insertLink(db, workspace: ws, path: "a", metadata: #"{"sku":42}"#)
            try Self.insertLink(db, workspace: ws, path: "b", metadata: nil)
            try Self.insertLink(db, workspace: ws, path: "c", metadata: #"{"utm":{"source":7}}"#)
            try Self.insertLink(db, workspace: ws, path: "d", metadata: #"{"other":true}"#)
            try Self.insertLink(db, workspace: ws, path: "e", metadata: nil)
            try Self.insertLink(db, workspace: ws, path: "f", metadata: #"{"kept":1}"#, updatedAt: 2000)
            try db.execute("UPDATE links SET utm_source = 'newsletter', utm_campaign = 'summer' WHERE path = 'a'")
            try db.execute("UPDATE links SET utm_medium = 'email' WHERE path = 'b'")
            try db.execute("UPDATE links SET utm_term = 'shoes' WHERE path = 'c'")
            try db.execute("UPDATE links SET utm_source = 'partner' WHERE path = 'f'")
        }
        _ = try await store.migrate(Schema.migrations)
        let links = try await store.read { db in try db.query("SELECT \(raw: LinkRecord.columns) FROM links ORDER BY path", as: LinkRecord.self) }
        #expect(links.prefix(5).map(\.utm) == Array(repeating: LinkUTM(), count: 5), "the moved values left the UTM fields")
        #expect(links.prefix(5).map { Self.decoded($0.metadata) } == Self.metadataBefore0030.map { Self.decoded($0.1) },
                "each link's metadata is the JSON the customer wrote")
        #expect(links[5].utm == LinkUTM(source: "partner") && links[5].metadata == #"{"kept":1}"#, "a link changed since 0030 is left alone")
    }

}
