import Foundation
@testable import LinkRunway
import Synchronization
import Testing

/// Events (1.0.0): the caller's id and timestamp, the outbox that survives failures, INSTALL once.
@Suite("Events")
struct EventTests {
    /// A server whose events endpoint fails while `failing` holds, with `failure`; the rest answers sensibly.
    static func server(failing: Locked<Bool>, failure: StubServer.Reply = .init(status: 503, json: #"{"error":{"code":"unavailable"}}"#)) -> StubServer {
        StubServer { request in
            request.path == "/v1/events" && failing.value ? failure : Fixture.standard(request)
        }
    }

    @Test("track sends exactly the event: eventId, type, name, userId, installId and the ISO 8601 timestamp with fractional seconds")
    func exactBody() async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        let receipt = try await runway.track(type: "CUSTOM", name: "level_10", userId: "u-1", eventId: "evt-1",
                                             timestamp: Date(timeIntervalSince1970: 1_790_000_000.25))
        #expect(receipt == EventReceipt(eventId: "evt-1", status: "stored"))
        #expect(server.paths() == ["POST /v1/events"])
        let body = try #require(server.events.first)
        #expect(Set(body.keys) == ["eventId", "type", "name", "userId", "installId", "timestamp"])
        #expect(body["eventId"] as? String == "evt-1" && body["type"] as? String == "CUSTOM")
        #expect(body["name"] as? String == "level_10" && body["userId"] as? String == "u-1")
        let currentId = await runway.installId()
        #expect(body["installId"] as? String == currentId)
        #expect(body["timestamp"] as? String == "2026-09-21T14:13:20.250Z")
    }

    @Test("without an eventId or timestamp, the event gets a lower-case UUID and the clock's time")
    func defaults() async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server, clock: TestClock(Date(timeIntervalSince1970: 1_790_000_000.5)))
        await runway.setConsent(true)
        try await runway.track(type: "SIGNUP")
        let body = try #require(server.events.first)
        let id = try #require(body["eventId"] as? String)
        #expect(UUID(uuidString: id) != nil && id == id.lowercased())
        #expect(body["timestamp"] as? String == "2026-09-21T14:13:20.500Z")
        #expect(body["name"] == nil && body["userId"] == nil)
    }

    @Test("an eventId of more than 128 characters (or none) throws invalidArgument and sends nothing; 128 is accepted")
    func eventIdLength() async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        for bad in [String(repeating: "e", count: 129), ""] {
            let error = await thrown { _ = try await runway.track(type: "SIGNUP", eventId: bad) }
            guard case LinkRunwayError.invalidArgument? = error as? LinkRunwayError else {
                Issue.record("expected invalidArgument, got \(String(describing: error))")
                continue
            }
        }
        #expect(server.requests.isEmpty)
        #expect(await runway.storage.string(.outbox) == nil)
        let longest = String(repeating: "e", count: 128)
        #expect(try await runway.track(type: "SIGNUP", eventId: longest)?.eventId == longest)
        #expect(server.events.map { $0["eventId"] as? String } == [longest])
    }

    @Test("revenue events throw revenueNeedsServerKey and send nothing", arguments: ["PURCHASE", "SUBSCRIPTION", "REFUND"])
    func revenueRefused(type: String) async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        let error = await thrown { _ = try await runway.track(type: type, eventId: "rev-1") }
        guard case LinkRunwayError.revenueNeedsServerKey? = error as? LinkRunwayError else {
            Issue.record("expected revenueNeedsServerKey, got \(String(describing: error))")
            return
        }
        #expect(server.requests.isEmpty)
        #expect(await runway.storage.string(.outbox) == nil)
    }

    @Test("an event that failed transiently throws, is kept, and is sent again with the same id and timestamp before the next event")
    func failedEventResentFirst() async throws {
        let failing = Locked(true)
        let server = Self.server(failing: failing)
        let clock = TestClock()
        let runway = Fixture.runway(server, clock: clock)
        await runway.setConsent(true)
        await #expect(throws: LinkRunwayError.server(status: 503, body: #"{"error":{"code":"unavailable"}}"#)) {
            try await runway.track(type: "SIGNUP", userId: "u-1")
        }
        let failed = try #require(server.events.first)
        #expect(await runway.storage.string(.outbox)?.contains(failed["eventId"] as? String ?? "?") == true)
        failing.set(false)
        clock.advance(60)
        let receipt = try await runway.track(type: "LOGIN", eventId: "evt-2")
        #expect(receipt == EventReceipt(eventId: "evt-2", status: "stored"))
        let delivered = server.events.suffix(2)
        #expect(delivered.map { $0["type"] as? String } == ["SIGNUP", "LOGIN"])
        #expect(delivered.first?["eventId"] as? String == failed["eventId"] as? String)
        #expect(delivered.first?["timestamp"] as? String == "2026-09-21T14:13:20.000Z")
        #expect(delivered.first?["userId"] as? String == "u-1")
        #expect(server.events.count == 5, "three tries, then the kept event and the new one")
        #expect(await runway.storage.string(.outbox) == nil)
    }

    @Test("a kept event is sent by a later launch, before that launch's first event")
    func keptAcrossLaunches() async throws {
        let failing = Locked(true)
        let server = Self.server(failing: failing)
        let suite = Fixture.suite()
        let clock = TestClock()
        let runway = Fixture.runway(server, clock: clock, suite: suite)
        await runway.setConsent(true)
        _ = try? await runway.track(type: "SIGNUP", eventId: "evt-1", timestamp: Date(timeIntervalSince1970: 1_789_999_000))
        failing.set(false)
        clock.advance(3600)
        let later = Fixture.runway(server, clock: clock, suite: suite)
        #expect(try await later.track(type: "LOGIN", eventId: "evt-2")?.eventId == "evt-2")
        let delivered = server.events.suffix(2)
        #expect(delivered.map { $0["eventId"] as? String } == ["evt-1", "evt-2"])
        #expect(delivered.first?["timestamp"] as? String == "2026-09-21T13:56:40.000Z")
    }

    @Test("sendPendingEvents delivers the kept events in order and returns how many remain")
    func sendPending() async throws {
        let failing = Locked(true)
        let server = Self.server(failing: failing)
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        _ = try? await runway.track(type: "SIGNUP", eventId: "evt-1")
        _ = try? await runway.track(type: "LOGIN", eventId: "evt-2")
        #expect(await runway.sendPendingEvents() == 2)
        failing.set(false)
        let before = server.events.count
        #expect(await runway.sendPendingEvents() == 0)
        #expect(server.events.dropFirst(before).map { $0["eventId"] as? String } == ["evt-1", "evt-2"])
        #expect(await runway.sendPendingEvents() == 0)
        #expect(server.events.count == before + 2)
    }

    @Test("an event still answered 429 after the transport's tries is kept (not refused) and sent later with the same id and timestamp")
    func rateLimitedEventKept() async throws {
        let failing = Locked(true)
        let limited = StubServer.Reply(status: 429, json: #"{"error":{"code":"rate_limited"}}"#, headers: ["Retry-After": "2"])
        let server = Self.server(failing: failing, failure: limited)
        let clock = TestClock()
        let runway = Fixture.runway(server, clock: clock)
        await runway.setConsent(true)
        await #expect(throws: LinkRunwayError.server(status: 429, body: #"{"error":{"code":"rate_limited"}}"#)) {
            try await runway.track(type: "SIGNUP", userId: "u-1", eventId: "evt-1")
        }
        #expect(server.events.count == 3)
        #expect(clock.slept == [2, 2], "the transport waited as Retry-After asked (on the fake clock)")
        #expect(await runway.outbox.map(\.eventId) == ["evt-1"], "a 429 is transient: the event is kept")
        failing.set(false)
        clock.advance(60)
        #expect(await runway.sendPendingEvents() == 0)
        #expect(server.events.count == 4)
        let resent = try #require(server.events.last)
        #expect(resent["eventId"] as? String == "evt-1" && resent["type"] as? String == "SIGNUP" && resent["userId"] as? String == "u-1")
        #expect(resent["timestamp"] as? String == "2026-09-21T14:13:20.000Z")
        #expect(await runway.storage.string(.outbox) == nil)
    }

    @Test("an event the server refuses with a 4xx is dropped from the outbox")
    func refusedEventDropped() async throws {
        let failing = Locked(true)
        let server = Self.server(failing: failing, failure: .init(status: 400, json: #"{"error":{"code":"invalid_body"}}"#))
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        await #expect(throws: LinkRunwayError.server(status: 400, body: #"{"error":{"code":"invalid_body"}}"#)) {
            try await runway.track(type: "SIGNUP", eventId: "evt-1")
        }
        #expect(await runway.storage.string(.outbox) == nil)
        failing.set(false)
        try await runway.track(type: "LOGIN", eventId: "evt-2")
        #expect(server.events.map { $0["eventId"] as? String } == ["evt-1", "evt-2"])
    }

    @Test("the receipt status duplicate is passed through")
    func duplicateReceipt() async throws {
        let server = StubServer { _ in .init(status: 200, json: #"{"eventId":"evt-1","status":"duplicate"}"#) }
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        #expect(try await runway.track(type: "SIGNUP", eventId: "evt-1") == EventReceipt(eventId: "evt-1", status: "duplicate"))
        #expect(await runway.storage.string(.outbox) == nil)
    }

    @Test("two concurrent install() calls send one INSTALL and neither throws")
    func concurrentInstall() async throws {
        let server = StubServer { request in
            var reply = Fixture.standard(request)
            reply.delay = 0.2
            return reply
        }
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        async let first: Void = runway.install()
        async let second: Void = runway.install()
        _ = try await (first, second)
        #expect(server.events.map { $0["type"] as? String } == ["INSTALL"])
        try await runway.install()
        #expect(server.events.count == 1)
    }

    @Test("install() after an offline failure sends the same INSTALL event id and timestamp again")
    func installRetriedWithSameId() async throws {
        let failing = Locked(true)
        let server = Self.server(failing: failing, failure: .failure(.notConnectedToInternet))
        let clock = TestClock()
        let runway = Fixture.runway(server, clock: clock)
        await runway.setConsent(true)
        let error = await thrown { try await runway.install() }
        #expect((error as? URLError)?.code == .notConnectedToInternet)
        let first = try #require(server.events.first)
        failing.set(false)
        clock.advance(120)
        try await runway.install()
        let last = try #require(server.events.last)
        #expect(server.events.count == 4)
        #expect(last["type"] as? String == "INSTALL")
        #expect(last["eventId"] as? String == first["eventId"] as? String)
        #expect(last["timestamp"] as? String == first["timestamp"] as? String)
        try await runway.install()
        #expect(server.events.count == 4, "delivered: not sent again")
    }

    @Test("offline, beyond the outbox limit the oldest events other than INSTALL are dropped; the INSTALL is still sent when the network returns")
    func outboxLimitKeepsInstall() async throws {
        let failing = Locked(true)
        let server = Self.server(failing: failing, failure: .failure(.notConnectedToInternet))
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        _ = await thrown { try await runway.install() }
        let install = try #require(await runway.outbox.first)
        #expect(install.type == "INSTALL")
        // The outbox filled up offline (written at once: 499 offline track calls would take seconds), then two more events.
        let storage = await runway.storage
        let limit = LinkRunway.outboxLimit
        let kept = (0..<limit - 1).map { PendingEvent(eventId: "evt-\($0)", type: "CUSTOM", name: "level", timestamp: install.timestamp) }
        storage.set(String(decoding: try JSONEncoder().encode([install] + kept), as: UTF8.self), .outbox)
        for n in limit - 1...limit { _ = try? await runway.track(type: "CUSTOM", name: "level", eventId: "evt-\(n)") }
        let outbox = await runway.outbox
        #expect(outbox.count == limit)
        #expect(outbox.first == install, "the INSTALL is kept, and still first")
        #expect(outbox.dropFirst().first?.eventId == "evt-2" && outbox.last?.eventId == "evt-\(limit)",
                "the two oldest other events were dropped")
        // The network returns for two events (sending all 500 would take a second).
        let budget = Locked(2)
        server.answer { request in
            budget.withLock { $0 -= 1; return $0 >= 0 } ? Fixture.standard(request) : .init(status: 503, json: #"{"error":{"code":"unavailable"}}"#)
        }
        let before = server.events.count
        #expect(await runway.sendPendingEvents() == limit - 2)
        let sent = server.events.dropFirst(before).map { $0["eventId"] as? String }
        #expect(sent.prefix(2) == [install.eventId, "evt-2"])
        #expect(server.events.dropFirst(before).first?["type"] as? String == "INSTALL")
        #expect(server.events.dropFirst(before).first?["timestamp"] as? String == install.timestamp)
    }

    @Test("withdrawal drops the outbox")
    func withdrawalDropsOutbox() async throws {
        let failing = Locked(true)
        let server = Self.server(failing: failing)
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        _ = try? await runway.track(type: "SIGNUP", eventId: "evt-1")
        #expect(await runway.storage.string(.outbox) != nil)
        await runway.setConsent(false)
        #expect(await runway.storage.string(.outbox) == nil)
        await runway.setConsent(true)
        failing.set(false)
        try await runway.track(type: "LOGIN", eventId: "evt-2")
        #expect(server.events.map { $0["eventId"] as? String } == ["evt-1", "evt-1", "evt-1", "evt-2"])
    }

    @Test("an INSTALL answered 409 duplicate_install counts as delivered: no error, a duplicate receipt, an empty outbox")
    func duplicateInstall() async throws {
        let server = StubServer { request in
            request.path == "/v1/events" && request.body?["type"] as? String == "INSTALL"
                ? .init(status: 409, json: #"{"error":{"code":"duplicate_install","message":"this installation has an INSTALL event"}}"#)
                : Fixture.standard(request)
        }
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        try await runway.install()
        #expect(await runway.storage.string(.outbox) == nil)
        try await runway.install()
        #expect(server.events.count == 1)
        #expect(try await runway.track(type: "INSTALL", eventId: "inst-2") == EventReceipt(eventId: "inst-2", status: "duplicate"))
        #expect(await runway.storage.string(.outbox) == nil)
    }
}
