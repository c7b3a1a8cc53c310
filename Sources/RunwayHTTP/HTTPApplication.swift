import LinkRunwayAPI

/// The router and its middleware as one responder: what a transport (or the test client) calls.
public struct HTTPApplication: Sendable {
    public let router: Router
    public let middleware: [any Middleware]
    private let pipeline: Responder
    private let hotPath: HotPath?

    /// `middleware` runs outermost first; `hotPath` names the steps the routes that answer immediately share with it
    /// (without it, every request takes the chain).
    public init(router: Router, middleware: [any Middleware], hotPath: HotPath.Steps? = nil) {
        self.router = router
        self.middleware = middleware
        var responder: Responder = { request, context in
            guard let route = context.route else {
                switch router.match(method: request.method, path: request.path) {
                case .methodNotAllowed(let allowed):
                    throw HTTPError(status: 405, code: .methodNotAllowed,
                                    message: "\(request.method) is not allowed here; use \(allowed.map(\.rawValue).joined(separator: ", "))",
                                    headers: ["Allow": allowed.map(\.rawValue).joined(separator: ", ")])
                default:
                    throw HTTPError.notFound(.notFound, "no route for \(request.method) \(request.path)")
                }
            }
            return try await route.handler(request, context)
        }
        for step in middleware.reversed() {
            let next = responder
            responder = { request, context in try await step.handle(request, context: context, next: next) }
        }
        self.pipeline = responder
        self.hotPath = hotPath.map { steps in
            HotPath(router: router, steps: steps) { path in middleware.contains { $0.answersBeforeRouting(path) } }
        }
    }

    /// Answers on the caller's thread through the hot path (`HotPath`) when the route can; nil otherwise (then nothing
    /// happened, and `respond(to:)` is the way).
    public func respondImmediately(to request: HTTPRequest) -> HTTPResponse? {
        hotPath?.respond(to: request)
    }

    /// Answers a request; never throws (an error no middleware caught becomes a bare 500).
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        var context = RequestContext(requestId: RequestIdMiddleware.generate())
        if let matched = request.matchedRoute {
            (context.route, context.parameters) = (matched.route, matched.parameters)
        } else if case .found(let route, let parameters) = router.match(method: request.method, path: request.path) {
            (context.route, context.parameters) = (route, parameters)
        }
        var response: HTTPResponse
        do {
            response = try await pipeline(request, context)
        } catch {
            response = HTTPError(status: 500, code: .internalError, message: "internal error").response
        }
        if request.method == "HEAD" { response.body = [] }
        return response
    }
}
