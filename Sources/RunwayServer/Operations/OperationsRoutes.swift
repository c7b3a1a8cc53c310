import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayStore

/// Liveness, readiness, metrics: what load balancers and Prometheus call. No key needed.
enum OperationsRoutes {
    static func routes(_ services: ServerServices) -> [Route] {
        let health = try? HTTPResponse.json(HealthStatus(status: "ok", version: LinkRunwayVersion.current))
        return [
            Route(method: .GET, pattern: "/healthz", operation: Operation(
                id: "health", summary: "Liveness: the process is up", tag: "Operations", access: .open,
                responses: [.json(200, "HealthStatus", "Up.")]),
                immediate: { _, _ in health }
            ) { _, _ in
                try .json(HealthStatus(status: "ok", version: LinkRunwayVersion.current))
            },

            Route(method: .GET, pattern: "/readyz", operation: Operation(
                id: "readiness", summary: "Readiness: the database answers, and its schema", tag: "Operations", access: .open,
                responses: [.json(200, "ReadinessStatus", "Ready."), .json(503, "ReadinessStatus", "The database is unreachable.")])
            ) { _, _ in
                do {
                    let schema = try await withTimeout(seconds: 2) {
                        try await services.store.read { try $0.first("SELECT MAX(id) AS newest FROM schema_migrations")?.optionalString("newest") }
                    }
                    return try .json(ReadinessStatus(status: "ready", store: "ok", schema: schema))
                } catch {
                    return try .json(ReadinessStatus(status: "unavailable", store: "\(error)"), status: 503)
                }
            },

            Route(method: .GET, pattern: "/metrics", operation: Operation(
                id: "metrics", summary: "Prometheus metrics (text format 0.0.4); never on a link domain, and with LINKRUNWAY_METRICS_TOKEN only for that bearer",
                tag: "Operations", access: .open,
                responses: [ResponseDoc(status: 200, description: "Metrics.", contentType: "text/plain")], errors: [401, 404])
            ) { request, _ in
                if let token = services.metricsToken {
                    let given = Array((request.headers["Authorization"] ?? "").utf8)
                    guard ConstantTime.equal(Digest.sha256(given), Digest.sha256(Array("Bearer \(token)".utf8))) else {
                        throw HTTPError.unauthorized(ErrorCode.invalidKey, "/metrics needs Authorization: Bearer <LINKRUNWAY_METRICS_TOKEN>")
                    }
                }
                // Every phone and crawler reaches the link domains; what the server does is the operator's business.
                if let host = request.hostName, try await services.links.domain(hostname: host) != nil {
                    throw HTTPError.notFound(ErrorCode.notFound, "no route GET /metrics")
                }
                return .text(services.metrics.render(), contentType: "text/plain; version=0.0.4; charset=utf-8")
            },
        ]
    }
}
