import Foundation

/// An append-only table that grows without bound (clicks, events, postbacks, notifications), keyed by a time column
/// in milliseconds. On PostgreSQL it is a range-partitioned table (one partition per UTC day or month, plus a default
/// partition) so that retention drops whole partitions; on SQLite it is a plain table and retention deletes rows.
///
/// The migration that creates it must declare, on PostgreSQL, `PARTITION BY RANGE (<timeColumn>)`, and every unique
/// key must include the time column (PostgreSQL cannot enforce uniqueness across partitions otherwise).
public struct TimePartitionedTable: Sendable, Equatable {
    public enum Period: String, Sendable { case day, month }

    public let name: String
    public let timeColumn: String
    public let period: Period
    /// Rows older than this many days are removed; nil keeps everything.
    public let retentionDays: Int?

    public init(name: String, timeColumn: String = "created_at", period: Period = .month, retentionDays: Int?) {
        self.name = name
        self.timeColumn = timeColumn
        self.period = period
        self.retentionDays = retentionDays
    }

    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        return calendar
    }()

    /// The start of the period containing `date`.
    func periodStart(_ date: Date) -> Date {
        let parts: Set<Calendar.Component> = period == .day ? [.year, .month, .day] : [.year, .month]
        return Self.utc.date(from: Self.utc.dateComponents(parts, from: date)) ?? date
    }

    func periodAfter(_ start: Date) -> Date {
        Self.utc.date(byAdding: period == .day ? .day : .month, value: 1, to: start) ?? start.addingTimeInterval(period == .day ? 86_400 : 31 * 86_400)
    }

    /// `events_p202611` (month) or `events_p20261130` (day).
    func partitionName(_ start: Date) -> String {
        let c = Self.utc.dateComponents([.year, .month, .day], from: start)
        let (year, month, day) = (c.year ?? 1970, c.month ?? 1, c.day ?? 1)
        let stamp = period == .day ? String(format: "%04d%02d%02d", year, month, day) : String(format: "%04d%02d", year, month)
        return "\(name)_p\(stamp)"
    }

    /// The period start a partition name stands for, or nil for names that are not ours.
    func start(ofPartition partition: String) -> Date? {
        guard partition.hasPrefix(name + "_p") else { return nil }
        let stamp = partition.dropFirst(name.count + 2)
        guard stamp.allSatisfy(\.isNumber), stamp.count == (period == .day ? 8 : 6),
              let year = Int(stamp.prefix(4)), let month = Int(stamp.dropFirst(4).prefix(2)) else { return nil }
        let day = period == .day ? Int(stamp.suffix(2)) : 1
        return Self.utc.date(from: DateComponents(year: year, month: month, day: day))
    }
}

/// What one maintenance pass did.
public struct PartitionReport: Sendable, Equatable {
    public var created: [String] = []
    public var dropped: [String] = []
    public var deletedRows = 0

    public init() {}

    /// True when the pass changed nothing.
    public var isEmpty: Bool { created.isEmpty && dropped.isEmpty && deletedRows == 0 }
}

/// Creates the partitions the near future needs and applies retention. Safe to run from several processes at once
/// (PostgreSQL: one holds a transaction-level advisory lock, the others skip).
public enum PartitionMaintenance {
    static func ms(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }

    public static func run(_ tables: [TimePartitionedTable], store: any Store, now: Date, periodsAhead: Int = 2) async throws -> PartitionReport {
        guard !tables.isEmpty else { return PartitionReport() }
        return try await store.write { db in
            var report = PartitionReport()
            if db.dialect == .postgres {
                guard try db.first("SELECT pg_try_advisory_xact_lock(7275687901) AS locked")?.bool("locked") == true else { return report }
            }
            for table in tables {
                let cutoff = table.retentionDays.map { now.addingTimeInterval(-Double($0) * 86_400) }
                if db.dialect == .postgres {
                    try maintainPostgres(table, db: db, now: now, cutoff: cutoff, periodsAhead: periodsAhead, report: &report)
                } else if let cutoff {
                    report.deletedRows += try db.execute("DELETE FROM \(raw: table.name) WHERE \(raw: table.timeColumn) < \(ms(cutoff))")
                }
            }
            return report
        }
    }

    private static func maintainPostgres(_ table: TimePartitionedTable, db: any SQLExecutor, now: Date, cutoff: Date?,
                                         periodsAhead: Int, report: inout PartitionReport) throws {
        let existing = Set(try db.query("""
            SELECT c.relname AS name FROM pg_inherits i
            JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
            WHERE p.relname = \(table.name)
            """).map { try $0.string("name") })
        let defaultName = table.name + "_default"
        if !existing.contains(defaultName) {
            try db.execute("CREATE TABLE \(raw: defaultName) PARTITION OF \(raw: table.name) DEFAULT")
            report.created.append(defaultName)
        }
        // From the current period through `periodsAhead` periods ahead. Rows are stamped with the server's clock, so
        // an earlier period needs a partition only for rows already in the default one (written before it was made);
        // those rows move into it before it is attached.
        let oldestDefault = try db.first("SELECT MIN(\(raw: table.timeColumn)) AS oldest FROM \(raw: defaultName)")?
            .optionalInt("oldest").map { Date(timeIntervalSince1970: Double($0) / 1000) }
        var start = table.periodStart(min(now, max(oldestDefault ?? now, cutoff ?? .distantPast)))
        let last = (0..<periodsAhead).reduce(table.periodStart(now)) { date, _ in table.periodAfter(date) }
        let column = table.timeColumn
        let current = table.periodStart(now)
        while start <= last {
            let name = table.partitionName(start)
            let end = table.periodAfter(start)
            let (from, to) = (String(ms(start)), String(ms(end)))
            if !existing.contains(name), cutoff.map({ end > $0 }) ?? true, try start >= current || db.first("""
                SELECT 1 AS found FROM \(raw: defaultName) WHERE \(raw: column) >= \(raw: from) AND \(raw: column) < \(raw: to) LIMIT 1
                """) != nil {
                try db.execute("CREATE TABLE \(raw: name) (LIKE \(raw: table.name) INCLUDING DEFAULTS INCLUDING CONSTRAINTS)")
                try db.execute("""
                    WITH moved AS (DELETE FROM \(raw: defaultName) WHERE \(raw: column) >= \(raw: from) AND \(raw: column) < \(raw: to) RETURNING *)
                    INSERT INTO \(raw: name) SELECT * FROM moved
                    """)
                try db.execute("ALTER TABLE \(raw: table.name) ATTACH PARTITION \(raw: name) FOR VALUES FROM (\(raw: from)) TO (\(raw: to))")
                report.created.append(name)
            }
            start = end
        }
        guard let cutoff else { return }
        for name in existing.sorted() {
            guard let start = table.start(ofPartition: name), table.periodAfter(start) <= cutoff else { continue }
            try db.execute("DROP TABLE \(raw: name)")
            report.dropped.append(name)
        }
        // The rest of the partition holding the cutoff, and late rows in the default one, age out row by row
        // (partition pruning keeps this to those two).
        report.deletedRows += try db.execute("DELETE FROM \(raw: table.name) WHERE \(raw: table.timeColumn) < \(ms(cutoff))")
    }
}
