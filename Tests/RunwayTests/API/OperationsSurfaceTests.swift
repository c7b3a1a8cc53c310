import Foundation
import LinkRunwayAPI
import RunwayHTTP
@testable import RunwayKit
@testable import RunwayServer
import RunwayTestKit
import Testing

/// `/readyz` and `/metrics` are the operator's: this machine, the trusted proxies' own checks, or the token.
@Suite("Operations surface")
struct OperationsSurfaceTests {
    static let api = ("Host", "127.0.0.1:8080")

    /// The server's pipeline with trusted proxies, as `linkrunway serve --trusted-proxies` builds it.
    static func behindProxies(_ server: TestServer, _ proxies: String) throws -> TestClient {
        TestClient(ServerApplication.make(server.services, maxBodyBytes: 1 << 20, trustedProxies: try #require(TrustedProxies(proxies))))
    }

    @Test("/readyz and /metrics answer this machine and a trusted proxy's own checks, never a client a proxy relays",
          arguments: StoreBackend.all)
    func onlyTheOperator(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        let direct = server.client()
        let proxied = try Self.behindProxies(server, "10.0.0.0/8")
        func status(_ client: TestClient, _ path: String, from address: String, _ headers: [(String, String)] = []) async -> Int {
            await client.checkStatus(path, headers: [Self.api] + headers, from: address)
        }
        for path in ["/readyz", "/metrics"] {
            #expect(await status(direct, path, from: "127.0.0.1") == 200, "\(path) from this machine")
            #expect(await status(direct, path, from: "::1") == 200, "\(path) from this machine over IPv6")
            #expect(await status(proxied, path, from: "10.1.2.3") == 200, "\(path): the proxy's own check")
            // nginx on this machine, not trusted, relaying someone: the forwarding header gives it away.
            #expect(await status(direct, path, from: "127.0.0.1", [("X-Forwarded-For", "198.51.100.4")]) == 404, "\(path)")
            #expect(await status(direct, path, from: "127.0.0.1", [("X-Real-IP", "198.51.100.4")]) == 404, "\(path)")
            #expect(await status(direct, path, from: "127.0.0.1", [("Forwarded", "for=198.51.100.4")]) == 404, "\(path)")
            #expect(await status(proxied, path, from: "10.1.2.3", [("X-Forwarded-For", "198.51.100.4")]) == 404, "\(path) relayed by the trusted proxy")
            #expect(await status(proxied, path, from: "10.1.2.3", [("X-Forwarded-For", "127.0.0.1")]) == 404, "\(path): a client claiming loopback")
            #expect(await status(direct, path, from: "203.0.113.9") == 404, "\(path) from the internet")
            #expect(await status(direct, path, from: "10.1.2.3") == 404, "\(path) from an untrusted private address")
        }
        let hidden = await direct.send("GET", "/readyz", headers: [Self.api], remoteAddress: "203.0.113.9")
        #expect(hidden.errorCode == "not_found" && !hidden.bodyText.contains("schema"))
        #expect(await direct.send("GET", "/healthz", remoteAddress: "203.0.113.9").status == 200, "liveness stays open")
        await server.stop()
    }

    @Test("the metrics token opens /readyz from anywhere; with it set, /metrics needs it even locally")
    func token() async throws {
        let server = try await TestServer.start(metricsToken: "scrape-token-0123456789")
        let client = server.client()
        let bearer = ("Authorization", "Bearer scrape-token-0123456789")
        #expect(await client.checkStatus("/readyz", headers: [Self.api, bearer], from: "203.0.113.9") == 200)
        #expect(await client.send("GET", "/readyz", headers: [Self.api, ("Authorization", "Bearer scrape-token-012345678")],
                                  remoteAddress: "203.0.113.9").status == 404)
        #expect(await client.send("GET", "/metrics", headers: [Self.api, bearer], remoteAddress: "203.0.113.9").status == 200)
        #expect(await client.send("GET", "/metrics", headers: [Self.api], remoteAddress: "127.0.0.1").status == 401)
        #expect(await client.checkStatus("/readyz", headers: [Self.api]) == 200)
        await server.stop()
    }

    @Test("a store that fails shows a fixed text on /readyz; the reason goes to the log", arguments: StoreBackend.all)
    func fixedFailureText(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        await server.stop()
        let down = await server.client().get("/readyz")
        #expect(down.status == 503)
        let status = try JSONDecoder().decode(ReadinessStatus.self, from: Data(down.body))
        #expect(status.status == "unavailable" && status.store == "unreachable" && status.schema == nil)
        #expect(down.bodyText.count < 80, "nothing of the store's error: \(down.bodyText)")
        #expect(server.logs.lines.contains { $0.contains("readiness: the store does not answer") && $0.contains("\"error\"") },
                "\(server.logs.lines.suffix(3))")
    }

    @Test("a proxy that says its clients use TLS without being trusted is logged once and named on /readyz")
    func untrustedTLSProxy() async throws {
        let server = try await TestServer.start()
        let client = server.client()
        func readiness() async throws -> ReadinessStatus {
            try await client.check("/readyz", headers: [Self.api]).decoded(ReadinessStatus.self)
        }
        #expect(try await readiness().untrustedProxy == nil)
        // From the internet the header is anyone's to send, and says nothing of the operator's proxy.
        _ = await client.send("GET", "/healthz", headers: [("X-Forwarded-Proto", "https")], remoteAddress: "203.0.113.9")
        _ = await client.send("GET", "/no-such-link", headers: [("X-Forwarded-Proto", "https")], remoteAddress: "203.0.113.9")
        #expect(try await readiness().untrustedProxy == nil)
        for _ in 0..<3 {
            _ = await client.send("GET", "/no-such-link", headers: [("X-Forwarded-Proto", "https"), ("X-Forwarded-For", "198.51.100.4")],
                                  remoteAddress: "127.0.0.1")
        }
        #expect(try await readiness().untrustedProxy == "127.0.0.1")
        #expect(server.logs.lines.filter { $0.contains("a proxy that is not trusted says its clients use TLS") }.count == 1)
        // Trusted, the same proxy is believed and not reported.
        let trusted = try await TestServer.start()
        let behind = try Self.behindProxies(trusted, "127.0.0.1")
        _ = await behind.send("GET", "/no-such-link", headers: [("X-Forwarded-Proto", "https"), ("X-Forwarded-For", "198.51.100.4")],
                              remoteAddress: "127.0.0.1")
        let seen = try await behind.check("/readyz", headers: [Self.api]).decoded(ReadinessStatus.self)
        #expect(seen.untrustedProxy == nil)
        await trusted.stop()
        await server.stop()
    }
}

/// API clients get the API's JSON error for every path under `/v1`, whatever the Host and the method.
@Suite("Unknown API routes")
struct UnknownAPIRouteTests {
    @Test("every unknown /v1 path and unsupported method answers the JSON error, on a link domain too; link pages keep HTML")
    func jsonForTheAPI() async throws {
        let server = try await TestServer.start()
        let client = server.client()
        for host in ["localhost", "127.0.0.1:8080", "unknown.example.com"] {
            for path in ["/v1/no-such-thing", "/v1", "/v1/", "/v1/links/lnk_x/no-such", "/v1/apps/x/y/z?q=1"] {
                for method in ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "BREW"] {
                    let answer = await client.send(method, path, headers: [("Host", host)], remoteAddress: "203.0.113.9")
                    #expect([404, 405].contains(answer.status), "\(method) \(path) on \(host): \(answer.status)")
                    #expect(answer.headers["Content-Type"]?.hasPrefix("application/json") == true,
                            "\(method) \(path) on \(host): \(answer.headers["Content-Type"] ?? "none")")
                    if method != "HEAD" {
                        #expect(["not_found", "method_not_allowed"].contains(answer.errorCode ?? ""), "\(method) \(path) on \(host)")
                    }
                }
            }
        }
        // A link page is still a page, and a path that only starts with v1 may be a link.
        let page = await client.send("GET", "/no-such-link", headers: [("Host", "localhost"), ("User-Agent", UserAgents.iPhone)])
        #expect(page.status == 404 && page.headers["Content-Type"]?.hasPrefix("text/html") == true)
        _ = try await server.createLink(CreateLinkRequest(workspaceId: server.defaultWorkspace.id, path: "v1launch", destinations: LinkDestinations(web: "https://example.com")))
        #expect(await server.follow("/v1launch", userAgent: UserAgents.desktop).status == 302)
        await server.stop()
    }
}
