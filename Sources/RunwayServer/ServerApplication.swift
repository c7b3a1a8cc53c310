import LinkRunwayAPI
import RunwayCapabilities
import RunwayConsole
import RunwayHTTP
import RunwayJSON
import RunwayKit

/// Assembles every capability's routes and the middleware into one application.
public enum ServerApplication {
    /// Every capability, in the order their routes are documented. Privacy forgets and exports through the others.
    static let capabilities: [any Capability] = {
        let owners: [any Capability] = [
            OperationsCapability(), TenancyCapability(), LinksCapability(), AttributionCapability(), WebhooksCapability(),
            AppleAdsCapability(), AttestCapability(), PostbacksCapability(), AffiliatesCapability(), AppStoreReplayCapability(),
            RetentionMessagingCapability(), ConsoleCapability(),
        ]
        return owners + [PrivacyCapability(owners: owners)]
    }()

    /// Every route, including `/openapi.json`, whose document is built from this same list.
    public static func routes(_ services: ServerServices) -> [Route] {
        var routes = capabilities.flatMap { $0.routes(services) }
        // The rate-limited routes document their 429.
        routes = routes.map { route in
            guard route.operation.rateLimited, !route.operation.errors.contains(429) else { return route }
            var operation = route.operation
            operation.errors.append(429)
            return Route(method: route.method, pattern: route.pattern, operation: operation, handler: route.handler)
        }
        let operation = Operation(id: "openAPI", summary: "This API's OpenAPI 3.1 document", tag: "Operations", access: .open,
                                  responses: [ResponseDoc(status: 200, description: "The document.", contentType: "application/json")])
        routes.append(Route(method: .GET, pattern: "/openapi.json", operation: operation) { _, _ in .text("") })
        let document = HTTPResponse(PreparedResponse(HTTPResponse.json(openAPIDocument(routes: routes))))
        routes[routes.count - 1] = Route(method: .GET, pattern: "/openapi.json", operation: operation, immediate: { _, _ in document }) { _, _ in document }
        return routes
    }

    public static func openAPIDocument(routes: [Route]) -> JSONValue {
        OpenAPIBuilder(
            title: "LinkRunway API", version: LinkRunwayVersion.current,
            description: "Self-hosted deep links and attribution for Apple apps. Authenticate with Authorization: Bearer <key>.",
            schemas: SchemaReference.of(ErrorBody.self).components
        ).build(routes: routes)
    }

    /// The request pipeline: the client's address behind trusted proxies, request id, access log, metrics, error mapping,
    /// body limit, the console (under /console), key checks, rate limits, idempotency; and the hot path of the routes
    /// that answer immediately, which shares its first steps.
    public static func make(_ services: ServerServices, maxBodyBytes: Int, trustedProxies: TrustedProxies = .none,
                            rateLimits: RateLimitSettings = RateLimitSettings()) -> HTTPApplication {
        let logger = services.logger
        let router = Router(routes: routes(services))
        let witness = services.proxyWitness
        let forwardedFor = ForwardedForMiddleware(trusted: trustedProxies, untrustedTLSProxy: { witness.saw($0) })
        let accessLog = AccessLogMiddleware(logger: logger)
        let metrics = RouteMetrics(services.metrics)
        let errors = ErrorMiddleware(map: ErrorMapping.httpError(for:)) { error, context in
            logger.error("unhandled error", ["requestId": .string(context.requestId), "error": .string(String(describing: error))])
        }
        return HTTPApplication(router: router, middleware: [
            forwardedFor,
            RequestIdMiddleware(),
            accessLog,
            MetricsMiddleware(metrics: metrics),
            errors,
            NULTextMiddleware(),
            BodyLimitMiddleware(defaultLimit: maxBodyBytes),
            ConsoleMiddleware(services: services, router: router),
            AuthMiddleware(authenticator: services.authenticator),
            RateLimitMiddleware(rateLimits, clock: services.monotonic),
            IdempotencyMiddleware(store: services.store, clock: services.clock),
        ], hotPath: HotPath.Steps(forwardedFor: forwardedFor, accessLog: accessLog.log, metrics: metrics, errors: errors))
    }
}
