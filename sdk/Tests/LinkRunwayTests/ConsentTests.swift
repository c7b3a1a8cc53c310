import Foundation
@testable import LinkRunway
import Synchronization
import Testing

/// Consent: nothing without it, the install identity, withdrawal, late answers, and forgetting an installation.
@Suite("Consent")
struct ConsentTests {
    /// The SDK's key names among what it stored, without their prefix.
    static func names(_ stored: [String: Any]) -> Set<String> { Set(stored.keys.compactMap { $0.split(separator: ".").last.map(String.init) }) }

    @Test("without consent no call sends anything or stores more than the first launch's time, and each returns nil (or 0)")
    func nothingWithoutConsent() async throws {
        let server = StubServer(Fixture.standard)
        let log = ConversionLog()
        let attest = FakeAppAttest()
        let runway = Fixture.runway(server, postbackRegistered: false, frameworks: log.frameworks, adServices: FakeAdServices(token: "tok"), appAttest: attest,
                                    appTransaction: FakeAppTransaction(id: "atx-1"))
        #expect(try await runway.matchInstall() == nil)
        #expect(try await runway.track(type: "SIGNUP", userId: "u-1") == nil)
        try await runway.install()
        #expect(try await runway.open(URL(string: "https://go.example/x?AdAttributionKitReengagementOpen=t-1")!) == nil)
        #expect(try await runway.bindAffiliate(signedClickId: "p.s") == nil)
        #expect(try await runway.bindAffiliate(refCode: "ALICE") == nil)
        #expect(try await runway.bindAffiliateDeferred(surfaceId: "sfc_1") == nil)
        #expect(try await runway.submitAdServicesToken() == nil)
        #expect(await runway.recordConversion(event: "SIGNUP") == nil)
        #expect(try await runway.configureConversions(appId: "app_1") == nil)
        #expect(await runway.sendPendingEvents() == 0)
        await runway.attest(appId: "app_1")
        try await runway.forgetInstallation()
        #expect(await runway.installId() == nil)
        #expect(server.requests.isEmpty)
        #expect(Self.names(await runway.storage.everything) == ["firstLaunchAt"], "the first launch's time only, never sent")
        #expect(attest.keys.isEmpty && log.all.isEmpty)
    }

    @Test("without consent createShare and createReferralCode throw consentRequired and send nothing")
    func sharesNeedConsent() async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server, postbackRegistered: false)
        await #expect(throws: LinkRunwayError.consentRequired) { try await runway.createShare(appPath: "/x") }
        await #expect(throws: LinkRunwayError.consentRequired) { try await runway.createReferralCode(userId: "u-1") }
        #expect(server.requests.isEmpty)
        #expect(Self.names(await runway.storage.everything) == ["firstLaunchAt"], "the first launch's time only, never sent")
    }

    @Test("configureConversions and attest remember the app id without consent and act once it is given")
    func rememberedAppIds() async throws {
        let server = StubServer(Fixture.standard)
        let attest = FakeAppAttest()
        let runway = Fixture.runway(server, postbackRegistered: false, appAttest: attest)
        _ = try await runway.configureConversions(appId: "app_7")
        await runway.attest(appId: "app_7")
        #expect(server.requests.isEmpty)
        await runway.setConsent(true)
        #expect(server.paths().sorted() == ["GET /v1/mobile/config/app_7", "POST /v1/attest/apple/challenge", "POST /v1/attest/apple/register"])
        #expect(server.requests(to: "/v1/attest/apple/register").first?.body?["appId"] as? String == "app_7")
        let storage = await runway.storage
        #expect(storage.string(.schema) != nil && storage.string(.attestToken) == "att-token")
    }

    @Test("the install id: nil without consent, a lower-case UUID kept across launches, deleted on withdrawal, a new one on new consent")
    func installIdLifecycle() async throws {
        let server = StubServer(Fixture.standard)
        let suite = Fixture.suite()
        let runway = Fixture.runway(server, postbackRegistered: false, suite: suite)
        #expect(await runway.installId() == nil)
        await runway.setConsent(true)
        let id = try #require(await runway.installId())
        #expect(UUID(uuidString: id) != nil && id == id.lowercased() && id != id.uppercased())
        let later = Fixture.runway(server, postbackRegistered: false, suite: suite)
        #expect(await later.installId() == id)
        await later.setConsent(true)
        #expect(await later.installId() == id, "consent given again on a later launch keeps the id")
        await later.setConsent(false)
        #expect(await later.installId() == nil)
        #expect(await later.storage.string(.installId) == nil)
        await later.setConsent(true)
        let second = try #require(await later.installId())
        #expect(second != id && UUID(uuidString: second) != nil && second == second.lowercased())
    }

    @Test("withdrawal keeps only installReported, adServicesReported, matchRequested, the first launch's time and the postback registration, none an identifier")
    func withdrawalKeepsThreeBooleans() async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server, postbackRegistered: false, frameworks: ConversionLog().frameworks, adServices: FakeAdServices(token: "tok"),
                                    appAttest: FakeAppAttest())
        await runway.setConsent(true)
        await runway.attest(appId: "app_1")
        _ = try await runway.configureConversions(appId: "app_1")
        _ = try await runway.matchInstall()
        try await runway.install()
        _ = try await runway.submitAdServicesToken()
        try await runway.track(type: "SIGNUP")
        let installId = try #require(await runway.installId())
        await runway.setConsent(false)
        let left = await runway.storage.everything
        let prefix = "linkrunway.\(server.host).lr_pk_aaaaaaaaaaaaaa."
        #expect(Set(left.keys) == [prefix + "installReported", prefix + "adServicesReported", prefix + "matchRequested", prefix + "firstLaunchAt",
                                   prefix + "postbackRegistered"])
        #expect(left.filter { !$0.key.hasSuffix(".firstLaunchAt") }.values.allSatisfy { ($0 as? Bool) == true }, "\(left)")
        #expect(left[prefix + "firstLaunchAt"] as? Double == 1_790_000_000, "the start's time, as the SDK was made")
        #expect(!left.values.contains { "\($0)".contains(installId) })
    }

    @Test("a match answer that arrives after withdrawal is discarded, even if consent came back")
    func lateMatch() async throws {
        let release = Locked(false)
        let server = StubServer { _ in Fixture.matched().held(by: release) }
        let runway = Fixture.runway(server, postbackRegistered: false)
        await runway.setConsent(true)
        async let late = runway.matchInstall()
        try await Fixture.waitForRequests(server)
        await runway.setConsent(false)
        await runway.setConsent(true)
        release.set(true)
        #expect(try await late == nil)
        let storage = await runway.storage
        #expect(storage.string(.match) == nil && storage.string(.clickToken) == nil)
    }

    @Test("an event answer that arrives after withdrawal is discarded, even if consent came back")
    func lateEvent() async throws {
        let release = Locked(false)
        let server = StubServer { request in Fixture.ack(request).held(by: release) }
        let log = ConversionLog()
        let runway = Fixture.runway(server, frameworks: log.frameworks)
        await runway.setConsent(true)
        async let late = runway.track(type: "SIGNUP", eventId: "evt-late")
        try await Fixture.waitForRequests(server)
        await runway.setConsent(false)
        await runway.setConsent(true)
        release.set(true)
        #expect(try await late == nil)
        #expect(await runway.storage.string(.outbox) == nil)
        #expect(await runway.sendPendingEvents() == 0)
        #expect(server.requests.count == 1, "the discarded event is not sent under the new identity")
    }

    @Test("an event acknowledged after withdrawal updates no conversion value, even if consent came back and the schema has a rule for it")
    func lateEventNoConversion() async throws {
        let release = Locked(false)
        let server = StubServer { request in
            request.path == "/v1/events" ? Fixture.ack(request).held(by: release) : Fixture.standard(request)
        }
        let log = ConversionLog()
        let runway = Fixture.runway(server, frameworks: log.frameworks)
        await runway.setConsent(true)
        #expect(try await runway.configureConversions(appId: "app_1") == 3)
        async let late = runway.track(type: "SIGNUP", eventId: "evt-late")
        try await Fixture.waitForRequests(server, 2)
        #expect(server.paths().last == "POST /v1/events")
        await runway.setConsent(false)
        await runway.setConsent(true)
        #expect(await runway.storedSchema != nil, "the new identity has the schema again, with its SIGNUP rule")
        release.set(true)
        #expect(try await late == nil)
        await runway.conversionQueue?.value
        #expect(log.all.isEmpty, "the withdrawn identity's event reaches neither SKAdNetwork nor AdAttributionKit")
        #expect(await runway.storage.int(.highestFine) == nil)
    }

    @Test("an attestation answer that arrives after withdrawal is discarded: no key id and no token are stored")
    func lateAttestation() async throws {
        let challenges = Mutex(0)
        let release = Locked(false)
        let server = StubServer { request in
            switch request.path {
            case "/v1/attest/apple/challenge":
                // The first challenge is granted; the attempt made on consent given again is refused.
                let n = challenges.withLock { $0 += 1; return $0 }
                return n == 1 ? .init(status: 201, json: #"{"challenge":"ch-1","expiresAt":"x"}"#) : .init(status: 409, json: #"{"error":{"code":"attestation_off"}}"#)
            case "/v1/attest/apple/register":
                return StubServer.Reply(status: 201, json: #"{"token":"late-token","expiresAt":"2030-01-01T00:00:00.000Z","environment":"production"}"#)
                    .held(by: release)
            default: return Fixture.standard(request)
            }
        }
        let attest = FakeAppAttest()
        let runway = Fixture.runway(server, postbackRegistered: false, appAttest: attest)
        await runway.setConsent(true)
        async let attesting: Void = runway.attest(appId: "app_1")
        try await Fixture.waitForRequests(server, 2)
        #expect(server.paths().last == "POST /v1/attest/apple/register")
        await runway.setConsent(false)
        await runway.setConsent(true)
        release.set(true)
        await attesting
        let storage = await runway.storage
        #expect(storage.string(.attestToken) == nil)
        #expect(storage.string(.attestKeyId) == nil)
        #expect(attest.keys.count == 1)
    }

    @Test("an Apple Ads answer that arrives after withdrawal is discarded, and the claim in flight counts as made")
    func lateAppleAds() async throws {
        let release = Locked(false)
        let server = StubServer { request in Fixture.standard(request).held(by: release) }
        let runway = Fixture.runway(server, postbackRegistered: false, adServices: FakeAdServices(token: "tok"))
        await runway.setConsent(true)
        async let late = runway.submitAdServicesToken()
        try await Fixture.waitForRequests(server)
        await runway.setConsent(false)
        await runway.setConsent(true)
        release.set(true)
        #expect(try await late == nil)
        let storage = await runway.storage
        #expect(!storage.bool(.adServicesClaimed), "nothing of the answer is kept for the new install id")
        #expect(storage.bool(.adServicesReported), "a claim that may have reached the server counts as made, like the match")
        #expect(try await runway.submitAdServicesToken() == nil)
        #expect(server.requests(to: "/v1/claims/apple-ads").count == 1)
    }

    @Test("a bind answer that arrives after withdrawal is discarded, even if consent came back")
    func lateBind() async throws {
        let release = Locked(false)
        let server = StubServer { request in Fixture.standard(request).held(by: release) }
        let runway = Fixture.runway(server, postbackRegistered: false)
        await runway.setConsent(true)
        async let late = runway.bindAffiliate(refCode: "ALICE")
        try await Fixture.waitForRequests(server)
        await runway.setConsent(false)
        await runway.setConsent(true)
        release.set(true)
        #expect(try await late == nil)
    }

    @Test("an open(_:) answer that arrives after withdrawal is discarded, even if consent came back: nil, and no click token kept")
    func lateOpen() async throws {
        let release = Locked(false)
        let server = StubServer { request in Fixture.standard(request).held(by: release) }
        let runway = Fixture.runway(server, postbackRegistered: false)
        await runway.setConsent(true)
        async let late = runway.open(URL(string: "https://go.example/summer")!)
        try await Fixture.waitForRequests(server)
        await runway.setConsent(false)
        await runway.setConsent(true)
        release.set(true)
        #expect(try await late == nil)
        #expect(await runway.storage.string(.clickToken) == nil)
        try await runway.track(type: "OPEN")
        #expect(server.events.last?["clickToken"] == nil, "the new identity's events carry no click of the old one")
    }

    @Test("forgetInstallation posts /v1/installs/<id>/forget with the match's install secret, then withdraws")
    func forgetInstallation() async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server, postbackRegistered: false)
        await runway.setConsent(true)
        _ = try await runway.matchInstall()
        let secret = try #require(server.requests.first?.body?["installSecret"] as? String)
        let installId = try #require(await runway.installId())
        try await runway.forgetInstallation()
        let forget = try #require(server.requests.last)
        #expect(forget.method == "POST" && forget.path == "/v1/installs/\(installId)/forget")
        #expect(forget.headers["linkrunway-install-secret"] == secret)
        #expect(await runway.installId() == nil)
        let left = await runway.storage.everything
        #expect(Self.names(left).isSubset(of: ["installReported", "adServicesReported", "matchRequested", "firstLaunchAt"]))
        #expect(left.keys.contains { $0.hasSuffix(".matchRequested") })
    }

    @Test("when forgetInstallation fails it throws and everything is kept")
    func forgetFails() async throws {
        let server = StubServer { request in
            request.path.hasSuffix("/forget") ? .init(status: 500, json: #"{"error":{"code":"internal"}}"#) : Fixture.standard(request)
        }
        let runway = Fixture.runway(server, postbackRegistered: false)
        await runway.setConsent(true)
        _ = try await runway.matchInstall()
        let installId = try #require(await runway.installId())
        let before = await runway.storage.everything
        await #expect(throws: LinkRunwayError.server(status: 500, body: #"{"error":{"code":"internal"}}"#)) {
            try await runway.forgetInstallation()
        }
        #expect(server.requests(to: "/v1/installs/\(installId)/forget").count == 3)
        #expect(await runway.installId() == installId)
        let after = await runway.storage.everything
        func described(_ values: [String: Any]) -> [String] { values.map { "\($0.key)=\($0.value)" }.sorted() }
        #expect(before.count >= 7)
        #expect(described(after) == described(before))
    }
}
