import Foundation
@testable import LinkRunway
import Synchronization
import Testing

@Suite("Conversion values")
struct ConversionTests {
    static let schema = #"""
        {"appId":"app_1","refreshSeconds":86400,"conversions":{"appId":"app_1","version":3,"createdAt":"2026-01-01T00:00:00.000Z","rules":[
          {"type":"INSTALL","fine":0,"coarse":"low"},
          {"type":"SIGNUP","fine":10,"coarse":"medium"},
          {"type":"CUSTOM","name":"level_10","fine":20},
          {"type":"CUSTOM","fine":15},
          {"type":"PURCHASE","minAmount":0,"fine":30,"coarse":"medium"},
          {"type":"PURCHASE","minAmount":4999,"fine":50,"coarse":"high","lockWindow":true},
          {"type":"PURCHASE","minAmount":4999,"name":"annual","fine":55,"coarse":"high"},
          {"type":"OPEN","fine":60},
          {"type":"LOGIN","fine":64},
          {"type":"OPEN","fine":5,"coarse":"enormous"}],
         "laterWindows":[{"window":2,"rules":[{"type":"SUBSCRIPTION","coarse":"high"}]}]}}
        """#

    static func setUp(clock: TestClock = TestClock()) async throws -> (LinkRunway, StubServer, ConversionLog) {
        let server = StubServer { request in
            request.path.hasPrefix("/v1/mobile/config") ? .init(status: 200, json: schema) : Fixture.stored
        }
        let log = ConversionLog()
        let runway = Fixture.runway(server, clock: clock, frameworks: [log.skan, log.aak])
        await runway.setConsent(true)
        #expect(try await runway.configureConversions(appId: "app_1") == 3)
        return (runway, server, log)
    }

    @Test("rule choice: highest minAmount, then a named rule, then the higher fine value, then the earlier rule; unreadable rules skipped")
    func choice() throws {
        let json = try JSONSerialization.jsonObject(with: Data(Self.schema.utf8)) as! [String: Any]
        let schema = try #require(ConversionSchema(json: json["conversions"] as! [String: Any]))
        #expect(schema.rules.count == 8, "fine 64 and an unknown coarse value are skipped")
        func fine(_ type: String, _ name: String? = nil, _ amount: Int64? = nil) -> Int? {
            ConversionSchema.choose(schema.rules, type: type, name: name, amount: amount)?.fine
        }
        #expect(fine("PURCHASE", nil, 100) == 30)
        #expect(fine("PURCHASE", nil, 4999) == 50)
        #expect(fine("PURCHASE", "annual", 5000) == 55, "a named rule beats an unnamed one at the same minAmount")
        #expect(fine("CUSTOM", "level_10") == 20)
        #expect(fine("CUSTOM", "other") == 15)
        #expect(fine("LOGIN") == nil)
    }

    @Test("updates go to both frameworks in order, SKAdNetwork first unless the rule locks; never lower; recordConversion waits for its own")
    func updates() async throws {
        let (runway, server, log) = try await Self.setUp()
        let signup = await runway.recordConversion(event: "SIGNUP")
        #expect(signup == ConversionUpdate(fine: 10, coarse: .medium, lockWindow: false, frameworks: ["skadnetwork", "adattributionkit"]))
        #expect(await runway.recordConversion(event: "INSTALL") == nil, "0 is below 10 already sent")
        #expect(await runway.recordConversion(event: "SIGNUP")?.fine == 10, "an equal value is sent again")
        let locked = await runway.recordConversion(event: "PURCHASE", amount: 4999)
        #expect(locked?.lockWindow == true && locked?.frameworks == ["adattributionkit", "skadnetwork"], "a lock goes to AdAttributionKit first")
        #expect(log.all.suffix(2).map(\.framework) == ["adattributionkit", "skadnetwork"])
        #expect(log.all.allSatisfy { $0.tag == nil })
        #expect(!server.paths().contains { $0.contains("conversion") }, "nothing about conversions goes to LinkRunway")

        // Events trigger updates without waiting; they reach Apple in the order requested.
        try await runway.track(type: "OPEN")
        try await runway.track(type: "CUSTOM", name: "level_10")
        await runway.conversionQueue?.value
        #expect(log.all.map(\.fine).suffix(2) == [60, 60], "60 was sent; 20 is lower and dropped")
    }

    @Test("in the second window the window's own coarse rule decides; the fine value stays")
    func laterWindow() async throws {
        let clock = TestClock()
        let (runway, _, log) = try await Self.setUp(clock: clock)
        _ = await runway.recordConversion(event: "PURCHASE", amount: 100)
        clock.advance(3 * 86_400)
        let update = await runway.recordConversion(event: "SUBSCRIPTION")
        #expect(update?.fine == 30 && update?.coarse == .high)
        #expect(log.all.count == 4)
    }

    @Test("the schema is fetched at most once a day; a failed refresh keeps yesterday's and waits five minutes")
    func refresh() async throws {
        let clock = TestClock()
        let (runway, server, _) = try await Self.setUp(clock: clock)
        _ = try await runway.configureConversions(appId: "app_1")
        #expect(server.requests.count == 1)
        clock.advance(86_400)
        server.answer { _ in .init(status: 500, json: "{}") }
        #expect(try await runway.configureConversions(appId: "app_1") == 3, "yesterday's schema keeps working")
        let failed = server.requests.count
        #expect(try await runway.configureConversions(appId: "app_1") == 3)
        #expect(server.requests.count == failed, "no new fetch within five minutes of a failure")
        clock.advance(301)
        server.answer { _ in .init(status: 200, json: ConversionTests.schema) }
        _ = try await runway.configureConversions(appId: "app_1")
        #expect(server.requests.count == failed + 1)
    }

    @Test("a re-engagement's conversion tag goes with updates for two days; withdrawal drops queued updates and the high-water mark")
    func tagsAndWithdrawal() async throws {
        let clock = TestClock()
        let (runway, server, log) = try await Self.setUp(clock: clock)
        server.answer { request in
            request.path == "/v1/resolve" ? .init(status: 200, json: #"{"linkId":"l","url":"u","clickToken":"c","signedClickId":"s"}"#) : Fixture.stored
        }
        _ = try await runway.open(URL(string: "https://go.example/r?AdAttributionKitReengagementOpen=t-1")!)
        _ = await runway.recordConversion(event: "OPEN")
        #expect(log.all.last?.tag == "t-1")
        clock.advance(2 * 86_400 + 1)
        _ = await runway.recordConversion(event: "OPEN")
        #expect(log.all.last?.tag == nil, "the re-engagement's window is over")
        await runway.setConsent(false)
        #expect(await runway.recordConversion(event: "OPEN") == nil)
        await runway.setConsent(true)
        let storage = await runway.storage
        #expect(storage.int(.highestFine) == nil && storage.string(.schema) == nil)
    }
}
