import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayHTTP
@testable import RunwayKit
import RunwayOutbound
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

@Suite("Install matching")
struct MatchingTests {
    struct World {
        let server: TestServer
        let clock: ManualClock
        let app: App
        let key: String
        let link: Link
    }

    /// An app with a publishable key and a link with an in-app path; `settings` turns methods on.
    static func world(_ backend: StoreBackend = .sqlite, settings: AttributionSettingsUpdate? = nil, outbound: OutboundPolicy = OutboundPolicy()) async throws -> World {
        let clock = ManualClock()
        let server = try await TestServer.start(backend, clock: clock.wall, outbound: outbound)
        var app = try await server.createApp(in: server.defaultWorkspace.id)
        if let settings {
            app = try await server.admin.patch("/v1/apps/\(app.id)", UpdateAppRequest(attribution: settings)).decoded(App.self)
        }
        let key = try await server.createKey(.publishable, app: app.id).secret
        let link = try await server.createLink(CreateLinkRequest(workspaceId: server.defaultWorkspace.id, path: "promo", appPath: "/promo/7",
                                                                                metadata: ["sku": .number(7)], campaign: "spring"))
        return World(server: server, clock: clock, app: app, key: key, link: link)
    }

    static func match(_ w: World, install: String, address: String = "203.0.113.7", token: String? = nil) async throws -> InstallMatch {
        try await match(w, MatchInstallRequest(installId: install, platform: "ios", osVersion: "17.4", language: "en-GB", consent: true, clickToken: token),
                        address: address)
    }

    /// `count` iPhone clicks on the link from the default address, `seconds` apart.
    static func clicks(_ w: World, _ count: Int, apart seconds: Double) async {
        for _ in 0..<count {
            _ = await w.server.follow("/promo", userAgent: UserAgents.iPhone)
            w.clock.advance(seconds: seconds)
        }
    }

    /// `POST /v1/installs/match` with the app's key from `address`, which probabilistic matching goes by.
    static func match(_ w: World, _ request: MatchInstallRequest, address: String = "203.0.113.7") async throws -> InstallMatch {
        try await w.server.client(w.key).send("POST", "/v1/installs/match", body: try TestClient.encoded(request), remoteAddress: address)
            .decoded(InstallMatch.self)
    }

    @Test("without settings every answer is unmatched, and the first answer is kept", arguments: StoreBackend.all)
    func defaultsOff(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend)
        _ = await w.server.follow("/promo", userAgent: UserAgents.iPhone)  // same address as the install below
        let first = try await Self.match(w, install: "inst-1")
        #expect(!first.matched)
        #expect(first.method == "unmatched")
        #expect(first.source == "organic")
        #expect(first.confidence == 0)
        _ = try await w.server.admin.patch("/v1/apps/\(w.app.id)", UpdateAppRequest(attribution: AttributionSettingsUpdate(probabilisticMinutes: 60))).decoded(App.self)
        #expect(try await Self.match(w, install: "inst-1") == first, "the same install id always gets the same answer")
        await w.server.stop()
    }

    @Test("a returning device (consent given again) is registered unmatched, not counted, and keeps no app transaction id", arguments: StoreBackend.all)
    func returning(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend, settings: AttributionSettingsUpdate(probabilisticMinutes: 60))
        _ = await w.server.follow("/promo", userAgent: UserAgents.iPhone)
        let client = w.server.client(w.key)
        let first = try await Self.match(w, MatchInstallRequest(installId: "inst-old", platform: "ios", consent: true, appTransactionId: "704289572311469613"))
        #expect(first.matched && first.method == "probabilistic")
        _ = await w.server.follow("/promo", userAgent: UserAgents.iPhone)  // a click the returning id must not take
        let again = try await Self.match(w, MatchInstallRequest(installId: "inst-new", platform: "ios", consent: true, returning: true,
                                                                appTransactionId: "704289572311469613"))
        #expect(!again.matched && again.method == "unmatched" && again.source == "returning" && again.clickId == nil)
        let rows = try await w.server.store.read { try $0.query("SELECT install_id, app_transaction_id, address_hash FROM installs ORDER BY install_id") }
        #expect(try rows.map { try $0.string("install_id") } == ["inst-new", "inst-old"])
        #expect(try rows[0].optionalString("app_transaction_id") == nil && rows[0].optionalString("address_hash") == nil,
                "nothing that could tie the new id to the old one is kept")
        #expect(try rows[1].optionalString("app_transaction_id") == "704289572311469613")
        let unclaimed = try await w.server.store.read { try $0.first("SELECT COUNT(*) AS n FROM clicks WHERE claimed = 0")?.int("n") }
        #expect(unclaimed == 1, "the second click is still there for a real new install")
        let explanation = try await w.server.admin.get("/v1/installs/inst-new/attribution").decoded(AttributionExplanation.self)
        #expect(explanation.rules.last == Matcher.returningRule && explanation.candidates.isEmpty)
        // Events of the returning id work; the funnel counts the installation once.
        let event = try await client.post("/v1/events", EventTests.event("e-1", install: "inst-new"))
        #expect(event.status == 201, "\(event.bodyText)")
        let reporter = w.server.client(try await w.server.createKey(.server, workspace: w.server.defaultWorkspace.id).secret)
        let funnel = try await reporter.get("/v1/reports/funnel?groupBy=source").decoded(FunnelReport.self)
        let installs: Int = funnel.rows.map(\.installs).reduce(0, +)
        #expect(installs == 1)
        #expect(funnel.rows.first { $0.key == "returning" }?.events["SIGNUP"] == 1)
        #expect(try await client.post("/v1/installs/match", MatchInstallRequest(installId: "inst-3", platform: "ios", consent: true, appTransactionId: "no spaces"))
                .errorField == "appTransactionId")
        await w.server.stop()
    }

    @Test("consent is required and nothing is stored without it")
    func consent() async throws {
        let w = try await Self.world()
        let refused = try await w.server.client(w.key).post("/v1/installs/match", MatchInstallRequest(installId: "inst-x", platform: "ios", consent: false))
        #expect(refused.status == 400)
        #expect(refused.errorCode == "consent_required")
        let stored = try await w.server.store.read { try $0.query("SELECT * FROM installs") }
        #expect(stored.isEmpty)
        #expect(try await w.server.client(w.key).post("/v1/installs/match", MatchInstallRequest(installId: "bad id!", platform: "ios", consent: true)).errorField == "installId")
        #expect(try await w.server.client(w.key).post("/v1/installs/match", MatchInstallRequest(installId: "i", platform: "android", consent: true)).errorField == "platform")
        await w.server.stop()
    }

    @Test("referrer: a click token the app presents, or a link it resolved, matches with certainty", arguments: StoreBackend.all)
    func referrer(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend)
        let resolved = try await w.server.client(w.key).post("/v1/resolve", ResolveRequest(url: "https://localhost/promo", platform: "ios", installId: "inst-r1"))
            .decoded(ResolvedLink.self)
        let viaOpen = try await Self.match(w, install: "inst-r1")
        #expect(viaOpen.matched && viaOpen.method == "referrer" && viaOpen.confidence == 1)
        #expect(viaOpen.clickId == resolved.clickToken)
        #expect(viaOpen.path == "/promo/7")
        #expect(viaOpen.metadata?["sku"] == .number(7))
        #expect(viaOpen.campaign == "spring" && viaOpen.source == "link")

        let viaToken = try await Self.match(w, install: "inst-r2", token: resolved.clickToken)
        #expect(viaToken.method == "referrer" && viaToken.linkId == w.link.id)
        let unknown = try await Self.match(w, install: "inst-r3", token: "notatoken")
        #expect(unknown.method == "unmatched")

        // A click on a link of another app of the workspace does not attribute this app's install.
        let otherApp = try await w.server.createApp(in: w.server.defaultWorkspace.id, bundleId: "com.example.other")
        let otherKey = try await w.server.createKey(.publishable, app: otherApp.id).secret
        _ = try await w.server.createLink(CreateLinkRequest(workspaceId: w.server.defaultWorkspace.id, appId: otherApp.id, path: "elsewhere"))
        let otherClick = try await w.server.client(otherKey).post("/v1/resolve", ResolveRequest(url: "https://localhost/elsewhere", platform: "ios"))
            .decoded(ResolvedLink.self)
        let foreign = try await Self.match(w, install: "inst-r4", token: otherClick.clickToken)
        #expect(foreign.method == "unmatched" && foreign.linkId == nil)
        let explanation = try await w.server.admin.get("/v1/installs/inst-r4/attribution").decoded(AttributionExplanation.self)
        #expect(explanation.candidates.contains { $0.method == "referrer" && !$0.eligible && $0.reason == "the link belongs to another app" })
        await w.server.stop()
    }

    @Test("old clicks expire: a reinstall never inherits a stale link")
    func staleClicks() async throws {
        let w = try await Self.world(settings: AttributionSettingsUpdate(probabilisticMinutes: 60, clickWindowDays: 2))
        let resolved = try await w.server.client(w.key).post("/v1/resolve", ResolveRequest(url: "https://localhost/promo", platform: "ios"))
            .decoded(ResolvedLink.self)
        w.clock.advance(seconds: 3 * 86_400)
        let late = try await Self.match(w, install: "inst-late", token: resolved.clickToken)
        #expect(late.method == "unmatched")
        let explanation = try await w.server.admin.get("/v1/installs/inst-late/attribution").decoded(AttributionExplanation.self)
        #expect(explanation.candidates.contains { $0.method == "referrer" && !$0.eligible && $0.reason.contains("2-day") })
        await w.server.stop()
    }

    @Test("probabilistic: the most recent iOS click from the same address within the window, each click once", arguments: StoreBackend.all)
    func probabilistic(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend, settings: AttributionSettingsUpdate(probabilisticMinutes: 30))
        let other = try await w.server.createLink(CreateLinkRequest(workspaceId: w.server.defaultWorkspace.id, path: "second", appPath: "/second"))
        _ = await w.server.follow("/promo", userAgent: UserAgents.iPhone)
        w.clock.advance(seconds: 60)
        _ = await w.server.follow("/second", userAgent: UserAgents.iPhone)
        _ = await w.server.follow("/second", userAgent: UserAgents.desktop)  // desktop clicks never match an iPhone install
        w.clock.advance(seconds: 120)

        let first = try await Self.match(w, install: "inst-p1")
        #expect(first.method == "probabilistic")
        #expect(first.linkId == other.id, "the most recent click wins")
        #expect(first.confidence > 0.8 && first.confidence < 0.9)
        let second = try await Self.match(w, install: "inst-p2")
        #expect(second.method == "probabilistic")
        #expect(second.linkId == w.link.id, "a click matches at most one install; the next one takes the older click")
        let third = try await Self.match(w, install: "inst-p3")
        #expect(third.method == "unmatched", "no click left")
        let elsewhere = try await Self.match(w, install: "inst-p4", address: "198.51.100.20")
        #expect(elsewhere.method == "unmatched")

        let explanation = try await w.server.admin.get("/v1/installs/inst-p2/attribution").decoded(AttributionExplanation.self)
        #expect(explanation.settings.probabilisticMinutes == 30)
        #expect(explanation.winner?.linkId == w.link.id)
        #expect(explanation.candidates.allSatisfy { $0.linkId == w.link.id }, "the click matched to inst-p1 is not a candidate any more")
        #expect(explanation.rules.contains { $0.contains("probabilistic (on, 30 minutes)") })
        #expect(explanation.match == second)

        w.clock.advance(seconds: 31 * 60)
        _ = await w.server.follow("/promo", userAgent: UserAgents.iPhone)
        w.clock.advance(seconds: 31 * 60)
        #expect(try await Self.match(w, install: "inst-p5").method == "unmatched", "outside the window")
        await w.server.stop()
    }

    @Test("view-through: an impression from the same address within the hours, below clicks")
    func viewThrough() async throws {
        let w = try await Self.world(settings: AttributionSettingsUpdate(viewThroughHours: 24))
        let impression = try await w.server.admin.post("/v1/impressions", ImpressionRequest(appId: w.app.id, ip: "203.0.113.7", network: "adnet", campaign: "c9"))
            .decoded(Impression.self, status: 201)
        w.clock.advance(seconds: 3600)
        let match = try await Self.match(w, install: "inst-v1")
        #expect(match.method == "view_through")
        #expect(match.source == "ad:adnet")
        #expect(match.campaign == "c9")
        #expect(match.confidence == 0.3)
        let explanation = try await w.server.admin.get("/v1/installs/inst-v1/attribution").decoded(AttributionExplanation.self)
        #expect(explanation.winner?.impressionId == impression.id)
        #expect(try await w.server.admin.post("/v1/impressions", ImpressionRequest(appId: w.app.id, ip: "not-an-ip")).errorField == "ip")
        let stored = try await w.server.store.read { try $0.query("SELECT * FROM impressions").flatMap { $0.values } }
        #expect(!stored.contains(.text("203.0.113.7")), "addresses are kept only as keyed hashes")
        await w.server.stop()
    }

    @Test("concurrent first requests for one install get one answer and claim one click", arguments: StoreBackend.all)
    func concurrentFirstRequests(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend, settings: AttributionSettingsUpdate(probabilisticMinutes: 30))
        for _ in 0..<3 { _ = await w.server.follow("/promo", userAgent: UserAgents.iPhone) }
        let answers = try await withThrowingTaskGroup(of: InstallMatch.self) { group in
            for _ in 0..<16 { group.addTask { try await Self.match(w, install: "inst-race") } }
            return try await group.reduce(into: [InstallMatch]()) { $0.append($1) }
        }
        #expect(Set(answers.map(\.clickId)).count == 1)
        #expect(answers.allSatisfy { $0 == answers[0] })
        let claims = try await w.server.store.read { try $0.query("SELECT claimed_install_id FROM clicks WHERE claimed = 1").map { try $0.string("claimed_install_id") } }
        #expect(claims == ["inst-race"])
        await w.server.stop()
    }

    @Test("installs behind one address (a carrier's NAT) racing at once each get a different click", arguments: StoreBackend.all)
    func sharedAddress(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend, settings: AttributionSettingsUpdate(probabilisticMinutes: 30))
        await Self.clicks(w, 12, apart: 1)
        let answers = try await withThrowingTaskGroup(of: InstallMatch.self) { group in
            for i in 0..<12 { group.addTask { try await Self.match(w, install: "nat-\(i)") } }
            return try await group.reduce(into: [InstallMatch]()) { $0.append($1) }
        }
        #expect(answers.allSatisfy { $0.method == "probabilistic" })
        #expect(Set(answers.compactMap(\.clickId)).count == 12, "every install got its own click")
        // Each explanation names the click the install got as its winner; a click lost to another install is marked so.
        for answer in answers {
            let explanation = try await w.server.admin.get("/v1/installs/\(answer.installId)/attribution").decoded(AttributionExplanation.self)
            #expect(explanation.winner?.clickToken == answer.clickId && explanation.winner?.eligible == true, "\(explanation)")
            for lost in explanation.candidates where lost.reason == "matched another install a moment ago" {
                #expect(!lost.eligible && lost.clickToken == nil)
            }
        }
        #expect(try await Self.match(w, install: "nat-late").method == "unmatched")
        await w.server.stop()
    }

    /// `count` clicks from the default address (their tokens newest first), and a plan for `install` read now, before
    /// whatever the test lets another writer do.
    static func planAhead(_ backend: StoreBackend, clicks count: Int, install: String) async throws
        -> (World, tokens: [String], Matcher.Input, Matcher.Plan) {
        let w = try await Self.world(backend, settings: AttributionSettingsUpdate(probabilisticMinutes: 30))
        await Self.clicks(w, count, apart: 10)
        let rows = try await w.server.store.read { try $0.query("SELECT token, address_hash FROM clicks ORDER BY created_at DESC") }
        try #require(rows.count == count)
        let app = try #require(try await w.server.services.apps.app(id: w.app.id))
        let input = Matcher.Input(app: app, installId: install, platform: "ios", osVersion: nil, language: nil, clickToken: nil,
                                  addressHashes: [try rows[0].string("address_hash")], simulated: false,
                                  now: Int64(w.clock.now.timeIntervalSince1970 * 1000))
        let plan = try await w.server.store.read { try Matcher.plan(input, db: $0) }
        return (w, try rows.map { try $0.string("token") }, input, plan)
    }

    @Test("a plan read before another writer claimed its newest click takes the newest click still free, and says which it lost",
          arguments: StoreBackend.all)
    func planOutrunByAnotherWriter(_ backend: StoreBackend) async throws {
        let (w, tokens, input, plan) = try await Self.planAhead(backend, clicks: 3, install: "inst-outrun")
        #expect(plan.options.first?.clickToken == tokens[0])
        // Another writer (a server beside this one, or PostgreSQL's next lane) matches the newest click meanwhile.
        #expect(try await Self.match(w, install: "inst-first").clickId == tokens[0])
        let (install, created, _) = try await w.server.store.write { try Matcher.commit(input, plan: plan, db: $0, links: w.server.services.links) }
        #expect(created && install.clickToken == tokens[1], "the newest click still free")
        let explanation = try await w.server.admin.get("/v1/installs/inst-outrun/attribution").decoded(AttributionExplanation.self)
        #expect(explanation.candidates.contains { $0.reason == "matched another install a moment ago" && !$0.eligible && $0.clickToken == nil })
        #expect(explanation.winner?.clickToken == tokens[1] && explanation.winner?.eligible == true, "\(explanation)")
        await w.server.stop()
    }

    @Test("a plan read before another request stored the same install's answer returns that answer and gives its claim back",
          arguments: StoreBackend.all)
    func planOutrunBySameInstall(_ backend: StoreBackend) async throws {
        let (w, tokens, input, plan) = try await Self.planAhead(backend, clicks: 2, install: "inst-twice")
        #expect(plan.existing == nil)
        // Another request for the same install (another server) stores its answer first, with the newest click.
        #expect(try await Self.match(w, install: "inst-twice").clickId == tokens[0])
        let (install, created, _) = try await w.server.store.write { try Matcher.commit(input, plan: plan, db: $0, links: w.server.services.links) }
        #expect(!created && install.clickToken == tokens[0], "the answer stored first stands")
        let claimed = try await w.server.store.read { try $0.query("SELECT token FROM clicks WHERE claimed = 1").map { try $0.string("token") } }
        #expect(claimed == [tokens[0]], "the click this plan claimed went back")
        await w.server.stop()
    }

    @Test("a match uses the cached link only while its row is unchanged: an edit by another server is read again", arguments: StoreBackend.all)
    func cachedLinkEditedElsewhere(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend, settings: AttributionSettingsUpdate(probabilisticMinutes: 30))
        let links = w.server.services.links
        let id = w.link.id
        #expect(try await w.server.store.write { try links.link(id: id, in: $0)?.campaign } == "spring")
        // Another server edits the link: this process's cache is not told.
        w.clock.advance(seconds: 1)
        let edited = try await w.server.store.write { db in
            try db.execute("UPDATE links SET campaign = 'summer', updated_at = updated_at + 1000 WHERE id = \(id)")
        }
        #expect(edited == 1)
        await Self.clicks(w, 1, apart: 1)
        let match = try await Self.match(w, install: "inst-edited")
        #expect(match.method == "probabilistic" && match.campaign == "summer", "the edit made elsewhere counts: \(match)")
        #expect(try await w.server.store.write { try links.link(id: id, in: $0)?.campaign } == "summer")
        await w.server.stop()
    }

    @Test("simulation runs the real click and match code from a chosen address")
    func simulation() async throws {
        let w = try await Self.world(settings: AttributionSettingsUpdate(probabilisticMinutes: 10))
        let click = try await w.server.admin.post("/v1/simulate/clicks", SimulateClickRequest(url: "https://localhost/promo", ip: "192.0.2.55"))
            .decoded(SimulatedClick.self, status: 201)
        #expect(click.platform == "ios")
        #expect(click.location == "https://apps.apple.com/app/id123456789")
        let install = try await w.server.admin.post("/v1/simulate/installs", SimulateInstallRequest(appId: w.app.id, installId: "sim-1", ip: "192.0.2.55"))
            .decoded(InstallMatch.self)
        #expect(install.method == "probabilistic" && install.clickId == click.clickToken && install.path == "/promo/7")
        let explanation = try await w.server.admin.get("/v1/installs/sim-1/attribution").decoded(AttributionExplanation.self)
        #expect(explanation.simulated)
        await w.server.stop()
    }
}
