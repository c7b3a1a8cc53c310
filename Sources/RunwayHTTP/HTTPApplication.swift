/// The router and its middleware as one responder: what a transport (or the test client) calls.
public struct HTTPApplication: Sendable {
    public let router: Router
    public let middleware: [any Middleware]
    private let pipeline: Responder
    private let immediatePipeline: ImmediateResponder

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
        var immediate: ImmediateResponder = { request, context in try context.route?.immediate?(request, context) }
        for step in middleware.reversed() {
            let next = immediate
            immediate = { request, context in try step.handleImmediately(request, context: context, next: next) }
        }
        immediatePipeline = immediate
    }

    /// Answers on the caller's thread when the route has an immediate handler and every step can run without waiting;
    /// nil otherwise (then nothing happened, and `respond(to:)` is the way).
    public func respondImmediately(to request: HTTPRequest) -> HTTPResponse? {
        guard case .found(let route, let parameters) = router.match(method: request.method, path: request.path), route.immediate != nil else {
            return nil
        }
        let context = RequestContext(requestId: RequestIdMiddleware.generate(), route: route, parameters: parameters)
        var response: HTTPResponse
        do {
            guard let answer = try immediatePipeline(request, context) else { return nil }
            response = answer
        } catch {
            response = HTTPError(status: 500, code: "internal_error", message: "internal error").response
        }
        if request.method == "HEAD" {
            response.body = []
            response.release = response.release?.map { final in
                var final = final
                final.body = []
                return final
            }
        }
        return response
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
