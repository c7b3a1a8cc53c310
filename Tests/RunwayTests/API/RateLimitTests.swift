import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayHTTP
@testable import RunwayKit
@testable import RunwayServer
import RunwayTestKit
import Testing

@Suite("Rate limits")
struct RateLimitTests {
    @Test("a client address, then a key, over its limit gets 429 with Retry-After; other addresses and management routes do not")
    func limits() async throws {
        var settings = RateLimitSettings()
        settings.perAddressPerMinute = 5
        settings.perKeyPerMinute = 8
        // Elapsed time stands still unless the test moves it, so the limits are exact.
        let clock = ManualClock()
        let server = try await TestServer.start(monotonic: clock.monotonic, rateLimits: settings)
        let app = try await server.createApp(in: server.defaultWorkspace.id)
        let key = try await server.createKey(.publishable, app: app.id).secret
        let client = server.client(key)
        func match(_ address: String, _ install: String) async throws -> HTTPResponse {
            await client.send("POST", "/v1/installs/match", body: try TestClient.encoded(MatchInstallRequest(installId: install, platform: "ios", consent: true)),
                              remoteAddress: address)
        }
        // One address: its five pass, the sixth waits (12 s for a token at five a minute).
        var statuses: [Int] = []
        for i in 0..<6 { statuses.append(try await match("198.51.100.1", "a\(i)").status) }
        #expect(statuses == [200, 200, 200, 200, 200, 429])
        let refused = try await match("198.51.100.1", "a6")
        #expect(refused.errorCode == "rate_limited" && refused.bodyText.contains("this address"))
        #expect(refused.headers["Retry-After"] == "12")
        clock.advance(seconds: 12)
        #expect(try await match("198.51.100.1", "a7").status == 200, "a token came back")
        #expect(try await match("198.51.100.2", "b0").status == 200, "another address has its own allowance")
        // The key: eight a minute in all, whatever the address. Seven went, and 12 s gave back 1.6: two more pass.
        var keyStatuses: [Int] = []
        for i in 0..<3 { keyStatuses.append(try await match("198.51.100.\(10 + i)", "k\(i)").status) }
        #expect(keyStatuses == [200, 200, 429])
        #expect(try await match("198.51.100.20", "k3").bodyText.contains("this key"))
        // Postback receivers are counted by address too; management routes are not limited.
        var postbackStatuses: [Int] = []
        for _ in 0..<10 where postbackStatuses.last != 429 {
            postbackStatuses.append(await server.client().send("POST", "/.well-known/skadnetwork/report-attribution/", body: Array("{}".utf8),
                                                               remoteAddress: "198.51.100.9").status)
        }
        #expect(postbackStatuses.last == 429, "\(postbackStatuses)")
        for _ in 0..<10 { #expect(await server.admin.send("GET", "/v1/apps", remoteAddress: "198.51.100.1").status == 200) }
        await server.stop()
    }

    @Test("a bucket gives exactly its capacity at once, one request per refill interval after, and no more than its capacity after idling")
    func bucket() {
        let clock = ManualClock()
        let limiter = RateLimiter(capacity: 3, perMinute: 60, clock: clock.monotonic)
        #expect((0..<3).map { _ in limiter.take("k") } == [nil, nil, nil])
        #expect(limiter.take("k") == 1, "the fourth waits a second")
        #expect(limiter.take("other") == nil, "each key has its own bucket")
        clock.advance(seconds: 1)
        #expect(limiter.take("k") == nil, "one token a second comes back")
        #expect(limiter.take("k") != nil)
        // An hour idle refills to the capacity, not to an hour's worth.
        clock.advance(seconds: 3_600)
        #expect((0..<4).map { _ in limiter.take("k") == nil } == [true, true, true, false])
    }

    @Test("every route a publishable key reaches, and the forget route, is counted by address")
    func everyClientRouteLimited() async throws {
        var settings = RateLimitSettings()
        settings.perAddressPerMinute = 3
        let server = try await TestServer.start(rateLimits: settings)
        // Routes every installed app calls that a publishable key reaches but that are not limited, each with its reason.
        let unlimited: Set<String> = [
            "GET /v1/me",  // answers only about the key that asks
        ]
        for route in server.application.router.routes {
            guard case .keys(let kinds) = route.operation.access, kinds.contains("publishable") else { continue }
            let label = "\(route.method.rawValue) \(route.pattern)"
            #expect(route.operation.rateLimited || unlimited.contains(label), "\(label) is not rate limited")
        }
        // Open routes that Apple or anyone can reach.
        let open = ["POST /v1/app-store/notifications/{surfaceId}", "POST /v1/app-store/assn/{surfaceId}",
                    "POST /.well-known/skadnetwork/report-attribution/", "POST /.well-known/appattribution/report-attribution/"]
        for label in open {
            #expect(server.application.router.routes.first { "\($0.method.rawValue) \($0.pattern)" == label }?.operation.rateLimited == true, "\(label)")
        }
        // The forget route answers anyone who holds the app's key and an install id: guessing the secret meets the limit.
        let app = try await server.createApp(in: server.defaultWorkspace.id)
        let client = server.client(try await server.createKey(.publishable, app: app.id).secret)
        var statuses: [Int] = []
        for _ in 0..<6 where statuses.last != 429 {
            statuses.append(await client.send("POST", "/v1/installs/some-install/forget", headers: [("LinkRunway-Install-Secret", "guess")],
                                              remoteAddress: "198.51.100.7").status)
        }
        #expect(statuses.last == 429, "\(statuses)")
        await server.stop()
    }

    @Test("events are limited by address and key, each event of a batch counted, and an install has a daily allowance under the publishable key")
    func eventsCounted() async throws {
        var settings = RateLimitSettings()
        settings.perAddressPerMinute = 50
        settings.perKeyPerMinute = 0
        let clock = ManualClock()
        let server = try await TestServer.start(monotonic: clock.monotonic, rateLimits: settings)
        let app = try await server.createApp(in: server.defaultWorkspace.id)
        let client = server.client(try await server.createKey(.publishable, app: app.id).secret)
        func batch(_ count: Int, from address: String, first: Int = 0, install: String = "inst-r") async throws -> HTTPResponse {
            let events = EventBatchRequest(events: (first..<(first + count)).map { EventTests.event("r-\($0)", install: install) })
            return await client.send("POST", "/v1/events/batch", body: try TestClient.encoded(events), remoteAddress: address)
        }
        let large = try await batch(60, from: "198.51.100.30")
        #expect(large.status == 429 && large.errorCode == "rate_limited", "sixty events are more than the address's fifty: \(large.status)")
        clock.advance(seconds: 60)
        #expect(try await batch(40, from: "198.51.100.30").status == 200)
        let more = try await batch(20, from: "198.51.100.30", first: 40)
        #expect(more.status == 429, "forty and twenty events in a minute are sixty")
        #expect(try await batch(9, from: "198.51.100.30", first: 60).status == 200, "the refused batch took one request's worth: nine are left")
        let single = await client.send("POST", "/v1/events", body: try TestClient.encoded(EventTests.event("one")), remoteAddress: "198.51.100.30")
        #expect(single.status == 429, "one event is counted as a request like any other")

        // An install's allowance: ten thousand events a day, whatever the addresses; the next one is refused by name.
        var unlimited = RateLimitSettings()
        unlimited.perAddressPerMinute = 0
        unlimited.perKeyPerMinute = 0
        let open = try await TestServer.start(monotonic: clock.monotonic, rateLimits: unlimited)
        let openApp = try await open.createApp(in: open.defaultWorkspace.id)
        let openClient = open.client(try await open.createKey(.publishable, app: openApp.id).secret)
        let perDay = unlimited.eventsPerInstallPerDay
        for start in stride(from: 0, to: perDay, by: Events.batchLimit) {
            let events = EventBatchRequest(events: (start..<(start + Events.batchLimit)).map { EventTests.event("d-\($0)", install: "busy") })
            let answer = try await openClient.send("POST", "/v1/events/batch", body: try TestClient.encoded(events),
                                                   remoteAddress: "198.51.100.\(start % 200)").decoded(EventBatchResponse.self)
            #expect(!answer.results.contains { $0.error?.code == "rate_limited" }, "within the allowance (from \(start))")
        }
        let over = try await openClient.post("/v1/events/batch", EventBatchRequest(events: [EventTests.event("d-over", install: "busy"),
                                                                                            EventTests.event("d-other", install: "calm")]))
            .decoded(EventBatchResponse.self)
        #expect(over.results.first?.error?.code == "rate_limited" && over.results.last?.error?.code != "rate_limited",
                "another install is not held back: \(over.results)")
        #expect(over.results.first?.error?.message.contains("this install") == true)
        await server.stop()
        await open.stop()
    }

    @Test("a bucket held back stays held back through a flood of new keys; the least recently used and the full go first")
    func evictionKeepsHeldBuckets() {
        let clock = ManualClock()
        let limiter = RateLimiter(capacity: 2, perMinute: 1, clock: clock.monotonic, maxBuckets: 100)
        #expect(limiter.take("attacker") == nil && limiter.take("attacker") == nil && limiter.take("attacker") != nil)
        var letThrough = 0
        for i in 0..<1_000 {
            clock.advance(seconds: 0.001)
            _ = limiter.take("fresh-\(i)")
            if limiter.take("attacker") == nil { letThrough += 1 }
        }
        #expect(letThrough == 0, "the flood never emptied the table and the held bucket with it")
        #expect(limiter.count <= 100)
        #expect(limiter.take("batch", count: 2) == nil && limiter.take("batch") != nil, "a batch takes a token per item")
        #expect(limiter.take("huge", count: 50) == nil, "more than the bucket holds costs all of it, once")
        #expect(limiter.take("huge") != nil)
    }

    @Test("addresses are counted whole for IPv4 and by /64 for IPv6; an IPv4-mapped address as its IPv4 one")
    func addressBuckets() {
        #expect(AddressBucket.key(for: "203.0.113.7") == "203.0.113.7")
        #expect(AddressBucket.key(for: "2001:db8:1:2:a:b:c:d") == "2001:db8:1:2::/64")
        #expect(AddressBucket.key(for: "2001:db8:1:2::1") == AddressBucket.key(for: "2001:0db8:0001:0002:ffff::9"))
        #expect(AddressBucket.key(for: "2001:db8:1:3::1") != AddressBucket.key(for: "2001:db8:1:2::1"))
        #expect(AddressBucket.key(for: "::ffff:198.51.100.4") == "198.51.100.4")
        #expect(AddressBucket.key(for: "fe80::1%eth0") == "fe80:0:0:0::/64")
        #expect(AddressBucket.key(for: "not an address") == "not an address")
    }

    @Test("every address of one IPv6 /64 shares one allowance")
    func ipv6Network() async throws {
        var settings = RateLimitSettings()
        settings.perAddressPerMinute = 3
        let clock = ManualClock()
        let server = try await TestServer.start(monotonic: clock.monotonic, rateLimits: settings)
        var statuses: [Int] = []
        for i in 1...4 {
            statuses.append(await server.client().send("POST", "/.well-known/skadnetwork/report-attribution/", body: Array("{}".utf8),
                                                       remoteAddress: "2001:db8:7:7::\(i)").status)
        }
        #expect(statuses == [200, 200, 200, 429], "\(statuses)")
        #expect(await server.client().send("POST", "/.well-known/skadnetwork/report-attribution/", body: Array("{}".utf8),
                                           remoteAddress: "2001:db8:7:8::1").status == 200, "the next /64 is another subscriber")
        await server.stop()
    }

    @Test("limits are settings; 0 turns one off")
    func settings() throws {
        let configuration = try ServerConfiguration.load(environment: ["LINKRUNWAY_RATE_LIMIT_ADDRESS": "0", "LINKRUNWAY_RATE_LIMIT_KEY": "120",
                                                                       "LINKRUNWAY_RATE_LIMIT_INSTALL_EVENTS": "0"], flags: [:])
        #expect(configuration.rateLimits.perAddressPerMinute == 0 && configuration.rateLimits.perKeyPerMinute == 120)
        #expect(RateLimitMiddleware(configuration.rateLimits).eventsByInstall == nil)
        #expect(RateLimitMiddleware(configuration.rateLimits).byAddress == nil)
        #expect(throws: ServerConfiguration.InvalidSetting.self) { try ServerConfiguration.load(environment: ["LINKRUNWAY_RATE_LIMIT_KEY": "-1"], flags: [:]) }
    }
}
