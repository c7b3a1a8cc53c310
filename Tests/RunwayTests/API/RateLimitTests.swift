import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayHTTP
@testable import RunwayKit
@testable import RunwayServer
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
        func match(_ address: String, _ install: String) async -> HTTPResponse {
            await client.send("POST", "/v1/installs/match", body: Array(#"{"installId":"\#(install)","platform":"ios","consent":true}"#.utf8),
                              remoteAddress: address)
        }
        // One address: its five pass, the sixth waits (12 s for a token at five a minute).
        var statuses: [Int] = []
        for i in 0..<6 { statuses.append(await match("198.51.100.1", "a\(i)").status) }
        #expect(statuses == [200, 200, 200, 200, 200, 429])
        let refused = await match("198.51.100.1", "a6")
        #expect(refused.errorCode == "rate_limited" && refused.bodyText.contains("this address"))
        #expect(refused.headers["Retry-After"] == "12")
        clock.advance(seconds: 12)
        #expect(await match("198.51.100.1", "a7").status == 200, "a token came back")
        #expect(await match("198.51.100.2", "b0").status == 200, "another address has its own allowance")
        // The key: eight a minute in all, whatever the address. Seven went, and 12 s gave back 1.6: two more pass.
        var keyStatuses: [Int] = []
        for i in 0..<3 { keyStatuses.append(await match("198.51.100.\(10 + i)", "k\(i)").status) }
        #expect(keyStatuses == [200, 200, 429])
        #expect(await match("198.51.100.20", "k3").bodyText.contains("this key"))
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
            // Every install sends these from an outbox that retries, and they are stored once per event id; whether
            // they need a cap per key is still open.
            "POST /v1/events", "POST /v1/events/batch",
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

    @Test("limits are settings; 0 turns one off")
    func settings() throws {
        let configuration = try ServerConfiguration.load(environment: ["LINKRUNWAY_RATE_LIMIT_ADDRESS": "0", "LINKRUNWAY_RATE_LIMIT_KEY": "120"], flags: [:])
        #expect(configuration.rateLimits.perAddressPerMinute == 0 && configuration.rateLimits.perKeyPerMinute == 120)
        #expect(RateLimitMiddleware(configuration.rateLimits).byAddress == nil)
        #expect(throws: ServerConfiguration.InvalidSetting.self) { try ServerConfiguration.load(environment: ["LINKRUNWAY_RATE_LIMIT_KEY": "-1"], flags: [:]) }
    }
}
