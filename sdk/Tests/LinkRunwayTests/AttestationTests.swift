import Foundation
@testable import LinkRunway
import Synchronization
import Testing

/// A scripted attestation server: numbered challenges (ch-1, ch-2, …) and tokens (tok-1, tok-2, …); register and assert
/// answered as the test says; every other path answered sensibly.
final class AttestServer: Sendable {
    let stub: StubServer
    let challengeStatus = Locked(201)
    /// The register answer's status (0: no answer, the request timed out).
    let registerStatus = Locked(201)
    /// Statuses for the next assertions; 200 once used up.
    let assertStatuses = Locked<[Int]>([])
    let expiresAt = Locked("2026-09-22T00:00:00.000Z")
    /// The challenge's `attestationExpiresAt` (55 minutes after its `expiresAt`, as the server answers), or none, as a
    /// server before 2026-12 answered.
    let attestationExpiresAt = Locked<String?>("2026-09-21T15:13:20.000Z")

    init() {
        let challengeStatus = challengeStatus, registerStatus = registerStatus, assertStatuses = assertStatuses, expiresAt = expiresAt
        let attestationExpiresAt = attestationExpiresAt
        let challenges = Locked(0), tokens = Locked(0)
        @Sendable func grant(_ status: Int) -> StubServer.Reply {
            let n = tokens.withLock { $0 += 1; return $0 }
            return .init(status: status, json: #"{"token":"tok-\#(n)","expiresAt":"\#(expiresAt.value)","environment":"production"}"#)
        }
        stub = StubServer { request in
            switch request.path {
            case "/v1/attest/apple/challenge":
                let status = challengeStatus.value
                guard status == 201 else { return .init(status: status, json: #"{"error":{"code":"refused"}}"#) }
                let n = challenges.withLock { $0 += 1; return $0 }
                let attestation = attestationExpiresAt.value.map { #","attestationExpiresAt":"\#($0)""# } ?? ""
                return .init(status: 201, json: #"{"challenge":"ch-\#(n)","expiresAt":"2026-09-21T14:18:20.000Z"\#(attestation)}"#)
            case "/v1/attest/apple/register":
                let status = registerStatus.value
                if status == 0 { return .failure(.timedOut) }
                return status == 201 ? grant(201) : .init(status: status, json: #"{"error":{"code":"refused"}}"#)
            case "/v1/attest/apple/assert":
                let status = assertStatuses.withLock { $0.isEmpty ? 200 : $0.removeFirst() }
                return status == 200 ? grant(200) : .init(status: status, json: #"{"error":{"code":"refused"}}"#)
            default: return Fixture.standard(request)
            }
        }
    }

    func paths() -> [String] { stub.paths() }
    var challengeCount: Int { stub.requests(to: "/v1/attest/apple/challenge").count }
}

@Suite("App Attest lifecycle")
struct AttestationTests {
    /// A device with consent that attested once (its key registered, token `tok-1`), and its clock.
    static func attestedOnce() async -> (AttestServer, TestClock, FakeAppAttest, LinkRunway) {
        let server = AttestServer()
        let clock = TestClock()
        let attest = FakeAppAttest()
        let runway = Fixture.runway(server.stub, clock: clock, appAttest: attest)
        await runway.setConsent(true)
        await runway.attest(appId: "app_1")
        return (server, clock, attest, runway)
    }

    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    @Test("the challenge comes first: a refused challenge creates no key")
    func refusedChallengeNoKey() async throws {
        let server = AttestServer()
        server.challengeStatus.set(409)
        let attest = FakeAppAttest()
        let runway = Fixture.runway(server.stub, appAttest: attest)
        await runway.setConsent(true)
        await runway.attest(appId: "app_1")
        #expect(server.paths() == ["POST /v1/attest/apple/challenge"])
        #expect(attest.keys.isEmpty && attest.attested.isEmpty)
        #expect(await runway.storage.string(.attestKeyId) == nil)
    }

    @Test("first attestation: generateKey, attestKey over SHA-256 of the challenge text, then POST /v1/attest/apple/register")
    func firstAttestation() async throws {
        let server = AttestServer()
        let attest = FakeAppAttest()
        let runway = Fixture.runway(server.stub, appAttest: attest)
        await runway.setConsent(true)
        await runway.attest(appId: "app_1")
        #expect(server.paths() == ["POST /v1/attest/apple/challenge", "POST /v1/attest/apple/register"])
        let key = try #require(attest.keys.first)
        #expect(attest.keys.count == 1)
        #expect(attest.attested.map(\.0) == [key])
        #expect(Self.hex((attest.attested.first?.1 ?? Data())) == "8b216f57eaed8b13472c03604c17c4324f5cff7fed89c3e2ae17fc2652bd2e62", "SHA-256 of \"ch-1\"")
        let body = try #require(server.stub.requests[safe: 1]?.body)
        #expect(Set(body.keys) == ["appId", "keyId", "attestation", "challenge", "installId"])
        #expect(body["appId"] as? String == "app_1" && body["keyId"] as? String == key && body["challenge"] as? String == "ch-1")
        let currentId = await runway.installId()
        #expect(body["installId"] as? String == currentId)
        #expect(Data(base64Encoded: body["attestation"] as? String ?? "") == Data("attestation-of-\(key)".utf8))
        let storage = await runway.storage
        #expect(storage.string(.attestKeyId) == key && storage.string(.attestToken) == "tok-1")
    }

    @Test("later attestations call generateAssertion with the same key over the new challenge's hash, then POST /v1/attest/apple/assert")
    func laterAssertion() async throws {
        let (server, clock, attest, runway) = await Self.attestedOnce()
        clock.advance(86_400)
        await runway.attest(appId: "app_1")
        #expect(server.paths().suffix(2) == ["POST /v1/attest/apple/challenge", "POST /v1/attest/apple/assert"])
        let key = try #require(attest.keys.first)
        #expect(attest.keys.count == 1)
        #expect(attest.asserted.map(\.0) == [key])
        #expect(Self.hex((attest.asserted.first?.1 ?? Data())) == "28053201dab7d800ed7786b4d99b0ad5d538753e4d329dccd8f817756442c8f3", "SHA-256 of \"ch-2\"")
        let body = try #require(server.stub.requests.last?.body)
        #expect(Set(body.keys) == ["appId", "keyId", "assertion", "challenge", "installId"])
        #expect(body["keyId"] as? String == key && body["challenge"] as? String == "ch-2" && body["appId"] as? String == "app_1")
        #expect(Data(base64Encoded: body["assertion"] as? String ?? "") == Data("assertion-by-\(key)".utf8))
        #expect(await runway.storage.string(.attestToken) == "tok-2")
    }

    @Test("the token goes with events until it expires; then the next event renews it first if attest was called in this process, else goes unattested")
    func tokenOnEventsUntilExpiry() async throws {
        let server = AttestServer()
        let clock = TestClock()
        let suite = Fixture.suite()
        let runway = Fixture.runway(server.stub, clock: clock, appAttest: FakeAppAttest(), suite: suite)
        await runway.setConsent(true)
        await runway.attest(appId: "app_1")
        try await runway.track(type: "SIGNUP")
        clock.advance(3600)
        try await runway.track(type: "LOGIN")
        #expect(server.stub.events.map { $0["attestation"] as? String } == ["tok-1", "tok-1"])
        clock.advance(86_400)
        // A later launch that has not called attest(appId:) sends the event without the expired token.
        let later = Fixture.runway(server.stub, clock: clock, appAttest: FakeAppAttest(), suite: suite)
        try await later.track(type: "OPEN")
        #expect(server.stub.events.last?["attestation"] == nil)
        #expect(server.challengeCount == 1)
        // This process called attest(appId:): its next event renews the token first.
        try await runway.track(type: "SIGNUP")
        #expect(server.paths().suffix(3) == ["POST /v1/attest/apple/challenge", "POST /v1/attest/apple/assert", "POST /v1/events"])
        #expect(server.stub.events.last?["attestation"] as? String == "tok-2")
    }

    @Test("a new token is used for at least five minutes even if its expiresAt has passed")
    func fiveMinutesAtLeast() async throws {
        let server = AttestServer()
        server.expiresAt.set("2020-01-01T00:00:00.000Z")
        let clock = TestClock()
        let runway = Fixture.runway(server.stub, clock: clock, appAttest: FakeAppAttest())
        await runway.setConsent(true)
        await runway.attest(appId: "app_1")
        clock.advance(299)
        try await runway.track(type: "SIGNUP")
        #expect(server.stub.events.last?["attestation"] as? String == "tok-1")
        #expect(server.challengeCount == 1)
        clock.advance(2)
        try await runway.track(type: "LOGIN")
        #expect(server.challengeCount == 2)
        #expect(server.stub.events.last?["attestation"] as? String == "tok-2")
    }

    @Test("a failed attestation does not throw, and events then go out unattested")
    func failureLeavesEventsUnattested() async throws {
        let server = AttestServer()
        server.challengeStatus.set(500)
        let runway = Fixture.runway(server.stub, appAttest: FakeAppAttest())
        await runway.setConsent(true)
        await runway.attest(appId: "app_1")
        try await runway.track(type: "SIGNUP")
        let event = try #require(server.stub.events.first)
        #expect(event["attestation"] == nil)
        #expect(server.challengeCount == 3, "the challenge was tried, three times")
    }

    @Test("an event sent while an attempt runs waits for it and carries its token")
    func eventsWait() async throws {
        let release = Locked(false)
        let server = StubServer { request in
            switch request.path {
            case "/v1/attest/apple/challenge": return StubServer.Reply(status: 201, json: #"{"challenge":"c","expiresAt":"x"}"#).held(by: release)
            case "/v1/attest/apple/register": return .init(status: 201, json: #"{"token":"t-1","expiresAt":"2030-01-01T00:00:00.000Z","environment":"production"}"#)
            default: return Fixture.standard(request)
            }
        }
        let runway = Fixture.runway(server, appAttest: FakeAppAttest())
        await runway.setConsent(true)
        async let attesting: Void = runway.attest(appId: "app_1")
        try await Fixture.waitForRequests(server)
        async let tracked = runway.track(type: "SIGNUP")
        // The event is made while the challenge is held, then the attempt goes on.
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(server.requests.count == 1, "the event waits")
        release.set(true)
        _ = try await tracked
        await attesting
        #expect(server.paths() == ["POST /v1/attest/apple/challenge", "POST /v1/attest/apple/register", "POST /v1/events"])
        #expect(server.events.first?["attestation"] as? String == "t-1")
    }

    @Test("an assertion answered 404 makes a new key, registered in the same call")
    func assertion404NewKey() async throws {
        let (server, clock, attest, runway) = await Self.attestedOnce()
        server.assertStatuses.set([404])
        clock.advance(86_400)
        await runway.attest(appId: "app_1")
        #expect(server.paths().suffix(4) == ["POST /v1/attest/apple/challenge", "POST /v1/attest/apple/assert",
                                             "POST /v1/attest/apple/challenge", "POST /v1/attest/apple/register"])
        #expect(attest.keys.count == 2)
        #expect(server.stub.requests.last?.body?["keyId"] as? String == attest.keys[safe: 1])
        let storage = await runway.storage
        #expect(storage.string(.attestKeyId) == attest.keys[safe: 1] && storage.string(.attestToken) == "tok-2")
    }

    @Test("an assertion answered 400 keeps the key, waits five minutes, then asserts again with it")
    func assertion400KeepsKey() async throws {
        let (server, clock, attest, runway) = await Self.attestedOnce()
        server.assertStatuses.set([400])
        clock.advance(86_400)
        await runway.attest(appId: "app_1")
        let key = try #require(attest.keys.first)
        #expect(await runway.storage.string(.attestKeyId) == key)
        let count = server.stub.requests.count
        clock.advance(299)
        await runway.attest(appId: "app_1")
        #expect(server.stub.requests.count == count, "within five minutes: no attempt")
        clock.advance(2)
        await runway.attest(appId: "app_1")
        #expect(server.paths().dropFirst(count) == ["POST /v1/attest/apple/challenge", "POST /v1/attest/apple/assert"])
        #expect(attest.keys.count == 1 && attest.asserted.map(\.0) == [key, key])
        #expect(await runway.storage.string(.attestToken) == "tok-2")
    }

    @Test("a refused or unanswered registration keeps the key, and the next attempt asserts with it", arguments: [400, 0])
    func registrationFailureKeepsKey(status: Int) async throws {
        let server = AttestServer()
        server.registerStatus.set(status)
        let clock = TestClock()
        let attest = FakeAppAttest()
        let runway = Fixture.runway(server.stub, clock: clock, appAttest: attest)
        await runway.setConsent(true)
        await runway.attest(appId: "app_1")
        let key = try #require(attest.keys.first)
        #expect(await runway.storage.string(.attestKeyId) == key)
        #expect(await runway.storage.string(.attestToken) == nil)
        clock.advance(301)
        await runway.attest(appId: "app_1")
        #expect(server.paths().suffix(2) == ["POST /v1/attest/apple/challenge", "POST /v1/attest/apple/assert"])
        #expect(attest.keys.count == 1 && attest.attested.count == 1 && attest.asserted.map(\.0) == [key])
        #expect(await runway.storage.string(.attestToken) == "tok-1")
    }

    @Test("only invalidKey discards a key at attestKey; another failure keeps it, and the next attempt attests it again")
    func unusableKeyDiscarded() async throws {
        let server = AttestServer()
        let clock = TestClock()
        let attest = FakeAppAttest()
        attest.attestFailures = [.invalidKey]
        let runway = Fixture.runway(server.stub, clock: clock, appAttest: attest)
        await runway.setConsent(true)
        await runway.attest(appId: "app_1")
        #expect(attest.attested.count == 1, "not retried")
        #expect(await runway.storage.string(.attestKeyId) == nil, "invalidKey at attestKey")
        clock.advance(301)
        await runway.attest(appId: "app_1")
        #expect(attest.keys.count == 2 && server.paths().last == "POST /v1/attest/apple/register")
        // A lost key at the assertion is replaced at once; the new key's attestKey fails for another reason.
        attest.assertFailures = [.invalidKey]
        attest.attestFailures = [.broken]
        clock.advance(86_400)
        await runway.attest(appId: "app_1")
        let third = try #require(attest.keys[safe: 2])
        #expect(await runway.storage.string(.attestKeyId) == third, "attestKey failed for another reason than invalidKey: the key stays")
        clock.advance(301)
        await runway.attest(appId: "app_1")
        #expect(attest.keys.count == 3 && attest.attested.suffix(2).map(\.0) == [third, third], "the same key, attested again")
        #expect(server.stub.requests.last?.body?["keyId"] as? String == third)
        #expect(await runway.storage.string(.attestToken) == "tok-2")
    }

    @Test("an assertion failing as it does after a restore or a migration (invalidKey, invalidInput, unknownSystemFailure) replaces the key in the same call",
          arguments: [FakeAppAttest.Failure.invalidKey, .invalidInput, .systemFailure])
    func lostKeyReplaced(_ failure: FakeAppAttest.Failure) async throws {
        let (server, clock, attest, runway) = await Self.attestedOnce()
        attest.assertFailures = [failure]
        clock.advance(86_400)
        let before = server.stub.requests.count
        await runway.attest(appId: "app_1")
        #expect(server.paths().dropFirst(before) == ["POST /v1/attest/apple/challenge", "POST /v1/attest/apple/challenge",
                                                     "POST /v1/attest/apple/register"])
        #expect(attest.keys.count == 2 && attest.asserted.map(\.0) == [attest.keys[0]])
        let storage = await runway.storage
        #expect(storage.string(.attestKeyId) == attest.keys[safe: 1] && storage.string(.attestToken) == "tok-2")
    }

    @Test("at most three new keys a day, each of which Apple counts for the device for good; the next day another")
    func keysPerDay() async throws {
        let server = AttestServer()
        let clock = TestClock()
        let attest = FakeAppAttest()
        attest.attestFailures = [.invalidKey, .invalidKey, .invalidKey]
        let runway = Fixture.runway(server.stub, clock: clock, appAttest: attest)
        await runway.setConsent(true)
        for wait in [301.0, 601, 1201] {
            await runway.attest(appId: "app_1")
            clock.advance(wait)
        }
        #expect(attest.keys.count == 3)
        await runway.attest(appId: "app_1")
        #expect(attest.keys.count == 3 && attest.attested.count == 3, "a fourth key waits for tomorrow")
        clock.advance(86_400)
        await runway.attest(appId: "app_1")
        #expect(attest.keys.count == 4 && server.paths().last == "POST /v1/attest/apple/register")
        #expect(await runway.storage.string(.attestToken) == "tok-1")
    }

    @Test("an Apple outage at attestKey is tried again after 30 s, 2, 10 and 30 min with the same key and challenge, which the server takes for an hour; then the usual wait, a new challenge, the same key")
    func outageRetriedLater() async throws {
        let server = AttestServer()
        let clock = TestClock()
        let attest = FakeAppAttest()
        attest.attestFailures = [.outage, .outage, .outage, .outage, .outage]
        let runway = Fixture.runway(server.stub, clock: clock, appAttest: attest)
        await runway.setConsent(true)
        await runway.attest(appId: "app_1")
        let key = try #require(attest.keys.first)
        #expect(attest.attested.count == 1, "not retried at once")
        for wait in [30.0, 120, 600, 1800] {
            clock.advance(wait - 1)
            await runway.attest(appId: "app_1")
            let tries = attest.attested.count
            clock.advance(1)
            await runway.attest(appId: "app_1")
            #expect(attest.attested.count == tries + 1, "tried again once \(wait) s have passed, not before")
        }
        #expect(attest.attested.map(\.0) == [key, key, key, key, key])
        #expect(Set(attest.attested.map { Self.hex($0.1) }) == ["8b216f57eaed8b13472c03604c17c4324f5cff7fed89c3e2ae17fc2652bd2e62"],
                "the same client data hash: SHA-256 of ch-1")
        #expect(server.paths() == ["POST /v1/attest/apple/challenge"], "one challenge, nothing registered")
        // The retries are used up: the usual five minutes, then a new challenge for the same key.
        clock.advance(299)
        await runway.attest(appId: "app_1")
        #expect(attest.attested.count == 5)
        clock.advance(1)
        await runway.attest(appId: "app_1")
        #expect(attest.keys == [key] && attest.attested.count == 6 && server.challengeCount == 2)
        #expect(server.paths().last == "POST /v1/attest/apple/register" && server.stub.requests.last?.body?["challenge"] as? String == "ch-2")
        #expect(await runway.storage.string(.attestToken) == "tok-1")
    }

    @Test("a server that names no attestation expiry takes a challenge for five minutes: retries only within four of them, then a new challenge")
    func outageRetriedWithinFiveMinutes() async throws {
        let server = AttestServer()
        server.attestationExpiresAt.set(nil)
        let clock = TestClock()
        let attest = FakeAppAttest()
        attest.attestFailures = [.outage, .outage, .outage]
        let runway = Fixture.runway(server.stub, clock: clock, appAttest: attest)
        await runway.setConsent(true)
        await runway.attest(appId: "app_1")
        clock.advance(30)
        await runway.attest(appId: "app_1")
        clock.advance(120)
        await runway.attest(appId: "app_1")
        #expect(attest.attested.count == 3 && server.challengeCount == 1, "150 s after the fetch: the same challenge")
        // A third retry would come 750 s after the fetch, past what the server takes: the usual wait and a new one.
        clock.advance(299)
        await runway.attest(appId: "app_1")
        #expect(attest.attested.count == 3)
        clock.advance(1)
        await runway.attest(appId: "app_1")
        #expect(attest.attested.count == 4 && server.challengeCount == 2)
        #expect(server.stub.requests.last?.body?["challenge"] as? String == "ch-2")
    }

    @Test("the challenge's age counts from its fetch, not from the outage: an attestKey that took long leaves no retry")
    func outageChallengeAgedFromFetch() async throws {
        let server = AttestServer()
        server.attestationExpiresAt.set(nil)
        let clock = TestClock()
        let attest = SlowAppAttest(clock: clock, attestTakes: 220)
        let runway = Fixture.runway(server.stub, clock: clock, appAttest: attest)
        await runway.setConsent(true)
        await runway.attest(appId: "app_1")
        // Fetched at 0, the outage came at 220: a retry 30 s later would be 250 s after the fetch, past the 240 s.
        clock.advance(30)
        await runway.attest(appId: "app_1")
        #expect(attest.attests.withLock { $0 } == 1 && server.challengeCount == 1)
        clock.advance(270)
        await runway.attest(appId: "app_1")
        #expect(attest.attests.withLock { $0 } == 2 && server.challengeCount == 2, "the usual wait, then a new challenge")
    }

    @Test("Apple's App Attest calls that never answer are given up after their deadline; the key is kept and attested later",
          arguments: ["generateKey", "attestKey", "generateAssertion"])
    func hangingAppAttest(call: String) async throws {
        let server = AttestServer()
        let clock = TestClock()
        let attest = FakeAppAttest()
        // The default deadline (5 s; 20 s for attestKey): a shorter one is missed by calls that answer at once when every
        // other test of the suite runs beside this one on two cores.
        let runway = Fixture.runway(server.stub, clock: clock, appAttest: attest)
        await runway.setConsent(true)
        if call == "generateAssertion" {
            await runway.attest(appId: "app_1")
            #expect(await runway.storage.string(.attestKeyState) == "registered")
            await runway.storage.set(nil as String?, .attestToken)
        }
        attest.lock.withLock { attest.hanging = [call] }
        let started = Date()
        await runway.attest(appId: "app_1")
        #expect(Date().timeIntervalSince(started) < 40, "given up after the deadline, not after the call's 60 s")
        #expect(await runway.storage.string(.attestToken) == nil)
        // An event meanwhile goes out, unattested.
        _ = try await runway.track(type: "OPEN")
        #expect(server.stub.requests(to: "/v1/events").last?.body?["attestation"] == nil)
        attest.lock.withLock { attest.hanging = [] }
        clock.advance(300)
        await runway.attest(appId: "app_1")
        #expect(await runway.storage.string(.attestToken) != nil)
        switch call {
        case "generateKey":
            #expect(attest.keys.count == 2, "a key Apple made too late is lost")
            #expect(await runway.storage.int(.attestKeysMade) == 2, "and counts against the day's three")
        case "attestKey":
            #expect(attest.keys.count == 1 && attest.attested.count == 2, "the same key, attested again")
        default:
            #expect(attest.keys.count == 1 && server.paths().last == "POST /v1/attest/apple/assert", "the same key, asserted again")
        }
    }

    @Test("after an outage's wait an event tries the attestation again with the same challenge and goes out with its token")
    func outageRetriedByEvent() async throws {
        let server = AttestServer()
        let clock = TestClock()
        let attest = FakeAppAttest()
        attest.attestFailures = [.outage]
        let runway = Fixture.runway(server.stub, clock: clock, appAttest: attest)
        await runway.setConsent(true)
        await runway.attest(appId: "app_1")
        _ = try await runway.track(type: "OPEN")
        #expect(attest.attested.count == 1, "within the wait the event goes unattested")
        clock.advance(30)
        _ = try await runway.track(type: "SIGNUP")
        #expect(attest.attested.count == 2 && server.challengeCount == 1)
        #expect(server.stub.requests(to: "/v1/attest/apple/register").first?.body?["challenge"] as? String == "ch-1")
        let events = server.stub.requests(to: "/v1/events")
        #expect(events.first?.body?["attestation"] == nil && events.last?.body?["attestation"] as? String == "tok-1")
    }

    @Test("after failures the wait is five minutes, doubling to 300×64 s, kept across launches; a success clears it")
    func backoff() async throws {
        let server = AttestServer()
        server.challengeStatus.set(503)
        let clock = TestClock()
        let suite = Fixture.suite()
        let attest = FakeAppAttest()
        var waits: [Double] = []
        for attempt in 0..<8 {
            // Every attempt on a new launch.
            let runway = Fixture.runway(server.stub, clock: clock, appAttest: attest, suite: suite)
            if attempt == 0 { await runway.setConsent(true) }
            await runway.attest(appId: "app_1")
            let next = try #require(await runway.storage.double(.attestNextAttemptAt))
            let wait = next - clock.now.timeIntervalSince1970
            waits.append(wait)
            let count = server.challengeCount
            clock.advance(wait - 1)
            await Fixture.runway(server.stub, clock: clock, appAttest: attest, suite: suite).attest(appId: "app_1")
            #expect(server.challengeCount == count, "no attempt before the wait is over")
            clock.advance(1)
        }
        #expect(waits == [300, 600, 1200, 2400, 4800, 9600, 19_200, 19_200])
        server.challengeStatus.set(201)
        let runway = Fixture.runway(server.stub, clock: clock, appAttest: attest, suite: suite)
        await runway.attest(appId: "app_1")
        let storage = await runway.storage
        #expect(storage.string(.attestToken) == "tok-1")
        #expect(storage.int(.attestFailures) == nil && storage.double(.attestNextAttemptAt) == nil)
    }

    @Test("with a device-only store (the Keychain) the key id is kept there and never in UserDefaults; a withdrawal removes it")
    func keyIdOnDeviceOnly() async throws {
        let server = AttestServer()
        let keychain = FakeDeviceOnlyStore()
        let attest = FakeAppAttest()
        let clock = TestClock()
        let suite = Fixture.suite()
        let runway = Fixture.runway(server.stub, clock: clock, appAttest: attest, suite: suite, deviceOnly: keychain)
        await runway.setConsent(true)
        await runway.attest(appId: "app_1")
        let key = try #require(attest.keys.first)
        #expect(keychain.items.withLock { $0.values.sorted() } == [key] && keychain.names.allSatisfy { $0.hasSuffix(".attestKeyId") })
        #expect(await runway.storage.everything.keys.contains { $0.hasSuffix("attestKeyId") } == false)
        // The next launch asserts with the key the Keychain holds.
        clock.advance(86_400)
        await Fixture.runway(server.stub, clock: clock, appAttest: attest, suite: suite, deviceOnly: keychain).attest(appId: "app_1")
        #expect(attest.asserted.map(\.0) == [key])
        await runway.setConsent(false)
        #expect(keychain.names.isEmpty)
    }

    @Test("restored on a new device (UserDefaults come along, the Keychain item does not): a new key, with no assertion Apple would refuse")
    func restoredOnNewDevice() async throws {
        let server = AttestServer()
        let attest = FakeAppAttest()
        let clock = TestClock()
        let suite = Fixture.suite()
        let runway = Fixture.runway(server.stub, clock: clock, appAttest: attest, suite: suite, deviceOnly: FakeDeviceOnlyStore())
        await runway.setConsent(true)
        await runway.attest(appId: "app_1")
        clock.advance(86_400)
        let restored = Fixture.runway(server.stub, clock: clock, appAttest: attest, suite: suite, deviceOnly: FakeDeviceOnlyStore())
        await restored.attest(appId: "app_1")
        #expect(attest.asserted.isEmpty && attest.keys.count == 2)
        #expect(server.paths().filter { $0.hasSuffix("/register") }.count == 2)
        #expect(await restored.storage.string(.attestToken) == "tok-2")
    }

    @Test("a key id an earlier SDK kept in UserDefaults moves to the Keychain; one the Keychain kept past a reinstall is dropped")
    func keyIdMovesAndReinstallStartsOver() async throws {
        let server = AttestServer()
        let attest = FakeAppAttest()
        let clock = TestClock()
        let suite = Fixture.suite()
        let earlier = Fixture.runway(server.stub, clock: clock, appAttest: attest, suite: suite)
        await earlier.setConsent(true)
        await earlier.attest(appId: "app_1")
        let key = try #require(attest.keys.first)
        #expect(await earlier.storage.everything.keys.contains { $0.hasSuffix("attestKeyId") })
        let keychain = FakeDeviceOnlyStore()
        clock.advance(86_400)
        let updated = Fixture.runway(server.stub, clock: clock, appAttest: attest, suite: suite, deviceOnly: keychain)
        #expect(await updated.storage.everything.keys.contains { $0.hasSuffix("attestKeyId") } == false)
        #expect(keychain.items.withLock { Array($0.values) } == [key])
        await updated.attest(appId: "app_1")
        #expect(attest.asserted.map(\.0) == [key], "the same key, asserted")
        // Deleted and installed again: UserDefaults are gone, the Keychain item is not.
        let reinstalled = Fixture.runway(server.stub, clock: clock, appAttest: attest, suite: Fixture.suite(), deviceOnly: keychain)
        #expect(keychain.names.isEmpty)
        await reinstalled.setConsent(true)
        await reinstalled.attest(appId: "app_1")
        #expect(attest.asserted.count == 1 && attest.keys.count == 2)
    }

    @Test("after a withdrawal the next attestation makes a new key")
    func newKeyAfterWithdrawal() async throws {
        let server = AttestServer()
        let attest = FakeAppAttest()
        let runway = Fixture.runway(server.stub, appAttest: attest)
        await runway.setConsent(true)
        await runway.attest(appId: "app_1")
        await runway.setConsent(false)
        await runway.setConsent(true)
        await runway.attest(appId: "app_1")
        #expect(attest.keys.count == 2 && attest.asserted.isEmpty)
        #expect(server.paths() == ["POST /v1/attest/apple/challenge", "POST /v1/attest/apple/register",
                                   "POST /v1/attest/apple/challenge", "POST /v1/attest/apple/register"])
        #expect(server.stub.requests.last?.body?["keyId"] as? String == attest.keys[safe: 1])
    }

    @Test("SHA-256 matches the standard's test vectors")
    func sha256() {
        func hex(_ text: String) -> String { Self.hex(Data(SHA256.hash(Array(text.utf8)))) }
        #expect(hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(hex(String(repeating: "a", count: 1000)) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }
}

/// App Attest whose `attestKey` takes `attestTakes` seconds of the test's clock and then meets an Apple outage.
final class SlowAppAttest: AppAttestProvider, Sendable {
    let clock: TestClock
    let attestTakes: Double
    let attests = Mutex(0)
    struct Outage: Error {}
    init(clock: TestClock, attestTakes: Double) {
        self.clock = clock
        self.attestTakes = attestTakes
    }
    var isSupported: Bool { true }
    func generateKey() async throws -> String { Data(repeating: 7, count: 32).base64EncodedString() }
    func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data {
        attests.withLock { $0 += 1 }
        clock.advance(attestTakes)
        throw Outage()
    }
    func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data { Data() }
    func classify(_ error: any Error) -> AppAttestFailure { error is Outage ? .serviceUnavailable : .other }
}
