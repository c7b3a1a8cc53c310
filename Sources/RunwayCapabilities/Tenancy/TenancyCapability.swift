import RunwayHTTP
import RunwayKit
import RunwayStore

/// Workspaces, apps, API keys and console users.
package struct TenancyCapability: Capability {
    package init() {}

    package var migrations: [Migration] { TenancySchema.migrations }
    package var migrationNotes: [String: @Sendable (any Store) async throws -> String?] { TenancySchema.notes }

    package func routes(_ services: ServerServices) -> [Route] {
        let workspaces = WorkspaceHandlers(services: services), apps = AppHandlers(services: services)
        let keys = KeyHandlers(services: services), users = UserHandlers(services: services)
        return [
            Route(.POST, "/v1/workspaces", .createWorkspace, use: workspaces.create),
            Route(.GET, "/v1/workspaces", .listWorkspaces, use: workspaces.list),
            Route(.GET, "/v1/workspaces/{workspaceId}", .getWorkspace, use: workspaces.get),

            Route(.POST, "/v1/apps", .createApp, use: apps.create),
            Route(.GET, "/v1/apps", .listApps, use: apps.list),
            Route(.GET, "/v1/apps/{appId}", .getApp, use: apps.get),
            Route(.PATCH, "/v1/apps/{appId}", .updateApp, use: apps.update),
            Route(.GET, "/v1/apps/{appId}/app-store-id", .getAppStoreId, use: apps.appStoreId),
            Route(.POST, "/v1/apps/{appId}/app-store-id/prove", .proveAppStoreId, use: apps.proveAppStoreId),

            Route(.POST, "/v1/keys", .createKey, use: keys.create),
            Route(.GET, "/v1/keys", .listKeys, use: keys.list),
            Route(.GET, "/v1/keys/{keyId}", .getKey, use: keys.get),
            Route(.POST, "/v1/keys/{keyId}/revoke", .revokeKey, use: keys.revoke),
            Route(.GET, "/v1/me", .whoAmI, use: keys.whoAmI),

            Route(.POST, "/v1/users", .createUser, use: users.create),
            Route(.GET, "/v1/users", .listUsers, use: users.list),
            Route(.DELETE, "/v1/users/{userId}", .deleteUser, use: users.delete),
        ]
    }
}
