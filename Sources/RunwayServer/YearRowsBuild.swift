import RunwayCapabilities
import RunwayKit
import RunwayStore

/// Makes the year rows of the link figures (`LinkStatsYears`) once, when no server of an older version is left on
/// the database to add to months only.
package enum YearRowsBuild {
    /// How many year rows it made, 0 when they were made before or the backend keeps none, or nil while an older server
    /// runs: the caller tries again after each heartbeat (`ServerRuntime.beat`).
    package static func run(_ store: any Store, now: Int64) async throws -> Int? {
        guard LinkStatsYears.kept(store.dialect) else { return 0 }
        return try await store.write { db in
            if try LinkStatsYears.whole(db) { return 0 }
            guard try ServerInstance.olderAlive(db, now: now, newestStep: Schema.newestStep) == 0 else { return nil }
            return try LinkStatsYears.build(db)
        }
    }
}
