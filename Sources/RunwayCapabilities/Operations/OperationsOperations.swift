import LinkRunwayAPI
import RunwayHTTP
import RunwayKit

/// What the OpenAPI document says about each operations route.
extension Operation {
    static let health = Operation(
        id: "health", summary: "Liveness: the process is up", tag: "Operations", access: .open,
        responses: [.json(200, HealthStatus.self, "Up.")])

    static let readiness = Operation(
        id: "readiness", summary: "Readiness: the database answers, and its schema; only to this machine, the trusted proxies' own checks, or the LINKRUNWAY_METRICS_TOKEN bearer",
        tag: "Operations", access: .open,
        responses: [.json(200, ReadinessStatus.self, "Ready."), .json(503, ReadinessStatus.self, "The database is unreachable.")], errors: [404])

    static let metrics = Operation(
        id: "metrics", summary: "Prometheus metrics (text format 0.0.4); never on a link domain; with LINKRUNWAY_METRICS_TOKEN only for that bearer, without it only to this machine and the trusted proxies' own requests",
        tag: "Operations", access: .open,
        responses: [ResponseDoc(status: 200, description: "Metrics.", contentType: "text/plain")], errors: [401, 404])
}
