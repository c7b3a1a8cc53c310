import Foundation
@testable import LinkRunway
import Synchronization
import Testing

@Suite("App Attest lifecycle")
struct AttestationTests {
    /// A server for attestation: challenges, and register/assert answered as scripted.
    static func server(register: Int = 201, assert: @escaping @Sendable () -> Int = { 200 }) -> StubServer {
        let grant = #"{"token":"tok-\#(UUID().uuidString)","expiresAt":"2026-09-22T00:00:00.000Z","environment":"production"}"#
        return StubServer { request in
            switch request.path {
            case "/v1/attest/apple/challenge": return .init(status: 201, json: #"{"challenge":"ch-\#(UUID().uuidString)","expiresAt":"2026-01-01T00:05:00.000Z"}"#)
            case "/v1/attest/apple/register": return .init(status: register, json: register == 201 ? grant : #"{"error":{"code":"x"}}"#)
            case "/v1/attest/apple/assert":
                let status = assert()
                return .init(status: status, json: status == 200 ? grant : #"{"error":{"code":"x"}}"#)
            default: return Fixture.stored
            }
        }
    }

    @Test("first time: a challenge, then a key, its attestation over SHA-256 of the challenge, and registration; then assertions")
    func firstTimeThenAssert() async throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_790_000_000))
        let attest = FakeAppAttest()
        let server = Self.server()
        let runway = Fixture.runway(server, clock: clock, appAttest: attest)
        await runway.attest(appId: "app_1")
        #expect(server.requests.isEmpty, "nothing before consent")
        await runway.setConsent(true)
        #expect(server.paths() == ["POST /v1/attest/apple/challenge", "POST /v1/attest/apple/register"])
        let register = try #require(server.requests[1].body)
        #expect(register["keyId"] as? String == attest.generated.first && register["appId"] as? String == "app_1")
        let challenge = try #require(register["challenge"] as? String)
        #expect(attest.attested.first?.1 == Data(SHA256.hash(Array(challenge.utf8))))
        #expect(Data(base64Encoded: register["attestation"] as? String ?? "") == Data("attestation-of-\(attest.generated[0])".utf8))
        try await runway.track(type: "OPEN")
        #expect(server.requests.last?.body?["attestation"] as? String != nil, "events carry the token")

        // The token lasts at least five minutes after it arrived, whatever the clock says; then it is renewed.
        clock.advance(200 * 86_400)
        await runway.attest(appId: "app_1")
        #expect(server.paths().suffix(2) == ["POST /v1/attest/apple/challenge", "POST /v1/attest/apple/assert"])
        #expect(attest.generated.count == 1, "the key is reused")
    }

    @Test("an assertion answered 404 replaces the key in the same call; a 400 keeps it and waits five minutes, doubling, across launches")
    func keyReplacementAndBackoff() async throws {
        let clock = TestClock()
        let attest = FakeAppAttest()
        let answers = Mutex([404, 400, 400, 200])
        let server = Self.server(assert: { answers.withLock { $0.isEmpty ? 200 : $0.removeFirst() } })
        let suite = "lr-\(UUID())"
        let runway = Fixture.runway(server, clock: clock, appAttest: attest, suite: suite)
        await runway.setConsent(true)
        await runway.attest(appId: "app_1")
        clock.advance(400 * 86_400)
        await runway.attest(appId: "app_1")
        #expect(attest.generated.count == 2, "404: a new key")
        #expect(server.paths().suffix(4) == ["POST /v1/attest/apple/challenge", "POST /v1/attest/apple/assert",
                                             "POST /v1/attest/apple/challenge", "POST /v1/attest/apple/register"])
        clock.advance(400 * 86_400)
        await runway.attest(appId: "app_1")
        #expect(attest.generated.count == 2, "400: the key is kept")
        let count = server.requests.count
        clock.advance(299)
        await runway.attest(appId: "app_1")
        #expect(server.requests.count == count, "waits five minutes")
        clock.advance(2)
        // A new launch remembers the wait.
        let relaunched = Fixture.runway(server, clock: clock, appAttest: attest, suite: suite)
        await relaunched.attest(appId: "app_1")
        #expect(server.requests.count == count + 2, "asserted again after the wait")
        let storage = await relaunched.storage
        #expect(storage.int(.attestFailures) == 2)
        let next = try #require(storage.double(.attestNextAttemptAt))
        #expect(next - clock.now.timeIntervalSince1970 == 600, "then ten minutes")
        clock.advance(601)
        await relaunched.attest(appId: "app_1")
        #expect(storage.int(.attestFailures) == nil, "a success clears the wait")
    }

    @Test("an invalid key on the device is discarded; an Apple outage is retried twice with the same key, which is then kept")
    func deviceFailures() async throws {
        let attest = FakeAppAttest()
        attest.attestFailures = [.invalidKey]
        let server = Self.server()
        let clock = TestClock()
        let runway = Fixture.runway(server, clock: clock, appAttest: attest)
        await runway.setConsent(true)
        await runway.attest(appId: "app_1")
        let storage = await runway.storage
        #expect(storage.string(.attestKeyId) == nil, "discarded")
        attest.attestFailures = [.outage, .outage, .outage]
        clock.advance(3600)
        await runway.attest(appId: "app_1")
        #expect(attest.attested.suffix(3).map(\.0) == Array(repeating: attest.generated[1], count: 3), "same key, three tries")
        #expect(storage.string(.attestKeyId) == attest.generated[1], "kept for the next attempt")
        clock.advance(86_400)
        await runway.attest(appId: "app_1")
        #expect(attest.generated.count == 2, "the kept key is attested, no new one")
        #expect(storage.string(.attestToken) != nil)
    }

    @Test("a refused or unanswered registration keeps the key, and the next attempt asserts with it; attestation off creates no key")
    func registrationRefused() async throws {
        let attest = FakeAppAttest()
        let server = Self.server(register: 400)
        let clock = TestClock()
        let runway = Fixture.runway(server, clock: clock, appAttest: attest)
        await runway.setConsent(true)
        await runway.attest(appId: "app_1")
        clock.advance(3600)
        await runway.attest(appId: "app_1")
        #expect(server.paths().last == "POST /v1/attest/apple/assert")
        #expect(attest.generated.count == 1)

        let off = StubServer { _ in .init(status: 409, json: #"{"error":{"code":"attestation_off"}}"#) }
        let fresh = FakeAppAttest()
        let disabled = Fixture.runway(off, appAttest: fresh)
        await disabled.setConsent(true)
        await disabled.attest(appId: "app_1")
        #expect(fresh.generated.isEmpty, "the challenge comes first, so a refused request creates no key")
    }

    @Test("an event sent while an attempt runs waits for it")
    func eventsWait() async throws {
        let attest = FakeAppAttest()
        let server = StubServer { request in
            switch request.path {
            case "/v1/attest/apple/challenge": return .init(status: 201, json: #"{"challenge":"c","expiresAt":"x"}"#, delay: 0.3)
            case "/v1/attest/apple/register": return .init(status: 201, json: #"{"token":"t-1","expiresAt":"2030-01-01T00:00:00.000Z","environment":"production"}"#)
            default: return Fixture.stored
            }
        }
        let runway = Fixture.runway(server, appAttest: attest)
        await runway.setConsent(true)
        async let attesting: Void = runway.attest(appId: "app_1")
        while server.requests.isEmpty { try await Task.sleep(nanoseconds: 5_000_000) }
        try await runway.track(type: "OPEN")
        await attesting
        #expect(server.requests.last?.body?["attestation"] as? String == "t-1")
    }
}
