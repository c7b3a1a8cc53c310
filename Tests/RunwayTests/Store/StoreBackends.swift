import Foundation
@testable import RunwayPostgres
import RunwayStore
import RunwaySQLite
import RunwayTestKit
import Synchronization
import Testing

extension StoreBackend: CustomTestStringConvertible {
    public var testDescription: String { name }
}

/// Records every group commit the store reports.
final class CommitRecorder: StoreObserver, Sendable {
    private let batches = Mutex<[Int]>([])
    private let synced = Mutex<[Int]>([])
    func didCommit(batchSize: Int, seconds: Double) { batches.withLock { $0.append(batchSize) } }
    func didSync(writes: Int, seconds: Double) { synced.withLock { $0.append(writes) } }
    var sizes: [Int] { batches.withLock { $0 } }
    /// The writes each sync made durable, in order.
    var syncs: [Int] { synced.withLock { $0 } }
}

/// The tables the conformance suite writes to; the blob type is the only dialect difference.
enum ConformanceSchema {
    static let migrations = [
        Migration(id: "0001_items", sqlite: """
            CREATE TABLE items (id TEXT PRIMARY KEY, n BIGINT, note TEXT, data BLOB, ratio DOUBLE PRECISION);
            """, postgres: """
            CREATE TABLE items (id TEXT PRIMARY KEY, n BIGINT, note TEXT, data BYTEA, ratio DOUBLE PRECISION);
            """),
        Migration(id: "0002_tags", sql: "CREATE TABLE tags (item_id TEXT NOT NULL REFERENCES items (id), tag TEXT NOT NULL);"),
    ]
}

@Suite("Backends available")
struct BackendAvailabilityTests {
    @Test("PostgreSQL is configured for this run", .enabled(if: StoreBackend.postgresURL != nil,
          "LINKRUNWAY_TEST_POSTGRES_URL is not set, so every PostgreSQL run is skipped; `make test` starts a server"))
    func postgresConfigured() async throws {
        let location = try await StoreBackend.postgres.makeLocation()
        let store = try StoreBackend.postgres.open(location.url, nil)
        try await store.ping()
        await store.close()
    }
}
