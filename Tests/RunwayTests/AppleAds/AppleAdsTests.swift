import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayDevTools
import RunwayHTTP
@testable import RunwayKit
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

@Suite("Apple Ads claims")
struct AppleAdsTests {
    struct World {
        let server: TestServer
        let clock: ManualClock
        let fake: FakeAdServices
        let app: App
        let key: String
        let claims: AppleAdsClaims
    }

    static func world(_ backend: StoreBackend = .sqlite) async throws -> World {
        let fake = try FakeAdServices(logger: Logger(level: .error, sink: .memory()))
        let clock = ManualClock()
        // The stand-in answers at once, but the whole suite shares two cores: the app's usual three seconds could lapse
        // before it runs, turning Apple's answer into a retry (seen in CI). Its time limits are long here for that reason.
        let server = try await TestServer.start(backend, clock: clock.wall, appleAdsURL: fake.baseURL, appleAdsTimeoutSeconds: 30,
                                                appleAdsInlineSeconds: 30)
        let app = try await server.createApp(in: server.defaultWorkspace.id)
        let key = try await server.createKey(.publishable, app: app.id).secret
        return World(server: server, clock: clock, fake: fake, app: app, key: key,
                     claims: AppleAdsClaims(services: server.services, settings: server.services.appleAds))
    }

    static func install(_ w: World, _ id: String) async throws {
        _ = try await w.server.client(w.key).post("/v1/installs/match", MatchInstallRequest(installId: id, platform: "ios", consent: true))
            .decoded(InstallMatch.self)
    }

    static func claim(_ w: World, install: String, token: String) async -> HTTPResponse {
        // Not throwing: NoTrapTests awaits this through `async let` without `try`. A body that failed to encode would go
        // empty, and the claim be refused.
        let body = (try? TestClient.encoded(AppleAdsClaimRequest(installId: install, token: token))) ?? []
        return await w.server.client(w.key).send("POST", "/v1/claims/apple-ads", body: body)
    }

    static func stop(_ w: World) async {
        await w.fake.server.shutdown(grace: .seconds(1))
        await w.server.stop()
    }

    @Test("a tap is stored with its ids, becomes the install's source, and follows into events and the report", arguments: StoreBackend.all)
    func tap(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend)
        try await Self.install(w, "ads-1")
        _ = try await w.server.client(w.key).post("/v1/events", EventRequest(eventId: "before", type: "SIGNUP", installId: "ads-1", timestamp: "2026-11-01T10:00:00Z"))
            .decoded(EventResult.self, status: 201)
        let claim = try await Self.claim(w, install: "ads-1", token: "tap").decoded(AppleAdsClaim.self, status: 200)
        #expect(claim.status == "attributed")
        #expect(claim.attribution == AppleAdsAttribution(orgId: "51000", campaignId: "61000", adGroupId: "71000", keywordId: "81000", adId: "91000",
                                                         conversionType: "Download", claimType: "Click", clickDate: "2026-11-29T08:15:00.000Z",
                                                         impressionDate: nil, countryOrRegion: "US", supplyPlacement: nil))
        let after = try await w.server.client(w.key).post("/v1/events", EventRequest(eventId: "after", type: "SIGNUP", installId: "ads-1", timestamp: "2026-11-01T10:00:00Z"))
            .decoded(EventResult.self, status: 201)
        #expect(after.attribution?.source == "apple_ads")
        #expect(after.attribution?.appleAdsKeywordId == "81000")
        let earlier = try await w.server.store.read { try $0.first("SELECT source, apple_ads_campaign_id FROM events WHERE event_id = 'before'")! }
        #expect(try earlier.string("source") == "apple_ads" && earlier.optionalString("apple_ads_campaign_id") == "61000")

        let server = w.server.client(try await w.server.createKey(.server, workspace: w.server.defaultWorkspace.id).secret)
        _ = try await server.post("/v1/events", EventRequest(eventId: "buy", type: "PURCHASE", installId: "ads-1", timestamp: "2026-11-01T10:00:00Z", amount: 999,
                                                             currency: "USD", appId: w.app.id)).decoded(EventResult.self, status: 201)
        for (grouping, key) in [("appleAdsCampaign", "61000"), ("appleAdsAdGroup", "71000"), ("appleAdsKeyword", "81000")] {
            let report = try await server.get("/v1/reports/funnel?groupBy=\(grouping)").decoded(FunnelReport.self)
            let row = try #require(report.rows.first { $0.key == key })
            #expect(row.installs == 1 && row.revenue == ["USD": 999] && row.events["SIGNUP"] == 2)
        }
        // Asked again, the final answer comes from the store; Apple is not asked twice.
        #expect(try await Self.claim(w, install: "ads-1", token: "tap").decoded(AppleAdsClaim.self) == claim)
        #expect(w.fake.requests(for: "tap") == 1)
        await Self.stop(w)
    }

    @Test("a new token after a change of tracking consent asks Apple again and updates the one claim; the same token, a failing one or a fourth new one does not",
          arguments: StoreBackend.all)
    func newTokenAfterConsent(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend)
        try await Self.install(w, "att-1")
        // Without tracking consent AdServices answers the standard payload; with it, the detailed one (the click's date).
        let standard = try await Self.claim(w, install: "att-1", token: "tap-standard").decoded(AppleAdsClaim.self, status: 200)
        #expect(standard.status == "attributed" && standard.attribution?.clickDate == nil)
        let detailed = try await Self.claim(w, install: "att-1", token: "tap").decoded(AppleAdsClaim.self, status: 200)
        #expect(detailed.status == "attributed" && detailed.attribution?.clickDate == "2026-11-29T08:15:00.000Z")
        #expect(detailed.attribution?.campaignId == "61000", "Apple's new answer replaces the old")
        #expect(try await Self.claim(w, install: "att-1", token: "tap").decoded(AppleAdsClaim.self) == detailed)
        #expect(w.fake.requests(for: "tap") == 1 && w.fake.requests(for: "tap-standard") == 1, "the same token is not asked again")
        // A new token Apple refuses leaves the attribution as it was.
        let refused = try await Self.claim(w, install: "att-1", token: "invalid").decoded(AppleAdsClaim.self, status: 200)
        #expect(refused.status == "attributed" && refused.attribution?.campaignId == "61000")
        // Three renewals at most: a fourth new token is answered from the store.
        _ = try await Self.claim(w, install: "att-1", token: "search-match").decoded(AppleAdsClaim.self, status: 200)
        _ = try await Self.claim(w, install: "att-1", token: "view").decoded(AppleAdsClaim.self)
        #expect(w.fake.requests(for: "view") == 0, "renewals are bounded")
        let (claims, installs) = try await w.server.store.read { db in
            (try db.first("SELECT COUNT(*) AS n FROM apple_ads_claims WHERE install_id = 'att-1'")!.int("n"),
             try db.first("SELECT COUNT(*) AS n FROM installs WHERE install_id = 'att-1'")!.int("n"))
        }
        #expect(claims == 1 && installs == 1)
        let report = try await w.server.admin.get("/v1/reports/apple-ads?workspaceId=\(w.server.defaultWorkspace.id)").decoded(AppleAdsReport.self)
        #expect(report.rows.map(\.claims).reduce(0, +) == 1, "one install, one claim counted: \(report.rows)")
        await Self.stop(w)
    }

    @Test("Apple's other answers: no attribution, invalid, test data, search match, ids as strings")
    func otherAnswers() async throws {
        let w = try await Self.world()
        for (install, token) in [("n", "no"), ("i", "invalid"), ("t", "test"), ("s", "search-match"), ("x", "strings"), ("v", "view-standard")] {
            try await Self.install(w, install)
            _ = token
        }
        #expect(try await Self.claim(w, install: "n", token: "no").decoded(AppleAdsClaim.self).status == "not_attributed")
        #expect(try await Self.claim(w, install: "i", token: "invalid").decoded(AppleAdsClaim.self).status == "invalid")
        let test = try await Self.claim(w, install: "t", token: "test").decoded(AppleAdsClaim.self)
        #expect(test.status == "attributed" && test.testData)
        let testInstall = try await w.server.admin.get("/v1/installs/t/attribution").decoded(AttributionExplanation.self)
        #expect(testInstall.match.source == "organic", "test data stays out of attribution and reports")
        let search = try await Self.claim(w, install: "s", token: "search-match").decoded(AppleAdsClaim.self)
        #expect(search.attribution?.keywordId == nil && search.attribution?.campaignId == "61003")
        let strings = try await Self.claim(w, install: "x", token: "strings").decoded(AppleAdsClaim.self)
        #expect(strings.attribution?.campaignId == "61004")
        #expect(strings.attribution?.clickDate == "2026-11-28T10:00:30.250Z")
        #expect(strings.attribution?.supplyPlacement == "TodayTab")
        let view = try await Self.claim(w, install: "v", token: "view-standard").decoded(AppleAdsClaim.self)
        #expect(view.attribution?.claimType == "Impression" && view.attribution?.impressionDate == nil)
        await Self.stop(w)
    }

    @Test("404 is retried every 5 s, three in a row, then every 10 minutes; the client gets 202 with when to ask again")
    func notFoundYet() async throws {
        let w = try await Self.world()
        try await Self.install(w, "late")
        let first = try await Self.claim(w, install: "late", token: "late-4").decoded(AppleAdsClaim.self, status: 202)
        #expect(first == AppleAdsClaim(installId: "late", status: "pending", retryAfter: 5, attribution: nil, testData: false))
        #expect(try await w.claims.resolveDue() == 0, "not due before 5 s")
        w.clock.advance(seconds: 5)
        #expect(try await w.claims.resolveDue() == 1)
        w.clock.advance(seconds: 5)
        #expect(try await w.claims.resolveDue() == 1)
        let resting = try await Self.claim(w, install: "late", token: "late-4").decoded(AppleAdsClaim.self, status: 202)
        #expect(resting.retryAfter == 600, "after three 404s in a row the claim rests for ten minutes")
        w.clock.advance(seconds: 599)
        #expect(try await w.claims.resolveDue() == 0)
        w.clock.advance(seconds: 1)
        #expect(try await w.claims.resolveDue() == 1)  // the 4th 404
        w.clock.advance(seconds: 5)
        #expect(try await w.claims.resolveDue() == 1)  // now Apple has it
        let done = try await Self.claim(w, install: "late", token: "late-4").decoded(AppleAdsClaim.self, status: 200)
        #expect(done.status == "attributed" && done.attribution?.campaignId == "61000")
        #expect(w.fake.requests(for: "late-4") == 5)
        await Self.stop(w)
    }

    @Test("a token Apple never finds expires with its 24 hours, and the token itself is then forgotten")
    func expiry() async throws {
        let w = try await Self.world()
        try await Self.install(w, "gone")
        _ = try await Self.claim(w, install: "gone", token: "missing").decoded(AppleAdsClaim.self, status: 202)
        var status = "pending"
        var steps = 0
        while status == "pending", steps < 1600 {
            w.clock.advance(seconds: 60)
            _ = try await w.claims.resolveDue()
            status = try await w.server.store.read { try $0.first("SELECT status FROM apple_ads_claims")!.string("status") }
            steps += 1
        }
        #expect(status == "expired")
        #expect(steps >= 23 * 60 && steps <= 24 * 60 + 11, "expired when the 24 hours ran out, not before")
        let token = try await w.server.store.read { try $0.first("SELECT token FROM apple_ads_claims")!.optionalString("token") }
        #expect(token == nil)
        #expect(try await Self.claim(w, install: "gone", token: "missing").decoded(AppleAdsClaim.self, status: 200).status == "expired")
        await Self.stop(w)
    }

    @Test("500, garbage and an unreachable Apple keep the claim pending, retried with backoff")
    func failures() async throws {
        let w = try await Self.world()
        try await Self.install(w, "e")
        try await Self.install(w, "g")
        #expect(try await Self.claim(w, install: "e", token: "error").decoded(AppleAdsClaim.self, status: 202).retryAfter == 30)
        #expect(try await Self.claim(w, install: "g", token: "garbage").decoded(AppleAdsClaim.self, status: 202).retryAfter == 30)
        w.clock.advance(seconds: 30)
        #expect(try await w.claims.resolveDue() == 2)
        #expect(try await Self.claim(w, install: "e", token: "error").decoded(AppleAdsClaim.self, status: 202).retryAfter == 60)

        let offline = try await TestServer.start(clock: w.clock.wall, appleAdsURL: "http://127.0.0.1:1")
        let app = try await offline.createApp(in: offline.defaultWorkspace.id)
        let key = try await offline.createKey(.publishable, app: app.id).secret
        _ = try await offline.client(key).post("/v1/installs/match", MatchInstallRequest(installId: "off", platform: "ios", consent: true)).decoded(InstallMatch.self)
        let pending = try await offline.client(key).post("/v1/claims/apple-ads", AppleAdsClaimRequest(installId: "off", token: "tap"))
        #expect(pending.status == 202)
        await offline.stop()
        await Self.stop(w)
    }

    @Test("an Apple that answers too slowly: the claim is answered pending in the time limit and finished by a later attempt")
    func slowApple() async throws {
        let fake = try FakeAdServices(logger: Logger(level: .error, sink: .memory()))
        // Far longer than the claim's 1-second limit, so a pending answer means the limit cut Apple off, however slowly
        // this machine runs.
        fake.slowAnswerDelay = .seconds(120)
        let clock = ManualClock()
        let server = try await TestServer.start(clock: clock.wall, appleAdsURL: fake.baseURL, appleAdsTimeoutSeconds: 1)
        let app = try await server.createApp(in: server.defaultWorkspace.id)
        let key = try await server.createKey(.publishable, app: app.id).secret
        _ = try await server.client(key).post("/v1/installs/match", MatchInstallRequest(installId: "s", platform: "ios", consent: true)).decoded(InstallMatch.self)
        let pending = try await server.client(key).post("/v1/claims/apple-ads", AppleAdsClaimRequest(installId: "s", token: "slow"))
            .decoded(AppleAdsClaim.self, status: 202)
        #expect(pending.status == "pending" && pending.retryAfter == 30, "a timeout is retried like an error, with backoff")
        #expect(fake.requests(for: "slow") == 1, "Apple was asked, and had not answered")
        // A later attempt with a patient client gets Apple's answer, now quicker than its limit.
        fake.slowAnswerDelay = .seconds(1)
        var patient = server.services.appleAds
        patient.timeoutSeconds = 60
        clock.advance(seconds: 30)
        #expect(try await AppleAdsClaims(services: server.services, settings: patient).resolveDue() == 1)
        let done = try await server.admin.get("/v1/installs/s/attribution").decoded(AttributionExplanation.self)
        #expect(done.match.source == "apple_ads")
        #expect(fake.requests(for: "slow") == 2)
        await fake.server.shutdown(grace: .seconds(1))
        await server.stop()
    }

    @Test("the app waits at most a few seconds for Apple even when the background may wait longer")
    func inlineBudget() async throws {
        let fake = try FakeAdServices(logger: Logger(level: .error, sink: .memory()))
        // Slower than the app's wait, quicker than the background's 10 s: a 202 shows the request did not wait for it.
        fake.slowAnswerDelay = .seconds(8)
        let server = try await TestServer.start(clock: ManualClock().wall, appleAdsURL: fake.baseURL, appleAdsTimeoutSeconds: 10)
        #expect(server.services.settings[AppleAdsSettings.self].inlineSeconds < 8 && server.services.appleAds.timeoutSeconds == 10)
        let app = try await server.createApp(in: server.defaultWorkspace.id)
        let key = try await server.createKey(.publishable, app: app.id).secret
        _ = try await server.client(key).post("/v1/installs/match", MatchInstallRequest(installId: "b", platform: "ios", consent: true)).decoded(InstallMatch.self)
        let claim = try await server.client(key).post("/v1/claims/apple-ads", AppleAdsClaimRequest(installId: "b", token: "slow"))
            .decoded(AppleAdsClaim.self, status: 202)
        #expect(claim.status == "pending" && fake.requests(for: "slow") == 1)
        await fake.server.shutdown(grace: .seconds(1))
        await server.stop()
    }

    @Test("bad claims are refused: empty or oversized or strange tokens, unknown installs")
    func badClaims() async throws {
        let w = try await Self.world()
        try await Self.install(w, "b")
        #expect(await Self.claim(w, install: "b", token: "").errorField == "token")
        #expect(await Self.claim(w, install: "b", token: String(repeating: "A", count: 9000)).errorField == "token")
        #expect(await Self.claim(w, install: "b", token: String(repeating: "A", count: 20000)).status == 413)
        #expect(await Self.claim(w, install: "b", token: "not a token!").errorField == "token")
        #expect(await Self.claim(w, install: "nobody", token: "tap").errorCode == "unknown_install")
        await Self.stop(w)
    }

    @Test("pending claims survive a restart and are finished by the next process")
    func restart() async throws {
        let fake = try FakeAdServices(logger: Logger(level: .error, sink: .memory()))
        let clock = ManualClock()
        let first = try await TestServer.start(clock: clock.wall, appleAdsURL: fake.baseURL)
        let app = try await first.createApp(in: first.defaultWorkspace.id)
        let key = try await first.createKey(.publishable, app: app.id).secret
        _ = try await first.client(key).post("/v1/installs/match", MatchInstallRequest(installId: "r", platform: "ios", consent: true)).decoded(InstallMatch.self)
        #expect(try await first.client(key).post("/v1/claims/apple-ads", AppleAdsClaimRequest(installId: "r", token: "late-2")).status == 202)
        await first.store.close()

        // A new process on the same database: the claim is still there and gets done.
        let store = try StoreBackend.sqlite.open(first.location.url, nil)
        let box = first.services.secretBox
        var settings = CapabilitySettingsSet()
        settings[AppleAdsSettings.self].url = fake.baseURL
        let services = ServerServices(store: store, clock: clock.wall, logger: Logger(level: .error, sink: .memory()), metrics: MetricsRegistry(),
                                      secrets: try await InstanceSecrets.load(store, box: box), secretBox: box, settings: settings)
        let claims = AppleAdsClaims(services: services, settings: services.appleAds)
        clock.advance(seconds: 5)
        _ = try await claims.resolveDue()
        clock.advance(seconds: 5)
        _ = try await claims.resolveDue()
        let status = try await store.read { try $0.first("SELECT status, campaign_id FROM apple_ads_claims")! }
        #expect(try status.string("status") == "attributed" && status.optionalString("campaign_id") == "61000")
        #expect(fake.requests(for: "late-2") == 3)
        await store.close()
        await fake.server.shutdown()
    }

    static let vectors = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/vectors/adservices")

    @Test("Apple's documented payloads read as attributed", .enabled(if: FileManager.default.fileExists(atPath: vectors.path),
          "../shared/vectors/adservices is absent: Apple's example payloads are not checked"),
          arguments: ["detailed-tap-through", "standard-tap-through", "detailed-view-through", "standard-view-through"])
    func applePayloads(_ name: String) throws {
        let body = try Data(contentsOf: Self.vectors.appendingPathComponent("\(name).json"))
        guard case .attributed(let fields, let click, let impression, let test) = AppleAdsPayload.read(Array(body)) else {
            Issue.record("\(name) did not read as attributed")
            return
        }
        #expect(!test)
        #expect(fields.campaignId != nil && fields.adGroupId != nil && fields.orgId != nil)
        #expect(fields.claimType == (name.contains("tap") ? "Click" : "Impression"))
        #expect((click != nil) == (name == "detailed-tap-through"))
        #expect((impression != nil) == (name == "detailed-view-through"))
    }
}
