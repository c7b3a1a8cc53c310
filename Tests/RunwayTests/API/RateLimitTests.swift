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
        for i in 0..<5 { #expect(await match("198.51.100.1", "a\(i)").status == 200) }
        let limited = await match("198.51.100.1", "a5")
        #expect(limited.status == 429 && limited.errorCode == "rate_limited")
        #expect(Int(limited.headers["Retry-After"] ?? "") ?? 0 >= 1)
        #expect(await match("198.51.100.2", "b0").status == 200, "another address has its own allowance")
        // The key has had 6 requests counted (the refused one stopped at its address); two more pass, then it is over.
        #expect(await match("198.51.100.3", "c0").status == 200)
        #expect(await match("198.51.100.4", "d0").status == 200)
        let keyLimited = await match("198.51.100.5", "e0")
        #expect(keyLimited.status == 429 && keyLimited.bodyText.contains("this key"))
        // Postback receivers are counted by address too; management routes are not limited.
        for _ in 0..<5 { _ = await server.client().send("POST", "/.well-known/skadnetwork/report-attribution/", body: Array("{}".utf8), remoteAddress: "198.51.100.9") }
        #expect(await server.client().send("POST", "/.well-known/skadnetwork/report-attribution/", body: Array("{}".utf8), remoteAddress: "198.51.100.9").status == 429)
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
