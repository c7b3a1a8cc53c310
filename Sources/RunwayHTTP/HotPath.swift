import Synchronization

/// The short path of the hottest public routes (`/healthz`, a link's redirect, the OpenAPI document): a `GET` route
/// with an `immediate` handler is answered on the transport's own thread, from what the handler has in memory, with
/// none of the middleware chain. The few steps such a route needs, this type does itself with the chain's own parts:
/// the client's address behind trusted proxies, the request id (echoed when the caller sent one, else made for the log
/// only), error mapping, metrics and the access line. The chain's
/// other steps have nothing to do for these routes, which is checked when the path is made: an immediate route is
/// open (no key), not rate limited and takes no idempotency key, and no middleware answers its paths before routing
/// (the console). A handler that answers nil sends the request the ordinary way, having done nothing visible.
public final class HotPath: Sendable {
    /// What the hot path shares with the middleware chain.
    public struct Steps: Sendable {
        public var forwardedFor: ForwardedForMiddleware
        public var accessLog: AccessLog
        public var metrics: RouteMetrics
        public var errors: ErrorMiddleware

        public init(forwardedFor: ForwardedForMiddleware, accessLog: AccessLog, metrics: RouteMetrics, errors: ErrorMiddleware) {
            self.forwardedFor = forwardedFor
            self.accessLog = accessLog
            self.metrics = metrics
            self.errors = errors
        }
    }

    /// The request headers a hot route may read. A transport that tries the hot path before reading the whole request
    /// hands over only these (and reads the rest when the request goes the ordinary way).
    public static let headerNames = ["Host", "User-Agent", "Referer", "Accept-Language", "Purpose", "Sec-Purpose", "X-Request-Id",
                                     "X-Forwarded-For", "X-Forwarded-Proto"]

    /// A complete GET or HEAD as a transport hands it to the hot path: of `headers`, only those named in `headerNames`.
    public static func request(method: String, path: String, query: [(String, String)], headers: [(String, String)],
                               remoteAddress: String?) -> HTTPRequest {
        let named: ((String, String)) -> Bool = { field in headerNames.contains { $0.caseInsensitiveEquals(field.0) } }
        // A transport that already kept only these (as libmicrohttpd's does, before making Strings) pays no copy.
        var kept = HTTPHeaders(headers.allSatisfy(named) ? headers : headers.filter(named))
        kept.handedOver = headerNames
        return HTTPRequest(method: method, path: path, query: query, headers: kept, remoteAddress: remoteAddress)
    }

    #if DEBUG
    /// Names a hot route read that the transport did not hand over (debug builds): each is a header the route never
    /// sees, and a test holds this empty.
    package static let unsentHeaderReads = HeaderReads()

    package final class HeaderReads: Sendable {
        private let names = Mutex<Set<String>>([])
        func record(_ name: String) { names.withLock { _ = $0.insert(name.lowercased()) } }
        package func take() -> Set<String> { names.withLock { names in defer { names = [] }; return names } }
    }
    #endif

    let router: Router
    let steps: Steps
    let answeredBeforeRouting: @Sendable (String) -> Bool

    init(router: Router, steps: Steps, answeredBeforeRouting: @escaping @Sendable (String) -> Bool) {
        for route in router.routes where route.immediate != nil {
            let operation = route.operation
            precondition(route.method == .GET && operation.access == .open && !operation.rateLimited && !operation.idempotent,
                         "\(route.label): only open GET routes without rate limits or idempotency keys can answer immediately")
        }
        self.router = router
        self.steps = steps
        self.answeredBeforeRouting = answeredBeforeRouting
    }

    /// The answer, or nil when the request is not for a hot route or its handler cannot answer without waiting.
    func respond(to request: HTTPRequest) -> HTTPResponse? {
        guard request.method == "GET" || request.method == "HEAD", !answeredBeforeRouting(request.path),
              case .found(let route, let parameters) = router.match(method: request.method, path: request.path),
              let immediate = route.immediate else { return nil }
        let request = steps.forwardedFor.client(request)
        // The caller's own request id is echoed; one made here is only logged, so a prepared answer goes out as it is.
        let echoed = request.headers["X-Request-Id"].flatMap { RequestIdMiddleware.isAcceptable($0) ? $0 : nil }
        let context = RequestContext(requestId: echoed ?? RequestIdMiddleware.generate(), route: route, parameters: parameters)
        var response: HTTPResponse
        do {
            guard let answer = try immediate(request, context) else { return nil }
            response = answer
        } catch {
            response = steps.errors.mapped(error, context)
        }
        let method = request.method
        let steps = self.steps
        let finish: @Sendable (HTTPResponse) -> HTTPResponse = { response in
            var response = response
            if let echoed { response.headers.set("X-Request-Id", echoed) }
            steps.accessLog.record(method, context, response)
            steps.metrics.record(route: route, status: response.status, startedAt: context.startedAt)
            if method == "HEAD" { response.body = [] }
            return response
        }
        guard let release = response.release else { return finish(response) }
        // Counted and logged when the answer goes out, with its status then.
        response.release = release.map(finish)
        return response
    }
}
