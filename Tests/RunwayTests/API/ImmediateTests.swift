import Foundation
import LinkRunwayAPI
import RunwayHTTP
@testable import RunwayServer
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
        await server.stop()
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
}
