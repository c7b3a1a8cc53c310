import RunwayHTTP
import RunwayStore

/// Workspaces, apps, API keys and console users.
struct TenancyCapability: Capability {
    var migrations: [Migration] { TenancySchema.migrations }
    var migrationNotes: [String: @Sendable (any Store) async throws -> String?] { TenancySchema.notes }

    func routes(_ services: ServerServices) -> [Route] {
        WorkspaceRoutes.routes(services) + AppRoutes.routes(services) + KeyRoutes.routes(services) + UserRoutes.routes(services)
    }
}
