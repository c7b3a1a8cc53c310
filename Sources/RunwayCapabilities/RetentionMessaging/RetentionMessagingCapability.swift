import RunwayHTTP
import RunwayKit
import RunwayStore

/// Retention messages by acquisition source: Apple's realtime `Get Retention Message` calls answered from the app's
/// rules, by where the subscriber came from, and the app's messages, defaults, realtime URL and performance test at
/// Apple through its Retention Messaging API.
package struct RetentionMessagingCapability: Capability {
    package init() {}

    package var migrations: [Migration] { RetentionMessagingSchema.migrations }

    /// Where Apple asks surface `surfaceId`'s app for a retention message.
    static func path(surfaceId: SurfaceId) -> String { "/v1/app-store/retention/\(surfaceId)" }

    package func routes(_ services: ServerServices) -> [Route] {
        services.metrics.declareCounter("linkrunway_retention_requests_total",
                                        help: "Apple's realtime retention requests, by answer: rule, fallback, late (the fallback, past the budget), none or refused.")
        let realtime = RetentionRealtimeHandlers(services: services)
        let manage = RetentionManagementHandlers(services: services)
        return [
            Route(.POST, "/v1/app-store/retention/{surfaceId}", .retentionRealtime, use: realtime.respond),
            Route(.GET, "/v1/apps/{appId}/retention/rules", .getRetentionRules, use: manage.rules),
            Route(.PUT, "/v1/apps/{appId}/retention/rules", .setRetentionRules, use: manage.setRules),
            Route(.GET, "/v1/apps/{appId}/retention/messages", .listRetentionMessages, use: manage.messages),
            Route(.POST, "/v1/apps/{appId}/retention/messages", .createRetentionMessage, use: manage.createMessage),
            Route(.DELETE, "/v1/apps/{appId}/retention/messages/{messageId}", .deleteRetentionMessage, use: manage.deleteMessage),
            Route(.PUT, "/v1/apps/{appId}/retention/default-messages", .setRetentionDefaultMessage, use: manage.setDefaultMessage),
            Route(.PUT, "/v1/apps/{appId}/retention/realtime-url", .setRetentionRealtimeURL, use: manage.setRealtimeURL),
            Route(.GET, "/v1/apps/{appId}/retention/realtime-url", .getRetentionRealtimeURL, use: manage.realtimeURL),
            Route(.POST, "/v1/apps/{appId}/retention/performance-test", .startRetentionPerformanceTest, use: manage.startPerformanceTest),
            Route(.GET, "/v1/apps/{appId}/retention/performance-test/{requestId}", .getRetentionPerformanceTest, use: manage.performanceTestResult),
            Route(.GET, "/v1/apps/{appId}/retention/report", .retentionReport, use: manage.report),
        ]
    }

    /// A subscription keeps where it came from; the install it names goes.
    package func forget(_ install: InstallReference, _ db: any SQLExecutor) throws -> [String: Int] {
        ["subscriptionsUnlinked": try RetentionMessagingQueries.unlinkSubscriptions(db, appId: AppId(install.appId), installId: InstallId(install.installId))]
    }

    /// Realtime requests are kept 400 days, for the report.
    package func maintain(_ services: ServerServices, policy: RetentionPolicy, now: Int64, report: inout RetentionReport) async throws {
        _ = try await services.store.write { db in try RetentionMessagingQueries.deleteRequests(db, before: now - 400 * 86_400_000) }
    }
}
