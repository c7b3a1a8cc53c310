import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayHTTP
@testable import RunwayKit
@testable import RunwayServer
import RunwayTestKit
import Testing

/// Routes that answer on the transport's thread go through the same steps as every other request.
@Suite("Immediate answers")
struct ImmediateTests {
    @Test("/healthz answers without waiting, with the request id, the access line and the metrics the asynchronous path gives")
    func health() async throws {
        let server = try await TestServer.start()
        let request = HTTPRequest(method: "GET", path: "/healthz", headers: HTTPHeaders([("X-Request-Id", "probe-1")]), remoteAddress: "192.0.2.9")
        let now = try #require(server.application.respondImmediately(to: request))
        let later = await server.application.respond(to: request)
        #expect(now.status == 200 && now.body == later.body && now.headers["X-Request-Id"] == "probe-1" && later.headers["X-Request-Id"] == "probe-1")
        #expect(try JSONDecoder().decode(HealthStatus.self, from: Data(now.body)).status == "ok")
        let lines = server.logs.lines.filter { $0.contains(#""requestId":"probe-1""#) }
        #expect(lines.count == 2 && lines.allSatisfy { $0.contains(#""route":"/healthz""#) && $0.contains(#""status":200"#) })
        #expect(server.services.metrics.render().contains(#"linkrunway_http_requests_total{route="GET /healthz",status="200"} 2"#))
        let head = try #require(server.application.respondImmediately(to: HTTPRequest(method: "HEAD", path: "/healthz")))
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(head.prepared == nil, "a HEAD answer is not the prepared one, whose body it leaves out")
        await server.stop()
    }

    @Test("a hot answer echoes the caller's request id and only logs one it made, so a prepared answer goes out unchanged")
    func requestIds() async throws {
        let server = try await TestServer.start()
        let plain = try #require(server.application.respondImmediately(to: HTTPRequest(method: "GET", path: "/healthz")))
        #expect(plain.headers["X-Request-Id"] == nil && plain.prepared != nil, "the prepared /healthz, untouched")
        let logged = try #require(server.logs.lines.last { $0.contains(#""route":"/healthz""#) })
        #expect(logged.contains(#""requestId":""#) && !logged.contains(#""requestId":"""#), "the access line still has an id")
        let asked = try #require(server.application.respondImmediately(to: HTTPRequest(
            method: "GET", path: "/healthz", headers: HTTPHeaders([("X-Request-Id", "probe-2")]))))
        #expect(asked.headers["X-Request-Id"] == "probe-2" && asked.prepared == nil && asked.body == plain.body)
        let refused = try #require(server.application.respondImmediately(to: HTTPRequest(
            method: "GET", path: "/healthz", headers: HTTPHeaders([("X-Request-Id", "not plain; text")]))))
        #expect(refused.headers["X-Request-Id"] == nil, "an id that is not short and plain is not echoed")
        let later = await server.application.respond(to: HTTPRequest(method: "GET", path: "/healthz"))
        #expect(later.headers["X-Request-Id"]?.count == 16, "the ordinary path still names every answer")
        await server.stop()
    }

    @Test("changing a prepared response makes it an ordinary one")
    func preparedStaysUnchanged() {
        var response = HTTPResponse(PreparedResponse(HTTPResponse.text("ok")))
        #expect(response.prepared != nil)
        var headers = response
        headers.headers.set("X-Extra", "1")
        var body = response
        body.body = []
        response.status = 201
        #expect(headers.prepared == nil && body.prepared == nil && response.prepared == nil)
    }

    @Test("a route that needs a key, the store, a rate limit or the console is left to the asynchronous path, untouched")
    func others() async throws {
        let server = try await TestServer.start()
        let before = server.logs.lines.count
        for (method, path) in [("GET", "/v1/workspaces"), ("GET", "/readyz"), ("POST", "/v1/installs/match"), ("GET", "/console/login"),
                               ("GET", "/nowhere-a-link-would-be"), ("GET", "/v1/unknown")] {
            #expect(server.application.respondImmediately(to: HTTPRequest(method: method, path: path)) == nil, "\(method) \(path)")
        }
        #expect(server.logs.lines.count == before, "nothing was logged for requests passed on")
        let openAPI = try #require(server.application.respondImmediately(to: HTTPRequest(method: "GET", path: "/openapi.json")))
        let document = await server.application.respond(to: HTTPRequest(method: "GET", path: "/openapi.json"))
        #expect(openAPI.status == 200 && openAPI.body == document.body)
        await server.stop()
    }

    /// Runs an immediate answer's release, as the transport does, and returns what goes out.
    static func released(_ response: HTTPResponse) async -> HTTPResponse {
        guard let release = response.release else { return response }
        return await withCheckedContinuation { continuation in release.run(response) { continuation.resume(returning: $0) } }
    }

    /// The immediate answer once the caches are warm: `warm` goes the asynchronous way first, again if a slow machine
    /// let a cache entry expire (they live five seconds).
    static func warmed(_ server: TestServer, _ request: HTTPRequest, warm: HTTPRequest? = nil) async throws -> HTTPResponse {
        for _ in 0..<10 {
            _ = await server.application.respond(to: warm ?? request)
            if let answer = server.application.respondImmediately(to: request) { return answer }
        }
        throw ImmediateTestFailure()
    }

    struct ImmediateTestFailure: Error {}

    /// A clock for the caches that stands still, so a loaded machine cannot let them expire (they live five seconds)
    /// between warming them and asking the transport's path.
    static func stoppedClock() -> MonotonicClock {
        let start = ContinuousClock.now
        return MonotonicClock { start }
    }

    /// What a browser sends beside the headers a hot route reads.
    static let browserHeaders = [("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"), ("Accept-Encoding", "gzip, deflate, br"),
                                 ("Cookie", "session=abc"), ("Sec-Fetch-Mode", "navigate"), ("Sec-Fetch-Site", "cross-site"),
                                 ("Upgrade-Insecure-Requests", "1"), ("Forwarded", "for=198.51.100.4"), ("X-Real-IP", "198.51.100.4")]

    @Test("the hot path reads only the headers a transport hands over to it, on every kind of answer")
    func handedOverHeaders() async throws {
        let server = try await TestServer.start(monotonic: Self.stoppedClock())
        _ = try await server.createLink(#"{"workspaceId":"\#(server.defaultWorkspace.id)","path":"promo","destinations":{"web":"https://example.com/spring"}}"#)
        func hot(_ method: String, _ path: String, userAgent: String, _ extra: [(String, String)] = []) -> HTTPRequest {
            HotPath.request(method: method, path: path, query: [("utm_source", "x")],
                            headers: [("Host", "localhost"), ("User-Agent", userAgent), ("Referer", "https://news.example/"),
                                      ("Accept-Language", "fr-FR"), ("X-Request-Id", "hot-1")] + extra + Self.browserHeaders,
                            remoteAddress: "203.0.113.7")
        }
        let tap = hot("GET", "/promo", userAgent: UserAgents.iPhone)
        #expect(tap.headers.fields.map(\.name) == ["Host", "User-Agent", "Referer", "Accept-Language", "X-Request-Id"],
                "only the headers HotPath names are kept, in order")
        _ = HotPath.unsentHeaderReads.take()
        _ = tap.headers["Cookie"]
        #expect(HotPath.unsentHeaderReads.take() == ["cookie"], "a read of a header not handed over is noticed")

        let answers = [
            try await Self.warmed(server, tap), try await Self.warmed(server, hot("HEAD", "/promo", userAgent: UserAgents.iPhone)),
            try await Self.warmed(server, hot("GET", "/promo", userAgent: "Slackbot-LinkExpanding 1.0")),
            try await Self.warmed(server, hot("GET", "/promo", userAgent: UserAgents.iPhone, [("Sec-Purpose", "prefetch")])),
            try await Self.warmed(server, hot("GET", "/nothing", userAgent: UserAgents.desktop)),
            try #require(server.application.respondImmediately(to: hot("GET", "/healthz", userAgent: "kube-probe/1.30"))),
            try #require(server.application.respondImmediately(to: hot("GET", "/openapi.json", userAgent: "curl/8.5.0"))),
        ]
        for answer in answers { _ = await Self.released(answer) }
        #expect(answers.map(\.status) == [302, 302, 200, 302, 404, 200, 200])
        #expect(HotPath.unsentHeaderReads.take().isEmpty, "a hot route read a header the transport does not hand over")
        await server.stop()
    }

    static let tap = HTTPRequest(method: "GET", path: "/promo", headers: HTTPHeaders([("Host", "localhost"), ("User-Agent", UserAgents.iPhone),
                                                                                     ("X-Request-Id", "tap-1")]), remoteAddress: "203.0.113.7")

    @Test("a redirect from the caches answers on the transport's thread, its 302 released only once the click is stored", arguments: StoreBackend.all)
    func redirect(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend, monotonic: Self.stoppedClock())
        _ = try await server.createLink(#"{"workspaceId":"\#(server.defaultWorkspace.id)","path":"promo","destinations":{"web":"https://example.com/spring"}}"#)
        #expect(server.application.respondImmediately(to: Self.tap) == nil, "nothing cached yet: the asynchronous path")
        let held = try await Self.warmed(server, Self.tap)
        #expect(held.release != nil && held.status == 302)
        let before = try await server.clicks().count
        let logged = server.logs.lines.filter { $0.contains("tap-1") }.count
        #expect(before >= 1 && logged == before, "the click is neither stored nor logged before the release runs")
        let sent = await Self.released(held)
        #expect(sent.status == 302 && sent.headers["Location"] == "https://example.com/spring" && sent.headers["X-Request-Id"] == "tap-1")
        let clicks = try await server.clicks()
        let hashes = try clicks.map { try $0.optionalString("address_hash") }
        #expect(clicks.count == before + 1 && hashes.allSatisfy { $0 != nil })
        #expect(server.logs.lines.filter { $0.contains("tap-1") && $0.contains(#""status":302"#) }.count == before + 1)
        #expect(server.services.metrics.render().contains(#"linkrunway_link_visits_total{kind="click",platform="ios"} \#(before + 1)"#))

        // A write that fails is a 503 with the same request id, logged as such; no click.
        await server.store.close()
        guard let failing = server.application.respondImmediately(to: Self.tap) else { return }  // a cache expired: nothing more to see
        let refused = await Self.released(failing)
        #expect(refused.status == 503 && refused.headers["X-Request-Id"] == "tap-1" && refused.headers["Location"] == nil)
        #expect(server.logs.lines.contains { $0.contains("tap-1") && $0.contains(#""status":503"#) })
    }

    @Test("previews, HEAD and unknown links answer immediately with nothing to store; an unknown host is left to the router")
    func noClick() async throws {
        let server = try await TestServer.start(monotonic: Self.stoppedClock())
        _ = try await server.createLink(#"{"workspaceId":"\#(server.defaultWorkspace.id)","path":"promo","destinations":{"web":"https://example.com/spring"}}"#)
        let head = try await Self.warmed(server, HTTPRequest(method: "HEAD", path: "/promo", headers: Self.tap.headers))
        #expect(head.status == 302 && head.release == nil)
        let crawler = HTTPRequest(method: "GET", path: "/promo", headers: HTTPHeaders([("Host", "localhost"), ("User-Agent", "Slackbot-LinkExpanding 1.0")]))
        let preview = try await Self.warmed(server, crawler)
        #expect(preview.status == 200 && preview.release == nil)
        let missing = try await Self.warmed(server, HTTPRequest(method: "GET", path: "/nothing", headers: Self.tap.headers))
        #expect(missing.status == 404 && missing.release == nil)
        #expect(server.application.respondImmediately(to: HTTPRequest(method: "GET", path: "/promo", headers: HTTPHeaders([("Host", "elsewhere.example")]))) == nil)
        #expect(try await server.clicks().isEmpty, "neither HEAD, a preview nor a missing link is a click")
        await server.stop()
    }
}
