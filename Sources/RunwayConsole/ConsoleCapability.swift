import RunwayCapabilities
import RunwayHTTP
import RunwayKit
import RunwayStore

/// The web console: users' sessions and sign-in attempts. (Its pages are served by `ConsoleMiddleware`, a client of
/// the API's routes.)
package struct ConsoleCapability: Capability {
    package init() {}

    package var migrations: [Migration] { ConsoleSchema.migrations }

    package func routes(_ services: ServerServices) -> [Route] { [] }

    /// Sessions past their absolute limit, and sign-in attempts no limit looks at any more.
    package func maintain(_ services: ServerServices, policy: RetentionPolicy, now: Int64, report: inout RetentionReport) async throws {
        _ = try await services.store.write { db in
            try db.execute("DELETE FROM console_sessions WHERE created_at < \(now - ConsoleSessions.absoluteMilliseconds)")
                + SignInAttempts.forgetOld(db, now: now)
        }
    }
}
