import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
import RunwayDevTools
import RunwayHTTP
@testable import RunwayKit
import RunwayStore
import RunwayTestKit
import Testing

/// What Apple Ads added in 2025–26: `Preorder` conversions, `attribution: false` for age- or gender-targeted ad groups,
/// and a wait for Apple that stays above its one-second hold.
@Suite("Apple Ads outcomes")
struct AppleAdsOutcomeTests {
    typealias A = AppleAdsTests

    @Test("a Preorder conversion is stored and reported; attribution false is 'not attributed by Apple', apart from claims Apple never answered")
    func outcomes() async throws {
        let w = try await A.world()
        for (install, token) in [("p-1", "preorder"), ("p-2", "tap"), ("p-3", "no"), ("p-4", "no"), ("p-5", "missing"), ("p-6", "invalid"), ("p-7", "test")] {
            try await A.install(w, install)
            _ = await A.claim(w, install: install, token: token)
        }
        let preorder = try await A.claim(w, install: "p-1", token: "preorder").decoded(AppleAdsClaim.self, status: 200)
        #expect(preorder.status == "attributed" && preorder.attribution?.conversionType == "Preorder")
        let stored = try await w.server.store.read { try $0.first("SELECT conversion_type FROM apple_ads_claims WHERE install_id = 'p-1'")! }
        #expect(try stored.optionalString("conversion_type") == "Preorder")

        let report = try await w.server.admin.get("/v1/reports/apple-ads?workspaceId=\(w.server.defaultWorkspace.id)").decoded(AppleAdsReport.self)
        let rows = report.rows.map { "\($0.outcome)|\($0.conversionType ?? "")|\($0.claims)" }
        #expect(rows == ["attributed|Download|1", "attributed|Preorder|1", "not_attributed_by_apple||2", "unanswered||1", "invalid||1"],
                "Apple's developer-mode sample stays out: \(rows)")
        #expect(report.rows.first { $0.outcome == "not_attributed_by_apple" }?.label == "Not attributed by Apple")
        let csv = await w.server.admin.get("/v1/reports/apple-ads?workspaceId=\(w.server.defaultWorkspace.id)", headers: [("Accept", "text/csv")])
        #expect(csv.bodyText.contains("attributed,Preorder,Attributed to Apple Ads (Preorder),1\r\n"), "\(csv.bodyText)")
        #expect(csv.bodyText.contains("unanswered,,No answer from Apple (pending or expired),1\r\n"))
        await A.stop(w)
    }

    @Test("the wait for Apple never goes below two seconds, so an answer Apple held for a second still arrives")
    func timeoutFloor() async throws {
        let fake = try FakeAdServices(logger: Logger(level: .error, sink: .memory()))
        fake.slowAnswerDelay = .milliseconds(1_300)
        let server = try await TestServer.start(clock: ManualClock().wall, appleAdsURL: fake.baseURL, appleAdsTimeoutSeconds: 0.5)
        var settings = server.services.appleAds
        settings.timeoutSeconds = 0.1
        #expect(AppleAdsClaims(services: server.services, settings: settings).settings.timeoutSeconds == AppleAdsClaims.Settings.minimumTimeoutSeconds)
        #expect(AppleAdsClaims.Settings.minimumTimeoutSeconds > 1, "above Apple's one-second hold")
        let app = try await server.createApp(in: server.defaultWorkspace.id)
        let key = try await server.createKey(.publishable, app: app.id).secret
        _ = try await server.client(key).post("/v1/installs/match", MatchInstallRequest(installId: "held", platform: "ios", consent: true)).decoded(InstallMatch.self)
        let started = ContinuousClock.now
        let answer = try await server.client(key).post("/v1/claims/apple-ads", AppleAdsClaimRequest(installId: "held", token: "slow"))
        let waited = ContinuousClock.now - started
        // Configured at half a second, the claim still waits for Apple's held answer (a machine too busy to deliver it
        // within the two seconds may answer pending, but never before the held second is over).
        #expect(waited >= .milliseconds(1_200), "the claim gave up after \(waited)")
        #expect(answer.status == 200 || waited >= .seconds(2), "\(answer.bodyText) after \(waited)")
        await fake.server.shutdown(grace: .seconds(1))
        await server.stop()
    }
}
