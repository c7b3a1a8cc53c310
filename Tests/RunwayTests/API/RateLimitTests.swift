import Foundation
import LinkRunwayAPI
import RunwayHTTP
@testable import RunwayServer
import Testing

@Suite("Rate limits")
struct RateLimitTests {
    @Test("a client address, then a key, over its limit gets 429 with Retry-After; other addresses and management routes do not")
    func limits() async throws {
        var settings = RateLimitSettings()
        settings.perAddressPerMinute = 5
        settings.perKeyPerMinute = 8
        let server = try await TestServer.start(rateLimits: settings)
        let app = try await server.createApp(in: server.defaultWorkspace.id)
        let key = try await server.createKey(.publishable, app: app.id).secret
        let client = server.client(key)
        func match(_ address: String, _ install: String) async -> HTTPResponse {
            await client.send("POST", "/v1/installs/match", body: Array(#"{"installId":"\#(install)","platform":"ios","consent":true}"#.utf8),
                              remoteAddress: address)
        }
        // One address: its five pass, then 429 (a slow machine may refill a token meanwhile, hence "within ten").
        var statuses: [Int] = []
        var limited: HTTPResponse?
        for i in 0..<10 where limited == nil {
            let response = await match("198.51.100.1", "a\(i)")
            statuses.append(response.status)
            if response.status == 429 { limited = response }
        }
        #expect(statuses.prefix(5).allSatisfy { $0 == 200 })
        let refused = try #require(limited, "the address was never limited: \(statuses)")
        #expect(refused.errorCode == "rate_limited" && refused.bodyText.contains("this address"))
        #expect(Int(refused.headers["Retry-After"] ?? "") ?? 0 >= 1)
        #expect(await match("198.51.100.2", "b0").status == 200, "another address has its own allowance")
        // The key: eight a minute in all, whatever the address; new addresses soon meet its limit.
        var keyLimited: HTTPResponse?
        for i in 0..<20 where keyLimited == nil {
            let response = await match("198.51.100.\(10 + i)", "k\(i)")
            if response.status == 429 { keyLimited = response } else { #expect(response.status == 200) }
        }
        #expect(keyLimited?.bodyText.contains("this key") == true, "the key was never limited")
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

    @Test("limits are settings; 0 turns one off")
    func settings() throws {
        let configuration = try ServerConfiguration.load(environment: ["LINKRUNWAY_RATE_LIMIT_ADDRESS": "0", "LINKRUNWAY_RATE_LIMIT_KEY": "120"], flags: [:])
        #expect(configuration.rateLimits.perAddressPerMinute == 0 && configuration.rateLimits.perKeyPerMinute == 120)
        #expect(RateLimitMiddleware(configuration.rateLimits).byAddress == nil)
        #expect(throws: ServerConfiguration.InvalidSetting.self) { try ServerConfiguration.load(environment: ["LINKRUNWAY_RATE_LIMIT_KEY": "-1"], flags: [:]) }
    }
}
