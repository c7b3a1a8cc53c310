import RunwayHTTP
import RunwayKit
import RunwayStore

/// Replaying App Store notifications the server missed: an app's In-App Purchase key (sealed) and the route that
/// fetches Apple's notification history with it and feeds each notification to the Affiliates capability's path.
package struct AppStoreReplayCapability: Capability {
    package init() {}

    package var settings: (any CapabilitySettings.Type)? { AppStoreAPISettings.self }

    package var migrations: [Migration] { AppStoreReplaySchema.migrations }

    package func routes(_ services: ServerServices) -> [Route] {
        services.metrics.declareCounter("linkrunway_app_store_replayed_total", help: "Notifications fetched from Apple's history to replay, by environment.")
        let handlers = AppStoreReplayHandlers(services: services)
        return [
            Route(.PUT, "/v1/apps/{appId}/app-store-key", .setAppStoreKey, use: handlers.setKey),
            Route(.GET, "/v1/apps/{appId}/app-store-key", .getAppStoreKey, use: handlers.key),
            Route(.DELETE, "/v1/apps/{appId}/app-store-key", .deleteAppStoreKey, use: handlers.deleteKey),
            Route(.POST, "/v1/apps/{appId}/app-store/replay", .replayAppStoreNotifications, use: handlers.replay),
            Route(.POST, "/v1/apps/{appId}/app-store/test-notification", .requestAppStoreTestNotification, use: handlers.testNotification),
        ]
    }

    package var sealedColumns: [SealedColumn] { [SealedColumn("app_store_api_keys", key: "app_id", column: "private_key")] }
}
