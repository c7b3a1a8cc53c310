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

    package init() {}
}
