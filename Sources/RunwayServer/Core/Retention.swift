import Foundation
import RunwayStore

/// How long raw data is kept (`LINKRUNWAY_RETAIN_*`). The hourly maintenance pass enforces it.
public struct RetentionPolicy: Sendable, Equatable {
    /// Raw clicks (and their tokens): referrer matches and reports reach back this far.
    public var clickDays = 400
    /// Events, and the event ids that keep late retries duplicates.
    public var eventDays = 760
    /// Raw postbacks, and the keys that keep Apple's resends duplicates.
    public var postbackDays = 760
    /// Keyed address hashes on clicks and installs; ad impressions, which exist only for matching by address, go
    /// with them.
    public var addressHashHours = 48

    public init() {}

    /// The time-partitioned tables with this policy's limits (whole partitions drop on PostgreSQL).
    public var tables: [TimePartitionedTable] {
        [
            TimePartitionedTable(name: "clicks", period: .month, retentionDays: clickDays),
            // Days, rounded up: the address-hash pass below removes impressions by the hour.
            TimePartitionedTable(name: "impressions", period: .month, retentionDays: (addressHashHours + 23) / 24),
            TimePartitionedTable(name: "events", timeColumn: "received_at", period: .month, retentionDays: eventDays),
            TimePartitionedTable(name: "postbacks", timeColumn: "received_at", period: .month, retentionDays: postbackDays),
        ]
    }
}

/// What one maintenance pass removed.
public struct RetentionReport: Sendable, Equatable {
    public var partitions = PartitionReport()
    /// Clicks and installs whose address hash was cleared, and impressions deleted with theirs.
    public var addressHashesCleared = 0
}

/// The hourly pass: partitions ahead, retention, old address keys and console sessions forgotten, commissions released.
enum Maintenance {
    static func run(_ services: ServerServices, policy: RetentionPolicy) async throws -> RetentionReport {
        let now = services.clock.nowMilliseconds()
        var report = RetentionReport()
        _ = try await AddressHasher.forgetOldKeys(store: services.store, now: now)
        let hashCutoff = now - Int64(policy.addressHashHours) * 3_600_000
        report.addressHashesCleared = try await services.store.write { db in
            try db.execute("UPDATE clicks SET address_hash = NULL WHERE address_hash IS NOT NULL AND created_at < \(hashCutoff)")
                + db.execute("UPDATE installs SET address_hash = NULL WHERE address_hash IS NOT NULL AND matched_at < \(hashCutoff)")
                + db.execute("DELETE FROM impressions WHERE created_at < \(hashCutoff)")
        }
        // Event ids are kept as long as their events, so a late retry of a kept event stays a duplicate.
        let eventCutoff = now - Int64(policy.eventDays) * 86_400_000
        _ = try await services.store.write { db in try db.execute("DELETE FROM event_ids WHERE received_at < \(eventCutoff)") }
        // The same for postbacks: a postback Apple sends again while its first copy is kept stays a duplicate.
        let postbackCutoff = now - Int64(policy.postbackDays) * 86_400_000
        _ = try await services.store.write { db in try db.execute("DELETE FROM postback_keys WHERE received_at < \(postbackCutoff)") }
        // Console sessions past their absolute limit, and sign-in attempts no limit looks at any more.
        _ = try await services.store.write { db in
            try db.execute("DELETE FROM console_sessions WHERE created_at < \(now - ConsoleSessions.absoluteMilliseconds)")
                + SignInAttempts.forgetOld(db, now: now)
        }
        // Commissions past their holding period become payable even when nobody reads a balance.
        _ = try await services.store.write { db in try Ledger.releaseDue(db, now: now) }
        report.partitions = try await PartitionMaintenance.run(policy.tables, store: services.store, now: services.clock.now())
        return report
    }
}
