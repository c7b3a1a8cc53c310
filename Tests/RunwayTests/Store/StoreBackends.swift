import Foundation
@testable import RunwayPostgres
import RunwayStore
import RunwaySQLite
import Synchronization
import Testing

/// The backends the suites run against. Each makes fresh, empty storage (a SQLite file, a PostgreSQL database),
/// opens stores on it and removes it when the location is released.
struct StoreBackend: Sendable, CustomTestStringConvertible {
    let name: String
    let open: @Sendable (_ location: String, _ observer: (any StoreObserver)?) throws -> any Store
    /// Async because making a PostgreSQL database blocks on the server: it runs on a thread of its own, never on the
    /// two threads every test shares.
    let makeLocation: @Sendable () async throws -> StorageLocation

    var testDescription: String { name }

    static let sqlite = StoreBackend(
        name: "SQLite",
        // Waits far beyond production's, so that a starved machine running the whole suite is not taken for an outage.
        open: { url, observer in
            try SQLiteStore(path: String(url.dropFirst("sqlite:".count)),
                            options: .init(readers: 2, busyTimeoutMilliseconds: 30_000, queueTimeout: 120), observer: observer)
        },
        makeLocation: {
            let directory = TemporaryDirectory()
            return StorageLocation(url: "sqlite:" + directory.path("store.db"), cleanup: { _ = directory })
        })

    /// The server `scripts/with-postgres.sh` (run by `make test`) starts, or nil.
    static let postgresURL: String? = ProcessInfo.processInfo.environment["LINKRUNWAY_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    static let postgres = StoreBackend(
        name: "PostgreSQL",
        open: { url, observer in PostgresStore(url: url, options: .init(readers: 2, queueTimeout: 120), observer: observer) },
        makeLocation: {
            guard let admin = postgresURL else { throw StoreError.unavailable("LINKRUNWAY_TEST_POSTGRES_URL is not set") }
            let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            try await offloaded { try PostgresAdmin.execute("CREATE DATABASE \(name)", on: admin) }
            let url = admin[..<admin.lastIndex(of: "/")!] + "/" + name
            return StorageLocation(url: String(url), cleanup: {
                Thread { try? PostgresAdmin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", on: admin) }.start()
            })
        })

    /// SQLite always; PostgreSQL when a server was given (`make test` starts one).
    static var all: [StoreBackend] { postgresURL == nil ? [.sqlite] : [.sqlite, .postgres] }

    /// Fresh storage and a store open on it with `migrations` applied: where a test writes rows as an older schema kept
    /// them, before migrating the rest. Keep the location as long as the store.
    func opened(migratedBy migrations: [Migration]) async throws -> (location: StorageLocation, store: any Store) {
        let location = try await makeLocation()
        let store = try open(location.url, nil)
        _ = try await store.migrate(migrations)
        return (location, store)
    }
}

/// Storage for one test, removed when the last reference goes.
final class StorageLocation: Sendable {
    let url: String
    private let cleanup: @Sendable () -> Void
    init(url: String, cleanup: @escaping @Sendable () -> Void) {
        self.url = url
        self.cleanup = cleanup
    }
    deinit { cleanup() }
}

enum PostgresAdmin {
    /// Runs a statement outside a transaction (CREATE DATABASE cannot run inside one).
    static func execute(_ statement: String, on url: String) throws {
        let connection = PostgresConnection(url: url)
        try connection.ensureOpen()
        defer { connection.close() }
        try connection.executeScript(statement)
    }
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
