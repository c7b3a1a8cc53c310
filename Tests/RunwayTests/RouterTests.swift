@testable import RunwayHTTP
import Testing

@Suite("Router")
struct RouterTests {
    static func route(_ method: HTTPMethod, _ pattern: String) -> Route {
        Route(method: method, pattern: pattern, operation: Operation(id: pattern, summary: "", tag: "t", access: .open, responses: [])) { _, _ in
            .text(pattern)
        }
    }

    let router = Router(routes: [
        route(.GET, "/"),
        route(.GET, "/v1/apps"),
        route(.POST, "/v1/apps"),
        route(.GET, "/v1/apps/{appId}"),
        route(.GET, "/v1/apps/special"),
        route(.POST, "/v1/apps/{appId}/keys"),
        route(.GET, "/files/{path...}"),
    ])

    func matched(_ method: String, _ path: String) -> (String, [String: String])? {
        if case .found(let route, let parameters) = router.match(method: method, path: path) { return (route.pattern, parameters) }
        return nil
    }

    @Test("matches literals, parameters and the rest of a path")
    func matches() {
        #expect(matched("GET", "/")?.0 == "/")
        #expect(matched("GET", "/v1/apps")?.0 == "/v1/apps")
        #expect(matched("GET", "/v1/apps/")?.0 == "/v1/apps")
        #expect(matched("GET", "/v1/apps/app_1")?.1 == ["appId": "app_1"])
        #expect(matched("GET", "/v1/apps/special")?.0 == "/v1/apps/special")
        #expect(matched("POST", "/v1/apps/special/keys")?.1 == ["appId": "special"])
        #expect(matched("GET", "/files/a/b/c.txt")?.1 == ["path": "a/b/c.txt"])
    }

    @Test("a route without parameters is found the same way by its exact path (one lookup) and with extra slashes (the tree)")
    func literalPaths() {
        for path in ["/v1/apps", "/v1/apps/", "//v1//apps"] {
            #expect(matched("GET", path)?.0 == "/v1/apps", "\(path)")
            #expect(matched("POST", path)?.0 == "/v1/apps", "\(path)")
            #expect(matched("HEAD", path)?.0 == "/v1/apps", "\(path)")
        }
        #expect(matched("GET", "/v1/apps/special")?.0 == "/v1/apps/special", "a literal segment wins over a parameter")
        guard case .methodNotAllowed(let allowed) = router.match(method: "POST", path: "/v1/apps/special") else {
            Issue.record("POST of a GET-only literal route is not allowed")
            return
        }
        #expect(allowed == [.GET])
    }

    @Test("HEAD falls back to GET")
    func head() {
        #expect(matched("HEAD", "/v1/apps/x")?.0 == "/v1/apps/{appId}")
    }

    @Test("unknown paths are not found; known paths with another method are not allowed")
    func misses() {
        if case .notFound = router.match(method: "GET", path: "/v2") {} else { Issue.record("expected notFound") }
        if case .notFound = router.match(method: "GET", path: "/v1/apps/a/b") {} else { Issue.record("expected notFound") }
        guard case .methodNotAllowed(let allowed) = router.match(method: "DELETE", path: "/v1/apps") else {
            Issue.record("expected methodNotAllowed")
            return
        }
        #expect(allowed == [.GET, .POST])
        if case .methodNotAllowed = router.match(method: "BREW", path: "/v1/apps") {} else { Issue.record("unknown methods get 405") }
    }

    @Test("a request its transport routed is answered by that route, neither matched nor held to a body limit again")
    func routedByTransport() async throws {
        let small = Route(method: .POST, pattern: "/v1/apps/{appId}/keys",
                          operation: Operation(id: "keys", summary: "", tag: "t", access: .open, responses: [], maxBodyBytes: 4)) { _, context in
            .text("keys of \(try context.parameter("appId"))")
        }
        let app = HTTPApplication(router: Router(routes: [small, Self.route(.POST, "/v1/apps")]), middleware: [
            ErrorMiddleware(map: { $0 as? HTTPError ?? HTTPError(status: 500, code: .internalError, message: "x") }), BodyLimitMiddleware(defaultLimit: 1 << 20),
        ])
        var request = HTTPRequest(method: "POST", path: "/v1/apps", body: Array("a longer body".utf8))
        #expect(await app.respond(to: request).bodyText == "/v1/apps")
        request.matchedRoute = (small, ["appId": "a1"])
        let answer = await app.respond(to: request)
        #expect(answer.status == 200 && answer.bodyText == "keys of a1", "the transport's match is used as it is")
        request.matchedRoute = nil
        request.path = "/v1/apps/a1/keys"
        #expect(await app.respond(to: request).status == 413, "matched here, the limit is checked here")
    }

    @Test("the application answers 404 and 405 with JSON bodies and an Allow header")
    func applicationErrors() async {
        let app = HTTPApplication(router: router, middleware: [ErrorMiddleware(map: { $0 as? HTTPError ?? HTTPError(status: 500, code: .internalError, message: "x") })])
        let notFound = await TestClient(app).get("/nope")
        #expect(notFound.status == 404)
        #expect(notFound.bodyText.contains(#""code":"not_found""#))
        let notAllowed = await TestClient(app).send("PUT", "/v1/apps")
        #expect(notAllowed.status == 405)
        #expect(notAllowed.headers["Allow"] == "GET, POST")
        #expect(notAllowed.headers["Content-Type"] == "application/json")
    }
}
