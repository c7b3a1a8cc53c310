import Foundation
@testable import RunwayStore
import RunwayTestKit
import Testing

@Suite("Time partitions and retention")
struct PartitioningTests {
    static let table = TimePartitionedTable(name: "samples", period: .month, retentionDays: 60)
    static let migrations = [
        Migration(id: "0001_samples", sqlite: """
            CREATE TABLE samples (id TEXT NOT NULL, created_at BIGINT NOT NULL, PRIMARY KEY (id, created_at));
            """, postgres: """
            CREATE TABLE samples (id TEXT NOT NULL, created_at BIGINT NOT NULL, PRIMARY KEY (id, created_at)) PARTITION BY RANGE (created_at);
            """),
    ]

    static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }
    static func ms(_ text: String) -> Int64 { Int64(date(text).timeIntervalSince1970 * 1000) }

    @Test("rows that landed in the default partition move into the partition made for them", .enabled(if: StoreBackend.postgresURL != nil))
    func defaultRowsMove() async throws {
        let location = try await StoreBackend.postgres.makeLocation()
        let store = try StoreBackend.postgres.open(location.url, nil)
        _ = try await store.migrate(Self.migrations)
        _ = try await PartitionMaintenance.run([Self.table], store: store, now: Self.date("2026-11-30T12:00:00Z"))
        // March 2027 has no partition yet, so this row goes to the default one.
        try await store.write { db in try db.execute("INSERT INTO samples (id, created_at) VALUES ('march', \(Self.ms("2027-03-10T00:00:00Z")))") }
        let report = try await PartitionMaintenance.run([Self.table], store: store, now: Self.date("2027-01-20T00:00:00Z"))
        #expect(report.created.contains("samples_p202703"))
        let inPartition = try await store.read { try $0.query("SELECT id FROM samples_p202703").map { try $0.string("id") } }
        let inDefault = try await store.read { try $0.query("SELECT id FROM samples_default").map { try $0.string("id") } }
        #expect(inPartition == ["march"])
        #expect(inDefault.isEmpty)
        await store.close()
    }

    @Test("partition names and periods are UTC calendar periods")
    func naming() {
        let monthly = Self.table
        let start = monthly.periodStart(Self.date("2026-11-30T23:59:59Z"))
        #expect(start == Self.date("2026-11-01T00:00:00Z"))
        #expect(monthly.partitionName(start) == "samples_p202611")
        #expect(monthly.start(ofPartition: "samples_p202611") == start)
        #expect(monthly.start(ofPartition: "samples_default") == nil)
        let daily = TimePartitionedTable(name: "clicks", period: .day, retentionDays: 7)
        #expect(daily.partitionName(daily.periodStart(Self.date("2026-02-28T12:00:00Z"))) == "clicks_p20260228")
        #expect(daily.periodAfter(Self.date("2026-02-28T00:00:00Z")) == Self.date("2026-03-01T00:00:00Z"))
    }

    @Test("maintenance makes room ahead and removes what is older than the retention", arguments: StoreBackend.all)
    func retention(_ backend: StoreBackend) async throws {
        let location = try await backend.makeLocation()
        let store = try backend.open(location.url, nil)
        _ = try await store.migrate(Self.migrations)
        let first = try await PartitionMaintenance.run([Self.table], store: store, now: Self.date("2026-11-30T12:00:00Z"))
        if backend.name == "PostgreSQL" {
            // Only the current period and those ahead: nothing is stamped in the past, so October waits for a row.
            #expect(first.created == ["samples_default", "samples_p202611", "samples_p202612", "samples_p202701"])
        }
        let rows = ["old": "2025-01-01T00:00:00Z", "oct": "2026-10-05T00:00:00Z", "nov": "2026-11-10T00:00:00Z", "dec": "2026-12-01T00:00:00Z"]
        try await store.write { db in
            for (id, time) in rows { try db.execute("INSERT INTO samples (id, created_at) VALUES (\(id), \(Self.ms(time)))") }
        }
        // Running again at the same time makes October's partition for the row that landed in the default one, and
        // a third run has nothing left to do.
        let again = try await PartitionMaintenance.run([Self.table], store: store, now: Self.date("2026-11-30T12:00:00Z"))
        #expect(again.dropped.isEmpty)
        #expect(again.created == (backend.name == "PostgreSQL" ? ["samples_p202610"] : []))
        if backend.name == "PostgreSQL" {
            let inOctober = try await store.read { try $0.query("SELECT id FROM samples_p202610").map { try $0.string("id") } }
            #expect(inOctober == ["oct"])
        }
        let third = try await PartitionMaintenance.run([Self.table], store: store, now: Self.date("2026-11-30T12:00:00Z"))
        #expect(third.isEmpty)

        let later = try await PartitionMaintenance.run([Self.table], store: store, now: Self.date("2027-01-15T00:00:00Z"))
        let left = Set(try await store.read { try $0.query("SELECT id FROM samples").map { try $0.string("id") } })
        #expect(!left.contains("old"))
        #expect(!left.contains("oct"))
        #expect(left.contains("dec"))
        // The cutoff is 2026-11-16: November's partition stays, but its older rows go one by one.
        #expect(!left.contains("nov"))
        #expect(again.deletedRows == 1)  // "old" was already past the first cutoff
        if backend.name == "PostgreSQL" {
            // October's partition goes whole.
            #expect(later.dropped == ["samples_p202610"])
            #expect(later.created == ["samples_p202702", "samples_p202703"])
            #expect(later.deletedRows == 1)
        } else {
            #expect(later.deletedRows == 2)
        }
        await store.close()
    }
}
