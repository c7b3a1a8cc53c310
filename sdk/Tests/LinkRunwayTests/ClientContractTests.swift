import Foundation
@testable import LinkRunway
import Synchronization
import Testing

/// The client contract, request by request, against a stubbed server.
@Suite("Client contract")
struct ClientContractTests {
    @Test("a secret key or a plain-http remote endpoint is refused, whatever is called")
    func configurationRules() async throws {
        let server = StubServer()
        let secret = LinkRunway(endpoint: server.endpoint, publishableKey: "lr_sk_" + String(repeating: "a", count: 48),
                                suiteName: "lr-\(UUID())", session: server.session)
        await secret.setConsent(true)
        await #expect(throws: LinkRunwayError.self) { try await secret.matchInstall() }
        let plain = LinkRunway(endpoint: URL(string: "http://api.example.com")!, publishableKey: Fixture.key, suiteName: "lr-\(UUID())",
                               session: server.session)
        await #expect(throws: LinkRunwayError.self) { try await plain.track(type: "OPEN") }
        let local = LinkRunway(endpoint: URL(string: "http://localhost:8080")!, publishableKey: Fixture.key, suiteName: "lr-\(UUID())",
                               session: server.session)
        #expect(await local.configurationError == nil, "http is fine on this machine")
        #expect(server.requests.isEmpty)
    }

    @Test("without consent nothing is sent or stored; shares and codes throw; remembered app ids apply on consent")
    func consentGates() async throws {
        let server = StubServer { request in
            request.path.hasPrefix("/v1/mobile/config") ? .init(status: 200, json: #"{"appId":"app_1","refreshSeconds":86400}"#) : .init(status: 500, json: "{}")
        }
        let runway = Fixture.runway(server)
        #expect(try await runway.matchInstall() == nil)
        #expect(try await runway.track(type: "OPEN") == nil)
        #expect(try await runway.open(URL(string: "https://go.example/x")!) == nil)
        #expect(await runway.installId() == nil)
        await #expect(throws: LinkRunwayError.consentRequired) { try await runway.createShare(appPath: "/x") }
        await #expect(throws: LinkRunwayError.consentRequired) { try await runway.createReferralCode() }
        #expect(try await runway.configureConversions(appId: "app_1") == nil)
        #expect(server.requests.isEmpty, "nothing left the app")
        await runway.setConsent(true)
        #expect(server.paths() == ["GET /v1/mobile/config/app_1"], "the remembered app id is used once consent is given")
        let id = try #require(await runway.installId())
        #expect(id == id.lowercased() && UUID(uuidString: id) != nil)
    }

    @Test("matchInstall: the request, the stored answer, one request for concurrent calls, and the click token on later events")
    func matching() async throws {
        let server = StubServer { request in
            request.path == "/v1/installs/match" ? Fixture.matched() : Fixture.stored
        }
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        async let first = runway.matchInstall()
        async let second = runway.matchInstall()
        let (a, b) = try await (first, second)
        #expect(a == b && a?.matched == true && a?.method == .referrer && a?.path == "/welcome" && a?.metadata == #"{"k":"v"}"#)
        #expect(try await runway.matchInstall() == a)
        #expect(server.paths() == ["POST /v1/installs/match"])
        let request = server.requests[0]
        let installId = try #require(await runway.installId())
        #expect(request.body?["installId"] as? String == installId)
        #expect(request.body?["platform"] as? String == "ios" && request.body?["osVersion"] as? String == "17.4")
        #expect(request.body?["language"] as? String == "en-GB" && request.body?["consent"] as? Bool == true)
        #expect(request.headers["authorization"] == "Bearer \(Fixture.key)")
        #expect(request.headers["user-agent"] == "LinkRunwaySDK/\(LinkRunway.version) iOS")
        try await runway.track(type: "SIGNUP", userId: "u-1")
        let event = try #require(server.requests.last?.body)
        #expect(event["clickToken"] as? String == "clk-1" && event["installId"] as? String == installId && event["userId"] as? String == "u-1")
        #expect(UUID(uuidString: event["eventId"] as? String ?? "") != nil && event["timestamp"] as? String != nil)
    }

    @Test("the install secret: made with the install id, sent with the match and when forgetting, gone with the withdrawal")
    func installSecret() async throws {
        let server = StubServer { request in
            request.path == "/v1/installs/match" ? Fixture.matched() : StubServer.Reply(status: 200, json: #"{"deleted":{}}"#)
        }
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        _ = try await runway.matchInstall()
        let secret = try #require(server.requests[0].body?["installSecret"] as? String)
        #expect(secret.count == 32 && secret.allSatisfy { $0.isLetter || $0.isNumber })
        let installId = try #require(await runway.installId())
        try await runway.forgetInstallation()
        let forget = try #require(server.requests.last)
        #expect(forget.path == "/v1/installs/\(installId)/forget" && forget.headers["linkrunway-install-secret"] == secret)
        // Consent given again: a new installation, a new secret that nothing links to the old one.
        await runway.setConsent(true)
        let again = await runway.installSecret()
        #expect(again != secret)
    }

    @Test("tvOS reports itself as tvos; links resolve as ios everywhere")
    func platforms() async throws {
        let server = StubServer { request in
            request.path == "/v1/resolve"
                ? .init(status: 200, json: #"{"linkId":"lnk_1","url":"https://go.example/x","appPath":"/x","clickToken":"clk-9","signedClickId":"s"}"#)
                : .init(status: 200, json: #"{"matched":false,"method":"unmatched"}"#)
        }
        let runway = Fixture.runway(server, platform: "tvos")
        await runway.setConsent(true)
        _ = try await runway.matchInstall()
        #expect(server.requests[0].body?["platform"] as? String == "tvos")
        let link = try #require(try await runway.open(URL(string: "https://go.example/x?AdAttributionKitReengagementOpen=tag-7")!))
        #expect(link.clickToken == "clk-9" && link.path == "/x")
        #expect(server.requests[1].body?["platform"] as? String == "ios")
        let storage = await runway.storage
        #expect(storage.string(.conversionTag) == "tag-7")
    }

    @Test("three tries on 429, 5xx and network errors, then LinkRunwayError.server; a 400 is not retried")
    func retries() async throws {
        let tries = Mutex(0)
        let clock = TestClock()
        let server = StubServer { _ in
            let n = tries.withLock { $0 += 1; return $0 }
            return n == 1 ? .init(status: 503, json: "{}") : n == 2 ? .init(status: 0, json: "") : Fixture.stored
        }
        let runway = Fixture.runway(server, clock: clock)
        await runway.setConsent(true)
        #expect(try await runway.track(type: "OPEN")?.status == "stored")
        #expect(server.requests.count == 3)
        #expect(clock.waits.withLock { $0 } == [0.5, 1.0], "backing off between tries")
        server.answer { _ in .init(status: 503, json: #"{"error":{"code":"store_unavailable"}}"#) }
        await #expect(throws: LinkRunwayError.server(status: 503, body: #"{"error":{"code":"store_unavailable"}}"#)) { try await runway.track(type: "OPEN") }
        #expect(server.requests.count == 6)
        server.answer { _ in .init(status: 400, json: "{}") }
        await #expect(throws: LinkRunwayError.self) { try await runway.track(type: "OPEN") }
        #expect(server.requests.count == 7)
    }

    @Test("track refuses revenue; install is sent once, also after consent is withdrawn and given again")
    func installOnce() async throws {
        let server = StubServer { _ in Fixture.stored }
        let suite = "lr-\(UUID())"
        let runway = Fixture.runway(server, suite: suite)
        await runway.setConsent(true)
        await #expect(throws: LinkRunwayError.self) { try await runway.track(type: "PURCHASE") }
        try await runway.install()
        try await runway.install()
        #expect(server.requests.filter { $0.body?["type"] as? String == "INSTALL" }.count == 1)
        let first = await runway.installId()
        await runway.setConsent(false)
        #expect(await runway.installId() == nil)
        await runway.setConsent(true)
        #expect(await runway.installId() != first, "a new identity after consent is given again")
        try await runway.install()
        #expect(server.requests.filter { $0.body?["type"] as? String == "INSTALL" }.count == 1, "the same installation is not reported twice")
        let again = Fixture.runway(server, suite: suite)
        #expect(await again.installId() != nil, "state survives a relaunch")
    }

    @Test("an answer that arrives after consent was withdrawn is discarded, even if consent came back")
    func lateAnswers() async throws {
        let server = StubServer { request in
            var reply = Fixture.matched()
            reply.delay = 1.0
            return reply
        }
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        async let late = runway.matchInstall()
        while server.requests.isEmpty { try await Task.sleep(nanoseconds: 10_000_000) }
        await runway.setConsent(false)
        await runway.setConsent(true)
        #expect(try await late == nil)
        let storage = await runway.storage
        #expect(storage.string(.match) == nil && storage.string(.clickToken) == nil)
    }

    @Test("Apple Ads: a 202 is retried at most three times at the server's pace (capped at 30 s), and the claim is made once")
    func appleAds() async throws {
        let calls = Mutex(0)
        let clock = TestClock()
        let server = StubServer { _ in
            let n = calls.withLock { $0 += 1; return $0 }
            return n < 3 ? .init(status: 202, json: #"{"installId":"i","status":"pending","retryAfter":\#(n == 1 ? 60 : 5),"testData":false}"#)
                : .init(status: 200, json: #"{"installId":"i","status":"attributed","attribution":{"campaignId":"42","adGroupId":"7"},"testData":false}"#)
        }
        let runway = Fixture.runway(server, clock: clock, adServices: FakeAdServices(token: "tok"))
        await runway.setConsent(true)
        let claim = try #require(try await runway.submitAdServicesToken())
        #expect(claim.status == "attributed" && claim.campaignId == "42")
        #expect(clock.waits.withLock { $0 } == [30, 5])
        #expect(server.requests[0].body?["token"] as? String == "tok")
        #expect(try await runway.submitAdServicesToken() == nil)
        #expect(server.requests.count == 3)
        let still = StubServer { _ in .init(status: 202, json: #"{"installId":"i","status":"pending","retryAfter":5,"testData":false}"#) }
        let pending = Fixture.runway(still, adServices: FakeAdServices(token: "tok"))
        await pending.setConsent(true)
        #expect(try await pending.submitAdServicesToken()?.status == "pending")
        #expect(still.requests.count == 4, "one try and three retries")
        let none = Fixture.runway(still)
        await none.setConsent(true)
        #expect(try await none.submitAdServicesToken() == nil, "no AdServices on this platform")
    }

    @Test("affiliate binds send the click id, code or surface with the install id, and return the server's token")
    func affiliates() async throws {
        let server = StubServer { _ in .init(status: 200, json: #"{"appAccountToken":"6d1f7bd8-5e3a-4e39-9a7a-0f6e1f5c2b11","offerCode":"ALICE20"}"#) }
        let runway = Fixture.runway(server)
        #expect(try await runway.bindAffiliate(refCode: "ALICE") == nil)
        await runway.setConsent(true)
        let binding = try #require(try await runway.bindAffiliate(refCode: "ALICE"))
        #expect(binding.appAccountToken == UUID(uuidString: "6d1f7bd8-5e3a-4e39-9a7a-0f6e1f5c2b11") && binding.offerCode == "ALICE20")
        _ = try await runway.bindAffiliate(signedClickId: "payload.sig")
        _ = try await runway.bindAffiliateDeferred(surfaceId: "sfc_1")
        #expect(server.paths() == ["POST /v1/app-store/bind", "POST /v1/app-store/bind", "POST /v1/app-store/bind/deferred"])
        let installId = await runway.installId()
        #expect(server.requests[0].body?["refCode"] as? String == "ALICE" && server.requests[0].body?["installId"] as? String == installId)
        #expect(server.requests[1].body?["signedClickId"] as? String == "payload.sig")
        #expect(server.requests[2].body?["surfaceId"] as? String == "sfc_1")
    }

    @Test("SHA-256 matches the standard's vectors")
    func sha256() {
        func hex(_ text: String) -> String { SHA256.hash(Array(text.utf8)).map { String(format: "%02x", $0) }.joined() }
        #expect(hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(hex(String(repeating: "a", count: 1000)) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }
}
