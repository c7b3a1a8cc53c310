import RunwayHTTP
import RunwayKit

/// Health, readiness and metrics.
package struct OperationsCapability: Capability {
    package init() {}

    package var settings: (any CapabilitySettings.Type)? { OperationsSettings.self }

    package func routes(_ services: ServerServices) -> [Route] {
        let handlers = OperationsHandlers(services: services)
        return [
            Route(method: .GET, pattern: "/healthz", operation: .health, immediate: handlers.healthNow, handler: handlers.health),
            Route(.GET, "/readyz", .readiness, use: handlers.readiness),
            Route(.GET, "/metrics", .metrics, use: handlers.metrics),
        ]
    }
}
