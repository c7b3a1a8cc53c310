import RunwayHTTP

/// Health, readiness and metrics.
struct OperationsCapability: Capability {
    func routes(_ services: ServerServices) -> [Route] { OperationsRoutes.routes(services) }
}
