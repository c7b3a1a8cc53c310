import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import LinkRunway
import Synchronization
import Testing

/// Setup, headers, retries and where state is kept: the contract every request follows.
@Suite("Client contract")
struct ClientContractTests {
    /// A LinkRunway on any endpoint, through the stub protocol (a host no StubServer owns fails to connect).
    static func runway(endpoint: String, key: String = Fixture.key, clock: TestClock = TestClock()) -> LinkRunway {
        let dependencies = LinkRunwayDependencies(device: DeviceInfo(platform: "ios", osVersion: "17.4", language: "en-GB"),
                                                  adServices: FakeAdServices(token: "tok"), now: { clock.now },
                                                  sleep: { seconds in clock.waits.withLock { $0.append(seconds) } })
        return LinkRunway(endpoint: URL(string: endpoint)!, publishableKey: key, suiteName: Fixture.suite(), session: StubServer().session,
                          dependencies: dependencies)
    }

    @Test("a key that is not a publishable key (lr_pk_) makes every call throw invalidConfiguration",
          arguments: ["lr_sk_" + String(repeating: "a", count: 48), "sk_live_abcdefghijklmnopqrstuvwxyz", "LR_PK_abcdefghijklmnopqrstuvwxyz", ""])
    func onlyPublishableKeys(key: String) async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server, adServices: FakeAdServices(token: "tok"), key: key)
        await runway.setConsent(true)
        let calls: [(String, () async throws -> Void)] = [
            ("matchInstall", { _ = try await runway.matchInstall() }),
            ("track", { _ = try await runway.track(type: "SIGNUP") }),
            ("install", { try await runway.install() }),
            ("open", { _ = try await runway.open(URL(string: "https://go.example/x")!) }),
            ("createShare", { _ = try await runway.createShare(appPath: "/x") }),
            ("createReferralCode", { _ = try await runway.createReferralCode() }),
            ("configureConversions", { _ = try await runway.configureConversions(appId: "app_1") }),
            ("submitAdServicesToken", { _ = try await runway.submitAdServicesToken() }),
            ("bindAffiliate(signedClickId:)", { _ = try await runway.bindAffiliate(signedClickId: "p.s") }),
            ("bindAffiliate(refCode:)", { _ = try await runway.bindAffiliate(refCode: "ALICE") }),
            ("bindAffiliateDeferred", { _ = try await runway.bindAffiliateDeferred(surfaceId: "sfc_1") }),
            ("forgetInstallation", { try await runway.forgetInstallation() }),
        ]
        for (name, call) in calls {
            let error = await thrown(call)
            #expect(isInvalidConfiguration(error), "\(name) threw \(String(describing: error))")
        }
        #expect(await runway.installId() == nil)
        #expect(server.requests.isEmpty)
    }

    @Test("the endpoint must be https, or http on localhost, 127.0.0.1 or ::1; others make calls throw invalidConfiguration")
    func endpointRule() async throws {
        for endpoint in ["http://api.example.com", "http://localhost.example.com", "http://127.0.0.2", "ftp://localhost/x"] {
            let runway = Self.runway(endpoint: endpoint)
            await runway.setConsent(true)
            let error = await thrown { _ = try await runway.track(type: "SIGNUP") }
            #expect(isInvalidConfiguration(error), "\(endpoint): \(String(describing: error))")
        }
        for endpoint in ["https://api.example.com", "http://localhost:8080", "http://127.0.0.1:3000", "http://[::1]:8080"] {
            let runway = Self.runway(endpoint: endpoint)
            await runway.setConsent(true)
            let error = await thrown { _ = try await runway.track(type: "SIGNUP") }
            // Accepted: the request is attempted, and fails to connect because no stub owns the host.
            #expect((error as? URLError)?.code == .cannotConnectToHost, "\(endpoint): \(String(describing: error))")
        }
    }

    @Test("every request carries Authorization: Bearer <key>, JSON headers and the user agent LinkRunwaySDK/1.2.0 iOS")
    func headers() async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        _ = try await runway.configureConversions(appId: "app_1")
        _ = try await runway.matchInstall()
        try await runway.track(type: "SIGNUP")
        #expect(server.paths() == ["GET /v1/mobile/config/app_1", "POST /v1/installs/match", "POST /v1/events"])
        for request in server.requests {
            #expect(request.headers["authorization"] == "Bearer lr_pk_" + String(repeating: "a", count: 48))
            #expect(request.headers["user-agent"] == "LinkRunwaySDK/1.2.0 iOS")
            #expect(request.headers["accept"] == "application/json")
        }
        #expect(server.requests.filter { $0.method == "POST" }.allSatisfy { $0.headers["content-type"] == "application/json" })
    }

    @Test("on tvOS the user agent is LinkRunwaySDK/1.2.0 tvOS")
    func tvOSUserAgent() async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server, platform: "tvos")
        await runway.setConsent(true)
        _ = try await runway.matchInstall()
        try await runway.track(type: "SIGNUP")
        #expect(server.requests.count == 2)
        #expect(server.requests.allSatisfy { $0.headers["user-agent"] == "LinkRunwaySDK/1.2.0 tvOS" })
    }

    @Test("three tries on 429, 5xx and network errors, backing off 0.5 s then 1 s")
    func threeTries() async throws {
        for failures in [[StubServer.Reply(status: 503, json: "{}"), .failure(.networkConnectionLost)],
                         [StubServer.Reply(status: 429, json: "{}"), StubServer.Reply(status: 500, json: "{}")]] {
            let replies = Mutex(failures)
            let clock = TestClock()
            let server = StubServer { request in replies.withLock { $0.isEmpty ? Fixture.ack(request) : $0.removeFirst() } }
            let runway = Fixture.runway(server, clock: clock)
            await runway.setConsent(true)
            let receipt = try await runway.track(type: "SIGNUP", eventId: "evt-1")
            #expect(receipt == EventReceipt(eventId: "evt-1", status: "stored"))
            #expect(server.requests.count == 3)
            #expect(Set(server.events.map { $0["eventId"] as? String }) == ["evt-1"], "the same request each time")
            #expect(clock.slept == [0.5, 1.0])
        }
    }

    @Test("a 429 with Retry-After waits that long, at most 30 s")
    func retryAfter() async throws {
        let replies = Mutex([StubServer.Reply(status: 429, json: "{}", headers: ["Retry-After": "7"]),
                             StubServer.Reply(status: 429, json: "{}", headers: ["Retry-After": "120"])])
        let clock = TestClock()
        let server = StubServer { request in replies.withLock { $0.isEmpty ? Fixture.ack(request) : $0.removeFirst() } }
        let runway = Fixture.runway(server, clock: clock)
        await runway.setConsent(true)
        #expect(try await runway.track(type: "SIGNUP")?.status == "stored")
        #expect(server.requests.count == 3)
        #expect(clock.slept == [7, 30])
    }

    @Test("after three failures the call throws LinkRunwayError.server(status:body:), or the URLError itself")
    func errorsAfterThreeTries() async throws {
        let clock = TestClock()
        let server = StubServer { _ in .init(status: 503, json: #"{"error":{"code":"store_unavailable"}}"#) }
        let runway = Fixture.runway(server, clock: clock)
        await runway.setConsent(true)
        await #expect(throws: LinkRunwayError.server(status: 503, body: #"{"error":{"code":"store_unavailable"}}"#)) {
            try await runway.matchInstall()
        }
        #expect(server.paths() == Array(repeating: "POST /v1/installs/match", count: 3))
        #expect(clock.slept == [0.5, 1.0])

        let offlineClock = TestClock()
        let offline = StubServer { _ in .failure(.timedOut) }
        let unreachable = Fixture.runway(offline, clock: offlineClock)
        await unreachable.setConsent(true)
        let error = await thrown { _ = try await unreachable.matchInstall() }
        #expect((error as? URLError)?.code == .timedOut, "\(String(describing: error))")
        #expect(offline.requests.count == 3)
        #expect(offlineClock.slept == [0.5, 1.0])
    }

    @Test("a 400 is not retried: one request, no wait, LinkRunwayError.server(400, body)")
    func badRequestNotRetried() async throws {
        let clock = TestClock()
        let server = StubServer { _ in .init(status: 400, json: #"{"error":{"code":"invalid_body"}}"#) }
        let runway = Fixture.runway(server, clock: clock)
        await runway.setConsent(true)
        await #expect(throws: LinkRunwayError.server(status: 400, body: #"{"error":{"code":"invalid_body"}}"#)) {
            try await runway.matchInstall()
        }
        #expect(server.requests.count == 1)
        #expect(clock.slept.isEmpty)
    }

    @Test("storage is scoped by endpoint and the key's first 20 characters")
    func storageScope() async throws {
        let suite = Fixture.suite()
        let first = StubServer(Fixture.standard), second = StubServer(Fixture.standard)
        let samePrefix = "lr_pk_" + String(repeating: "a", count: 14) + String(repeating: "b", count: 34)
        let otherPrefix = "lr_pk_" + String(repeating: "a", count: 13) + String(repeating: "c", count: 35)
        #expect(samePrefix.prefix(20) == Fixture.key.prefix(20) && otherPrefix.prefix(20) != Fixture.key.prefix(20))

        let base = Fixture.runway(first, suite: suite)
        await base.setConsent(true)
        let baseId = try #require(await base.installId())

        let otherEndpoint = Fixture.runway(second, suite: suite)
        #expect(await otherEndpoint.installId() == nil, "another endpoint has no consent yet")
        await otherEndpoint.setConsent(true)
        #expect(try #require(await otherEndpoint.installId()) != baseId)

        let otherKey = Fixture.runway(first, key: otherPrefix, suite: suite)
        #expect(await otherKey.installId() == nil)
        await otherKey.setConsent(true)
        let otherKeyId = try #require(await otherKey.installId())
        #expect(otherKeyId != baseId)

        let sameScope = Fixture.runway(first, key: samePrefix, suite: suite)
        #expect(await sameScope.installId() == baseId, "same endpoint and same 20-character prefix: the same identity")
    }

    @Test("everything the SDK writes is under its prefix (linkrunway.<endpoint>.<key prefix>.)")
    func everythingUnderPrefix() async throws {
        let suite = Fixture.suite()
        let defaults = try #require(UserDefaults(suiteName: suite))
        let before = Set(defaults.dictionaryRepresentation().keys)
        let server = StubServer(Fixture.standard)
        let log = ConversionLog()
        let runway = Fixture.runway(server, frameworks: log.frameworks, adServices: FakeAdServices(token: "tok"),
                                    appAttest: FakeAppAttest(), suite: suite)
        await runway.setConsent(true)
        await runway.attest(appId: "app_1")
        _ = try await runway.configureConversions(appId: "app_1")
        _ = try await runway.matchInstall()
        try await runway.install()
        _ = try await runway.submitAdServicesToken()
        await runway.conversionQueue?.value
        let written = Set(defaults.dictionaryRepresentation().keys).subtracting(before)
        let prefix = "linkrunway.\(server.host).lr_pk_aaaaaaaaaaaaaa."
        #expect(written.count >= 10, "\(written.sorted())")
        #expect(written.allSatisfy { $0.hasPrefix(prefix) }, "\(written.sorted())")
        #expect(Set(await runway.storage.everything.keys) == written)
    }
}
