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

    func readiness(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        do {
            let schema = try await withTimeout(seconds: 2) {
                try await services.store.read { try OperationsQueries.newestMigration($0) }
            }
            return try .json(ReadinessStatus(status: "ready", store: "ok", schema: schema))
        } catch {
            return try .json(ReadinessStatus(status: "unavailable", store: "\(error)"), status: 503)
        }
    }

    func metrics(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        if let token = services.metricsToken {
            let given = Array((request.headers["Authorization"] ?? "").utf8)
            guard ConstantTime.equal(Digest.sha256(given), Digest.sha256(Array("Bearer \(token)".utf8))) else {
                throw AccessError.invalidKey("/metrics needs Authorization: Bearer <LINKRUNWAY_METRICS_TOKEN>")
            }
        }
        // Every phone and crawler reaches the link domains; what the server does is the operator's business.
        if let host = request.hostName, try await services.links.domain(hostname: host) != nil {
            throw RequestError.notFound("no route GET /metrics")
        }
        return .text(services.metrics.render(), contentType: "text/plain; version=0.0.4; charset=utf-8")
    }
}
