import Foundation
@testable import LinkRunway
import Synchronization
import Testing

/// First-launch matching, links and platforms.
@Suite("Matching")
struct MatchingTests {
    @Test("the match body holds exactly installId, platform, osVersion, language, consent and installSecret")
    func matchBody() async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        _ = try await runway.matchInstall()
        #expect(server.paths() == ["POST /v1/installs/match"])
        let body = try #require(server.requests.first?.body)
        #expect(Set(body.keys) == ["installId", "platform", "osVersion", "language", "consent", "installSecret"])
        let currentId = await runway.installId()
        #expect(body["installId"] as? String == currentId)
        #expect(body["platform"] as? String == "ios")
        #expect(body["osVersion"] as? String == "17.4")
        #expect(body["language"] as? String == "en-GB")
        #expect(body["consent"] as? Bool == true)
        let secret = try #require(body["installSecret"] as? String)
        #expect(secret.count == 32 && secret.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
    }

    @Test("a first report sends Apple's signed app transaction as signedAppTransaction, with its id as appTransactionId")
    func appTransactionId() async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server, appTransaction: FakeAppTransaction(id: "2000000123456789", jws: "eyJhbGciOiJFUzI1NiJ9.e30.c2ln"))
        await runway.setConsent(true)
        _ = try await runway.matchInstall()
        #expect(server.requests.first?.body?["appTransactionId"] as? String == "2000000123456789")
        #expect(server.requests.first?.body?["signedAppTransaction"] as? String == "eyJhbGciOiJFUzI1NiJ9.e30.c2ln")
    }

    @Test("iOS 27's AppTransaction.all goes as signedAppTransactions, at most eight, with a first report only")
    func allAppTransactions() async throws {
        let server = StubServer(Fixture.standard)
        let all = (1...10).map { "eyJhbGciOiJFUzI1NiJ9.e30.\($0)" }
        let suite = Fixture.suite()
        let runway = Fixture.runway(server, appTransaction: FakeAppTransaction(id: "2000000123456789", jws: all[0], all: all), suite: suite)
        await runway.setConsent(true)
        _ = try await runway.matchInstall()
        #expect(server.requests.first?.body?["signedAppTransactions"] as? [String] == Array(all.prefix(8)))
        await runway.setConsent(false)
        await runway.setConsent(true)
        _ = try await runway.matchInstall()
        #expect(server.requests.last?.body?["returning"] as? Bool == true && server.requests.last?.body?["signedAppTransactions"] == nil)
        let none = StubServer(Fixture.standard)
        let earlier = Fixture.runway(none, appTransaction: FakeAppTransaction(id: "2000000123456789"))
        await earlier.setConsent(true)
        _ = try await earlier.matchInstall()
        #expect(none.requests.first?.body?["signedAppTransactions"] == nil, "nothing to send: no empty list")
    }

    @Test("App Attest unsupported where it should be is sent as appAttestSupported false; nothing where it is not expected")
    func appAttestSupport() async throws {
        for (supported, expected, sent) in [(false, true, false as Bool?), (true, true, true), (false, false, nil)] {
            let server = StubServer(Fixture.standard)
            let attest = FakeAppAttest()
            attest.isSupported = supported
            attest.isExpected = expected
            let runway = Fixture.runway(server, appAttest: attest)
            await runway.setConsent(true)
            _ = try await runway.matchInstall()
            #expect(server.requests(to: "/v1/installs/match").first?.body?["appAttestSupported"] as? Bool == sent)
        }
    }

    @Test("StoreKit answering too late holds the match no longer than Apple's call deadline: the match goes without the app transaction")
    func hangingAppTransaction() async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server, appTransaction: FakeAppTransaction(id: "2000000123456789", jws: "a.b.c", all: ["a.b.c"], hangs: 60))
        await runway.setConsent(true)
        let started = Date()
        _ = try await runway.matchInstall()
        #expect(Date().timeIntervalSince(started) < 40, "three calls of 60 s each, given up after 5 s each")
        let body = try #require(server.requests(to: "/v1/installs/match").first?.body)
        #expect(body["appTransactionId"] == nil && body["signedAppTransaction"] == nil && body["signedAppTransactions"] == nil)
    }

    @Test("App Attest is expected on iPhone, iPad and Apple TV devices, on a Mac (Mac app, Catalyst, iPhone app) from macOS 27, never on a simulator or in an extension")
    func appAttestExpectation() {
        typealias E = AppAttestExpectation
        #expect(E.expected(host: .device, system: .iOS, version27OrLater: false))
        #expect(E.expected(host: .device, system: .tvOS, version27OrLater: false))
        for system in [E.System.macOS, .macCatalyst, .iOSAppOnMac] {
            #expect(!E.expected(host: .device, system: system, version27OrLater: false), "\(system) before 27")
            #expect(E.expected(host: .device, system: system, version27OrLater: true), "\(system) from 27")
        }
        for system in [E.System.iOS, .tvOS, .macOS, .macCatalyst, .iOSAppOnMac] {
            #expect(!E.expected(host: .simulator, system: system, version27OrLater: true))
            #expect(!E.expected(host: .appExtension, system: system, version27OrLater: true))
        }
    }

    @Test("a server older than signedAppTransactions and appAttestSupported refuses them as unknown: the match goes again without them")
    func olderServer() async throws {
        let server = StubServer { request in
            guard request.path == "/v1/installs/match" else { return Fixture.standard(request) }
            for field in ["signedAppTransactions", "appAttestSupported"] where request.body?[field] != nil {
                return .init(status: 400, json: #"{"error":{"code":"unknown_field","message":"\#(field) is not a field of this request","field":"\#(field)"}}"#)
            }
            return Fixture.matched()
        }
        let attest = FakeAppAttest()
        attest.isSupported = false
        let runway = Fixture.runway(server, appAttest: attest, appTransaction: FakeAppTransaction(id: "2000000123456789", jws: "a.b.c", all: ["a.b.c"]))
        await runway.setConsent(true)
        #expect(try await runway.matchInstall()?.matched == true)
        let matches = server.requests(to: "/v1/installs/match")
        #expect(matches.count == 2 && matches.last?.body?["signedAppTransaction"] as? String == "a.b.c")
        #expect(matches.last?.body?["signedAppTransactions"] == nil && matches.last?.body?["appAttestSupported"] == nil)
    }

    @Test("a provider written before 1.1.1 still sends the id, and no signedAppTransaction")
    func idOnlyProvider() async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server, appTransaction: IdOnlyAppTransaction(id: "2000000123456789"))
        await runway.setConsent(true)
        _ = try await runway.matchInstall()
        #expect(server.requests.first?.body?["appTransactionId"] as? String == "2000000123456789")
        #expect(server.requests.first?.body?["signedAppTransaction"] == nil)
    }

    @Test("on tvOS the match says platform tvos, while open(_:) posts to /v1/resolve with platform ios")
    func platforms() async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server, platform: "tvos")
        await runway.setConsent(true)
        _ = try await runway.matchInstall()
        #expect(server.requests(to: "/v1/installs/match").first?.body?["platform"] as? String == "tvos")
        let link = try await runway.open(URL(string: "https://go.example/x?utm=1")!)
        #expect(link == ResolvedLink(linkId: "lnk_1", url: "https://go.example/x", path: "/x", metadata: nil, clickToken: "clk-9"))
        let body = try #require(server.requests(to: "/v1/resolve").first?.body)
        let currentId = await runway.installId()
        #expect(Set(body.keys) == ["url", "platform", "installId"])
        #expect(body["platform"] as? String == "ios")
        #expect(body["url"] as? String == "https://go.example/x?utm=1")
        #expect(body["installId"] as? String == currentId)
    }

    @Test("a matched click's token is sent as clickToken on later events")
    func matchedClickOnEvents() async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        let match = try #require(try await runway.matchInstall())
        #expect(match == InstallMatch(matched: true, method: .referrer, clickId: "clk-1", path: "/welcome", url: "https://go.example/w",
                                      metadata: #"{"k":"v"}"#, variant: "blue"))
        try await runway.install()
        try await runway.track(type: "SIGNUP")
        #expect(server.events.map { $0["clickToken"] as? String } == ["clk-1", "clk-1"])
    }

    @Test("a link opened after the match replaces the click token on later events")
    func openReplacesClick() async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        _ = try await runway.matchInstall()
        try await runway.track(type: "SIGNUP")
        _ = try await runway.open(URL(string: "https://go.example/x")!)
        try await runway.track(type: "LOGIN")
        #expect(server.events.map { $0["clickToken"] as? String } == ["clk-1", "clk-9"])
    }

    @Test("the answer is stored: later, concurrent and later-launch calls return it without a request")
    func storedAnswer() async throws {
        let server = StubServer { request in
            var reply = Fixture.matched()
            reply.delay = 0.2
            return reply
        }
        let suite = Fixture.suite()
        let runway = Fixture.runway(server, suite: suite)
        await runway.setConsent(true)
        async let first = runway.matchInstall()
        async let second = runway.matchInstall()
        let (a, b) = try await (first, second)
        let match = try #require(a)
        #expect(b == match && match.clickId == "clk-1")
        #expect(try await runway.matchInstall() == match)
        #expect(try await Fixture.runway(server, suite: suite).matchInstall() == match)
        #expect(server.requests.count == 1)
    }

    @Test("a failed match stores nothing, and a retry asks again and works")
    func failedMatchRetried() async throws {
        let failing = Mutex(true)
        let server = StubServer { request in
            failing.withLock { $0 } ? .init(status: 500, json: #"{"error":{"code":"internal"}}"#) : Fixture.matched()
        }
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        await #expect(throws: LinkRunwayError.server(status: 500, body: #"{"error":{"code":"internal"}}"#)) { try await runway.matchInstall() }
        let storage = await runway.storage
        #expect(storage.string(.match) == nil && storage.string(.clickToken) == nil)
        failing.withLock { $0 = false }
        #expect(try await runway.matchInstall()?.clickId == "clk-1")
        #expect(server.requests.count == 4)
        #expect(storage.string(.clickToken) == "clk-1")
    }

    @Test("the server's method maps to MatchMethod", arguments: [
        ("referrer", MatchMethod.referrer), ("probabilistic", .probabilistic), ("view_through", .viewThrough),
        ("unmatched", .unmatched), ("x", .unknown("x")),
    ])
    func methodMapping(text: String, method: MatchMethod) async throws {
        let server = StubServer { _ in .init(status: 200, json: #"{"matched":\#(text != "unmatched"),"method":"\#(text)"}"#) }
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        #expect(try await runway.matchInstall()?.method == method)
    }

    @Test("matchInstall called while an attestation runs makes one match request, which carries the token")
    func matchDuringAttestation() async throws {
        let release = Locked(false)
        let server = StubServer { request in
            switch request.path {
            case "/v1/attest/apple/challenge": return StubServer.Reply(status: 201, json: #"{"challenge":"c-1","expiresAt":"x"}"#).held(by: release)
            case "/v1/attest/apple/register": return .init(status: 201, json: #"{"token":"t-1","expiresAt":"2030-01-01T00:00:00.000Z","environment":"production"}"#)
            default: return Fixture.standard(request)
            }
        }
        let runway = Fixture.runway(server, appAttest: FakeAppAttest())
        await runway.setConsent(true)
        async let attesting: Void = runway.attest(appId: "app_1")
        try await Fixture.waitForRequests(server)
        async let first = runway.matchInstall()
        async let second = runway.matchInstall()
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(server.requests.count == 1, "the match waits for the attestation")
        release.set(true)
        let (a, b) = try await (first, second)
        await attesting
        #expect(a != nil && a == b)
        #expect(server.requests(to: "/v1/installs/match").count == 1)
        #expect(server.requests(to: "/v1/installs/match").first?.body?["attestation"] as? String == "t-1")
    }
}
