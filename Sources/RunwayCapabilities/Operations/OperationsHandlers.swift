import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayKit
import RunwayStore

/// Liveness, readiness, metrics: what load balancers and Prometheus call. No key needed.
struct OperationsHandlers: Sendable {
    let services: ServerServices
    /// The liveness answer, encoded once so `/healthz` is answered without waiting.
    private let healthy: HTTPResponse?

    init(services: ServerServices) {
        self.services = services
        healthy = (try? HTTPResponse.json(HealthStatus(status: "ok", version: LinkRunwayVersion.current))).map { HTTPResponse(PreparedResponse($0)) }
    }

    /// `/healthz` on the transport's own thread (see `Route.immediate`).
    func healthNow(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse? { healthy }

    func health(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        try .json(HealthStatus(status: "ok", version: LinkRunwayVersion.current))
    }

    /// Answered to this machine and the trusted proxies' own checks, or with the operations token; to anyone else the
    /// route does not exist. The store's error goes to the log, never into the answer.
    func readiness(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        guard request.isLocalCheck || hasToken(request) else { throw RequestError.notFound("no route GET /readyz") }
        let proxy = services.proxyWitness.untrustedTLSProxy
        do {
            let schema = try await withTimeout(seconds: 2) {
                try await services.store.read { try OperationsQueries.newestMigration($0) }
            }
            return try .json(ReadinessStatus(status: "ready", store: "ok", schema: schema, untrustedProxy: proxy))
        } catch {
            services.logger.error("readiness: the store does not answer", ["requestId": .string(context.requestId), "error": .string("\(error)")])
            return try .json(ReadinessStatus(status: "unavailable", store: "unreachable", untrustedProxy: proxy), status: 503)
        }
    }

    /// With `LINKRUNWAY_METRICS_TOKEN` only for that bearer; without it only to this machine and the trusted proxies'
    /// own requests. Never on a link domain.
    func metrics(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        if services.settings[OperationsSettings.self].metricsToken != nil {
            guard hasToken(request) else {
                throw AccessError.invalidKey("/metrics needs Authorization: Bearer <LINKRUNWAY_METRICS_TOKEN>")
            }
        } else if !request.isLocalCheck {
            throw RequestError.notFound("no route GET /metrics")
        }
        // Every phone and crawler reaches the link domains; what the server does is the operator's business.
        if let host = request.hostName, try await services.links.domain(hostname: host) != nil {
            throw RequestError.notFound("no route GET /metrics")
        }
        return .text(services.metrics.render(), contentType: "text/plain; version=0.0.4; charset=utf-8")
    }

    /// `Authorization: Bearer <LINKRUNWAY_METRICS_TOKEN>`, compared in constant time; false when no token is set.
    private func hasToken(_ request: HTTPRequest) -> Bool {
        guard let token = services.settings[OperationsSettings.self].metricsToken else { return false }
        let given = Array((request.headers["Authorization"] ?? "").utf8)
        return ConstantTime.equal(Digest.sha256(given), Digest.sha256(Array("Bearer \(token)".utf8)))
    }
}
