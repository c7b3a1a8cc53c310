/// The router and its middleware as one responder: what a transport (or the test client) calls.
public struct HTTPApplication: Sendable {
    public let router: Router
    public let middleware: [any Middleware]
    private let pipeline: Responder

    /// `middleware` runs outermost first.
    public init(router: Router, middleware: [any Middleware]) {
        self.router = router
        self.middleware = middleware
        var responder: Responder = { request, context in
            guard let route = context.route else {
                switch router.match(method: request.method, path: request.path) {
                case .methodNotAllowed(let allowed):
                    throw HTTPError(status: 405, code: "method_not_allowed",
                                    message: "\(request.method) is not allowed here; use \(allowed.map(\.rawValue).joined(separator: ", "))",
                                    headers: ["Allow": allowed.map(\.rawValue).joined(separator: ", ")])
                default:
                    throw HTTPError.notFound("not_found", "no route for \(request.method) \(request.path)")
                }
            }
            return try await route.handler(request, context)
        }
        for step in middleware.reversed() {
            let next = responder
            responder = { request, context in try await step.handle(request, context: context, next: next) }
        }
        self.pipeline = responder
    }

    /// Answers a request; never throws (an error no middleware caught becomes a bare 500).
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        var context = RequestContext(requestId: RequestIdMiddleware.generate())
        if case .found(let route, let parameters) = router.match(method: request.method, path: request.path) {
            context.route = route
            context.parameters = parameters
        }
        var response: HTTPResponse
        do {
            response = try await pipeline(request, context)
        } catch {
            response = HTTPError(status: 500, code: "internal_error", message: "internal error").response
        }
        if request.method == "HEAD" { response.body = [] }
        return response
    }
}
