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

/// A link's daily figures: kept up by the writer with every click, open, install, event and refund, read through
/// `GET /v1/links/{id}/stats` as JSON and CSV, the same as a recount of the raw rows, and without a forgotten install.
@Suite("Link analytics")
struct LinkStatsTests {
    struct World {
        let server: TestServer
        let clock: ManualClock
        let app: App
        let key: String
        let serverKey: String
        let link: Link
    }

    /// A server with a country database (203.0.113.0/24 is FR, 198.51.100.0/25 US), an app matching by address for an
    /// hour, and a link whose only variant anyone gets is `blue`. The clock starts on 2026-11-18.
    static func world(_ backend: StoreBackend) async throws -> World {
        let clock = ManualClock()
        let folder = TemporaryDirectory()
        let countries = try CountryDatabase(path: try CountryDatabaseTests.database(in: folder))
        let server = try await TestServer.start(backend, clock: clock.wall, countries: countries)
        let ws = server.defaultWorkspace.id
        var app = try await server.createApp(in: ws)
        app = try await server.admin.patch("/v1/apps/\(app.id)", UpdateAppRequest(attribution: AttributionSettingsUpdate(probabilisticMinutes: 60))).decoded(App.self)
        let key = try await server.createKey(.publishable, app: app.id).secret
        let serverKey = try await server.createKey(.server, workspace: ws).secret
        let link = try await server.createLink(CreateLinkRequest(
            workspaceId: ws, appId: app.id, path: "summer", destinations: LinkDestinations(web: "https://example.com/summer"),
            variants: [LinkVariant(name: "blue", weight: 1), LinkVariant(name: "green", weight: 0)]))
        return World(server: server, clock: clock, app: app, key: key, serverKey: serverKey, link: link)
    }

    static func visit(_ w: World, _ path: String = "/summer", userAgent: String, from address: String, referer: String? = nil,
                      method: String = "GET") async -> HTTPResponse {
        var headers = [("Host", "localhost"), ("User-Agent", userAgent)]
        if let referer { headers.append(("Referer", referer)) }
        return await w.server.client().send(method, path, headers: headers, remoteAddress: address)
    }

    static func purchase(_ w: World, _ id: String, install: String, type: String = "PURCHASE", amount: Int, currency: String = "EUR") async throws {
        let body = EventRequest(eventId: id, type: type, installId: install, timestamp: "2026-11-01T10:00:00Z", amount: Int64(amount), currency: currency, appId: w.app.id)
        _ = try await w.server.client(w.serverKey).post("/v1/events", body).decoded(EventResult.self, status: 201)
    }

    /// Two days of a link's life: four people from four places and platforms (one of them scanning the QR code), a
    /// preview and a bot, an install with a purchase, its refund and an open the next day, and a simulated install.
    static func traffic(_ w: World) async throws {
        #expect(await visit(w, userAgent: UserAgents.iPhone, from: "203.0.113.7", referer: "https://news.example.com/a?b=c").status == 302)
        #expect(await visit(w, "/summer?qr=1", userAgent: UserAgents.iPhone, from: "198.51.100.9").status == 302)
        #expect(await visit(w, userAgent: UserAgents.android, from: "10.1.2.3").status == 302)
        #expect(await visit(w, userAgent: UserAgents.desktop, from: "10.1.2.4", referer: "https://t.co/x").status == 302)
        #expect(await visit(w, userAgent: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", from: "10.1.2.5").status == 200)
        #expect(await visit(w, userAgent: UserAgents.desktop, from: "10.1.2.6", method: "HEAD").status == 302)
        let match = try await MatchingTests.match(MatchingTests.World(server: w.server, clock: w.clock, app: w.app, key: w.key, link: w.link),
                                                  install: "i-fr")
        #expect(match.method == "probabilistic" && match.variant == "blue")
        try await purchase(w, "p1", install: "i-fr", amount: 500)
        let simulated = try await w.server.admin.post("/v1/simulate/installs", SimulateInstallRequest(appId: w.app.id, installId: "i-sim", ip: "198.51.100.9"))
            .decoded(InstallMatch.self)
        #expect(simulated.linkId == w.link.id, "the simulated install takes the scan's click")
        try await purchase(w, "p2", install: "i-sim", amount: 1000)
        w.clock.advance(seconds: 86_400)
        try await purchase(w, "r1", install: "i-fr", type: "REFUND", amount: 200)
        _ = try await w.server.client(w.key).post("/v1/resolve", ResolveRequest(url: "https://localhost/summer", platform: "ios", installId: "i-fr"))
            .decoded(ResolvedLink.self)
    }

    static func stats(_ w: World, _ query: String = "") async throws -> LinkStats {
        try await w.server.client(w.serverKey).get("/v1/links/\(w.link.id)/stats?from=2026-11-18&to=2026-11-19\(query)").decoded(LinkStats.self)
    }

    @Test("a link's figures: the total and each day with previews and bots, broken down by platform, OS, country, referrer, variant and scan or tap",
          arguments: StoreBackend.all)
    func figures(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend)
        defer { Task { await w.server.stop() } }
        try await Self.traffic(w)
        let stats = try await Self.stats(w)
        #expect((stats.from, stats.to, stats.includeSimulated) == ("2026-11-18", "2026-11-19", false))
        #expect(stats.total == LinkStatsRow(key: "total", clicks: 4, opens: 1, installs: 1, events: ["PURCHASE": 1, "REFUND": 1],
                                            revenue: ["EUR": 300], previews: 1, bots: 1))
        #expect(stats.days == [
            LinkStatsRow(key: "2026-11-18", clicks: 4, installs: 1, events: ["PURCHASE": 1], revenue: ["EUR": 500], previews: 1, bots: 1),
            LinkStatsRow(key: "2026-11-19", opens: 1, installs: 0, events: ["REFUND": 1], revenue: ["EUR": -200], previews: 0, bots: 0),
        ])
        func rows(_ dimension: String) -> [LinkStatsRow] { stats.breakdowns.first { $0.dimension == dimension }?.rows ?? [] }
        #expect(stats.breakdowns.map(\.dimension) == LinkStats.dimensions)
        let earned = LinkStatsRow(key: "", clicks: 2, opens: 1, installs: 1, events: ["PURCHASE": 1, "REFUND": 1], revenue: ["EUR": 300])
        func row(_ key: String, clicks: Int, opens: Int = 0, earning: Bool = false) -> LinkStatsRow {
            earning ? LinkStatsRow(key: key, clicks: clicks, opens: opens, installs: 1, events: earned.events, revenue: earned.revenue)
                : LinkStatsRow(key: key, clicks: clicks, opens: opens, installs: 0, events: [:], revenue: [:])
        }
        #expect(rows("platform") == [row("ios", clicks: 2, opens: 1, earning: true), row("android", clicks: 1), row("desktop", clicks: 1)])
        #expect(rows("osVersion") == [row("ios 17", clicks: 2, earning: true), row("(none)", clicks: 1, opens: 1), row("android 14", clicks: 1)],
                "the install reported iOS 17.4; the open and the desktop had no version")
        #expect(rows("variant") == [LinkStatsRow(key: "blue", clicks: 4, installs: 1, events: earned.events, revenue: earned.revenue), row("(none)", clicks: 0, opens: 1)])
        #expect(rows("qr") == [LinkStatsRow(key: "tap", clicks: 3, opens: 1, installs: 1, events: earned.events, revenue: earned.revenue), row("scan", clicks: 1)])
        // An install keeps no country and no referrer: those rows count clicks and opens only.
        #expect(rows("country") == [LinkStatsRow(key: "(none)", clicks: 2, opens: 1), LinkStatsRow(key: "FR", clicks: 1), LinkStatsRow(key: "US", clicks: 1)])
        #expect(rows("referrer") == [LinkStatsRow(key: "(none)", clicks: 2, opens: 1), LinkStatsRow(key: "news.example.com", clicks: 1),
                                     LinkStatsRow(key: "t.co", clicks: 1)], "the Referer's host only, never its path or query")

        // Simulated installs and their events only when asked for.
        let simulated = try await Self.stats(w, "&includeSimulated=true&by=qr")
        #expect(simulated.total.installs == 2 && simulated.total.events == ["PURCHASE": 2, "REFUND": 1] && simulated.total.revenue == ["EUR": 1300])
        #expect(simulated.days == nil && simulated.breakdowns.map(\.dimension) == ["qr"])
        #expect(simulated.breakdowns[0].rows.first { $0.key == "scan" }?.installs == 1)

        // One day, one breakdown; a range without anything.
        let first = try await w.server.client(w.serverKey).get("/v1/links/\(w.link.id)/stats?from=2026-11-18&to=2026-11-18&by=day,country").decoded(LinkStats.self)
        #expect(first.total.clicks == 4 && first.total.opens == 0 && first.days?.count == 1 && first.breakdowns.map(\.dimension) == ["country"])
        let quiet = try await w.server.client(w.serverKey).get("/v1/links/\(w.link.id)/stats?from=2026-10-01&to=2026-10-31").decoded(LinkStats.self)
        #expect(quiet.total == LinkStatsRow(key: "total", installs: 0, events: [:], revenue: [:], previews: 0, bots: 0) && quiet.days == [])
        #expect(quiet.breakdowns.allSatisfy { $0.rows.isEmpty })
        // Without a range: the last 30 days up to today (the clock's 2026-11-19).
        let recent = try await w.server.client(w.serverKey).get("/v1/links/\(w.link.id)/stats").decoded(LinkStats.self)
        #expect((recent.from, recent.to, recent.total.clicks) == ("2026-10-21", "2026-11-19", 4))
    }

    @Test("the same figures as CSV: the total, the days, then each breakdown, with empty cells for what a row does not count")
    func csv() async throws {
        let w = try await Self.world(.sqlite)
        defer { Task { await w.server.stop() } }
        try await Self.traffic(w)
        let response = await w.server.client(w.serverKey).get("/v1/links/\(w.link.id)/stats?from=2026-11-18&to=2026-11-19&by=day,country,qr",
                                                              headers: [("Accept", "text/csv")])
        #expect(response.status == 200 && response.headers["Content-Type"]?.hasPrefix("text/csv") == true)
        #expect(response.headers["Content-Disposition"] == "attachment; filename=\"link-\(w.link.id)-stats.csv\"")
        #expect(response.bodyText.components(separatedBy: "\r\n") == [
            "dimension,key,clicks,opens,installs,previews,bots,events_PURCHASE,events_REFUND,revenue_EUR",
            "total,total,4,1,1,1,1,1,1,300",
            "day,2026-11-18,4,0,1,1,1,1,0,500",
            "day,2026-11-19,0,1,0,0,0,0,1,-200",
            "country,(none),2,1,,,,,,",
            "country,FR,1,0,,,,,,",
            "country,US,1,0,,,,,,",
            "qr,tap,3,1,1,,,1,1,300",
            "qr,scan,1,0,0,,,0,0,0",
            "",
        ])
    }

    @Test("a range is whole UTC days, from on or before to, at most 366 of them; a key sees its own workspace's links only")
    func refusals() async throws {
        let w = try await Self.world(.sqlite)
        defer { Task { await w.server.stop() } }
        let client = w.server.client(w.serverKey)
        let base = "/v1/links/\(w.link.id)/stats"
        for (query, field) in [("from=2026-11-19&to=2026-11-18", "from"), ("from=2026-11-18T10:00:00Z", "from"), ("to=yesterday", "to"),
                               ("from=2025-11-18&to=2026-11-19", "from"), ("by=day,city", "by"), ("by=", "by"), ("includeSimulated=yes", "includeSimulated")] {
            let response = await client.get(base + "?" + query)
            #expect(response.status == 400 && response.errorCode == "invalid_query" && response.errorField == field, "\(query): \(response.bodyText)")
        }
        #expect(await client.get(base + "?from=2025-11-19&to=2026-11-19").status == 200, "366 days")
        #expect(await client.get("/v1/links/lnk_missing00000/stats").status == 404)
        let other = try await w.server.createWorkspace("Other").id
        let otherKey = try await w.server.createKey(.server, workspace: other).secret
        let refused = await w.server.client(otherKey).get(base)
        #expect(refused.status == 403 && refused.errorCode == "workspace_forbidden")
        #expect(await w.server.client(w.key).get(base).status == 403, "a publishable key, which ships in apps, reads no figures")
    }

    /// Every figure, its writers' lanes summed and zeros left out, as text.
    static func figures(_ store: any Store) async throws -> [String] {
        try await store.read { db in
            try db.query("""
                SELECT link_id, dimension, period, day, value, measure, SUM(amount) AS amount FROM link_stats
                GROUP BY link_id, dimension, period, day, value, measure HAVING SUM(amount) <> 0
                ORDER BY link_id, dimension, period, day, value, measure
                """).map { row in
                try ["link_id", "dimension", "period", "day", "value", "measure", "amount"].map { name in
                    switch row[name] {
                    case .text(let text): return text
                    case .integer(let number): return String(number)
                    default: throw UnexpectedResponse(description: "\(name) is neither text nor a number")
                    }
                }.joined(separator: " ")
            }
        }
    }

    /// Drops the figures and applies step 0041 again, whose backfill counts them from the raw rows, then counts the
    /// in-app browser dimension (step 0046, which came later, copied the referrer's rows as clicks had none) from the
    /// clicks the same way, and the year rows from the months as `LinkStatsYears.build` does, and expects the same
    /// figures as the writer kept; returns how many there are.
    @discardableResult
    static func expectBackfillAgrees(_ store: any Store, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Int {
        let live = try await figures(store)
        try await store.write { db in
            try db.execute("DROP TABLE link_stats")
            try db.execute("DELETE FROM schema_migrations WHERE id IN ('0041_link_stats', '0068_link_stats_years')")
        }
        #expect(try await store.migrate(Schema.migrations) == ["0041_link_stats", "0068_link_stats_years"], sourceLocation: sourceLocation)
        let dialect = store.dialect
        try await store.write { db in
            for (period, start) in [("day", "c.created_at / 86400000"), ("month", LinkStatsSchema.monthStart("c.created_at", dialect: dialect))] {
                let text = """
                    INSERT INTO link_stats (link_id, dimension, period, day, value, measure, amount)
                    SELECT c.link_id, 'inAppBrowser', '\(period)', \(start), COALESCE(c.in_app_browser, ''), c.kind, COUNT(*) FROM clicks c
                    GROUP BY c.link_id, \(start), COALESCE(c.in_app_browser, ''), c.kind
                    """
                try db.execute("\(raw: text)")
            }
            // The year rows (SQLite's) as a server makes them from the months when it is the only version left.
            _ = try LinkStatsYears.build(db)
        }
        #expect(live == (try await figures(store)), "what the writer kept is what the raw rows count", sourceLocation: sourceLocation)
        return live.count
    }

    @Test("what the writer kept up equals what step 0041's backfill counts from the raw clicks, installs and events", arguments: StoreBackend.all)
    func backfillAgrees(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend)
        defer { Task { await w.server.stop() } }
        try await Self.traffic(w)
        // Clicks answered with a webhook queued beside them take the other way into the store (a write, not a row).
        _ = try await w.server.admin.post("/v1/webhooks", CreateWebhookRequest(workspaceId: w.server.defaultWorkspace.id, url: "https://hooks.example.com/c",
                                                                               topics: ["click"]))
            .decoded(CreatedWebhook.self, status: 201)
        #expect(await Self.visit(w, userAgent: UserAgents.android, from: "198.51.100.20", referer: "https://t.co/y").status == 302)
        #expect(try await Self.expectBackfillAgrees(w.server.store) > 40)
        #expect(try await Self.stats(w).total.clicks == 5)
    }

    @Test("many clicks at once are counted once each, whatever statements the writer grouped them in", arguments: StoreBackend.all)
    func concurrentClicks(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend)
        defer { Task { await w.server.stop() } }
        await withTaskGroup(of: Int.self) { group in
            for i in 0..<240 {
                group.addTask { await Self.visit(w, userAgent: i % 3 == 0 ? UserAgents.android : UserAgents.iPhone, from: "198.51.100.\(i % 100)").status }
            }
            for await status in group { #expect(status == 302) }
        }
        let stats = try await w.server.client(w.serverKey).get("/v1/links/\(w.link.id)/stats?from=2026-11-18&to=2026-11-18&by=platform")
            .decoded(LinkStats.self)
        #expect(stats.total.clicks == 240)
        #expect(stats.breakdowns[0].rows.map { "\($0.key) \($0.clicks)" } == ["ios 160", "android 80"])
        try await Self.expectBackfillAgrees(w.server.store)
    }

    /// The store's executor, seen as another writer lane.
    struct LaneExecutor: SQLExecutor {
        let base: any SQLExecutor
        let lane: Int
        var dialect: SQLDialect { base.dialect }
        func execute(_ sql: SQL) throws -> Int { try base.execute(sql) }
        func query(_ sql: SQL) throws -> [SQLRow] { try base.query(sql) }
    }

    @Test("writers add to rows of their own lanes, a read sums the lanes, and taking figures out folds them into one row",
          arguments: StoreBackend.all)
    func lanes(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend)
        defer { Task { await w.server.stop() } }
        let linkId = w.link.id
        let at: Int64 = 1_763_467_200_000  // 2025-11-18T12:00:00Z
        let facts = LinkRollup.Facts(platform: "ios", osVersion: "17.4", variant: nil, qr: false, place: .init(country: "FR", referrer: nil))
        @Sendable func rollup(_ clicks: Int64) -> LinkRollup {
            var rollup = LinkRollup()
            rollup.add(clicks, of: "click", link: linkId, at: at, facts: facts)
            return rollup
        }
        try await w.server.store.write { db in
            try rollup(3).write(LaneExecutor(base: db, lane: 1))
            try rollup(2).write(LaneExecutor(base: db, lane: 5))
        }
        func totals() async throws -> [Int64] {
            try await w.server.store.read { db in
                try db.query("SELECT amount FROM link_stats WHERE link_id = \(linkId) AND dimension = 'total' AND period = 'day' ORDER BY lane")
                    .map { try $0.int("amount") }
            }
        }
        #expect(try await totals() == [3, 2])
        let stats = try await w.server.admin.get("/v1/links/\(linkId)/stats?from=2025-11-18&to=2025-11-18&by=day,country").decoded(LinkStats.self)
        #expect(stats.total.clicks == 5)
        #expect(stats.days?.map(\.clicks) == [5])
        #expect(stats.breakdowns[0].rows.map { "\($0.key) \($0.clicks)" } == ["FR 5"])
        try await w.server.store.write { db in try rollup(4).remove(from: db) }
        #expect(try await totals() == [1], "what is left, in one row")
        try await w.server.store.write { db in try rollup(1).remove(from: LaneExecutor(base: db, lane: 7)) }
        let left = try await w.server.store.read { db in try db.query("SELECT amount FROM link_stats WHERE link_id = \(linkId) AND measure = 'click'") }
        #expect(left.isEmpty, "no row, not even a zero, once nothing is left")
    }

    @Test("a range across months and years counts each day once, read from year (SQLite), month or day rows, or a year's or month's row less what is outside",
          arguments: StoreBackend.all)
    func acrossMonths(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend)
        defer { Task { await w.server.stop() } }
        // One click each on 2025-12-31, 2026-09-30, 10-01, 10-31 and 11-01 (the clock starts on 2026-11-18), from an iPhone and
        // Android in turn.
        w.clock.advance(seconds: -322 * 86_400)
        let offsets = [0, 273, 274, 304, 305]
        for (index, days) in offsets.enumerated() {
            if index > 0 { w.clock.advance(seconds: Double(days - offsets[index - 1]) * 86_400) }
            #expect(await Self.visit(w, userAgent: index % 2 == 0 ? UserAgents.iPhone : UserAgents.android, from: "10.0.0.\(index)").status == 302)
        }
        for (from, to, clicks) in [("2026-10-01", "2026-10-31", 2), ("2026-09-01", "2026-11-30", 4), ("2026-09-30", "2026-11-01", 4),
                                   ("2026-10-02", "2026-10-31", 1), ("2026-09-15", "2026-10-31", 3), ("2026-10-31", "2026-11-01", 2),
                                   ("2026-09-02", "2026-10-30", 2), ("2026-11-01", "2026-11-01", 1), ("2026-10-03", "2026-11-01", 2),
                                   // Across a year: this year's row less what is outside, or last year's December from its days.
                                   ("2026-01-01", "2026-11-01", 4), ("2025-12-31", "2026-11-01", 5), ("2025-12-01", "2026-10-31", 4),
                                   ("2025-11-20", "2026-01-05", 1), ("2026-01-01", "2026-10-30", 2), ("2025-12-02", "2026-11-01", 5)] {
            let stats = try await w.server.client(w.serverKey).get("/v1/links/\(w.link.id)/stats?from=\(from)&to=\(to)").decoded(LinkStats.self)
            #expect(stats.total.clicks == clicks, "\(from) to \(to)")
            for dimension in ["platform", "country", "referrer"] {
                let rows = stats.breakdowns.first { $0.dimension == dimension }?.rows ?? []
                #expect(rows.map(\.clicks).reduce(0, +) == clicks, "\(dimension), \(from) to \(to)")
            }
            #expect(stats.days?.map(\.clicks).reduce(0, +) == clicks, "\(from) to \(to)")
        }
        try await Self.expectBackfillAgrees(w.server.store)
    }

    @Test("forgetting an install takes its click, open, install, events and revenue out of the figures, leaving no row of it behind",
          arguments: StoreBackend.all)
    func forgetting(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend)
        defer { Task { await w.server.stop() } }
        try await Self.traffic(w)
        let receipt = try await w.server.admin.send("DELETE", "/v1/installs/i-fr?appId=\(w.app.id)").decoded(DeletionReceipt.self)
        #expect(receipt.deleted["installs"] == 1 && receipt.deleted["clicks"] == 2, "the matched click and the open")
        let stats = try await Self.stats(w, "&by=day,country")
        #expect(stats.total == LinkStatsRow(key: "total", clicks: 3, installs: 0, events: [:], revenue: [:], previews: 1, bots: 1))
        #expect(stats.days?.map(\.key) == ["2026-11-18"], "the second day held only what the install did")
        #expect(stats.breakdowns[0].rows.map(\.key) == ["(none)", "US"], "the only click from FR was the install's")
        let left = try await w.server.store.read { db in
            try db.query("SELECT value, measure, amount FROM link_stats WHERE value = 'FR' OR amount = 0 OR measure LIKE 'revenue:%' AND measure NOT LIKE 'simulated:%'")
        }
        #expect(left.isEmpty, "no row, not even a zero, says an install from France bought something")
        try await Self.expectBackfillAgrees(w.server.store)
    }
}
