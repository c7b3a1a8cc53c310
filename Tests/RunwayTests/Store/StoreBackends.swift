import Foundation
import RunwayStore
import RunwaySQLite
import Synchronization
import Testing

/// The backends the conformance suite runs against. Each opens a store on fresh, empty storage and can reopen it.
struct StoreBackend: Sendable, CustomTestStringConvertible {
    let name: String
    let open: @Sendable (_ location: String, _ observer: (any StoreObserver)?) throws -> any Store
    let makeLocation: @Sendable () throws -> (location: String, cleanup: TemporaryDirectory?)

    var testDescription: String { name }

    static let sqlite = StoreBackend(
        name: "SQLite",
        open: { path, observer in try SQLiteStore(path: path, options: .init(readers: 2), observer: observer) },
        makeLocation: {
            let directory = TemporaryDirectory()
            return (directory.path("conformance.db"), directory)
        })

    /// Every backend available here.
    static var all: [StoreBackend] { [.sqlite] }
}

/// Records every group commit the store reports.
final class CommitRecorder: StoreObserver, Sendable {
    private let batches = Mutex<[Int]>([])
    func didCommit(batchSize: Int, seconds: Double) { batches.withLock { $0.append(batchSize) } }
    var sizes: [Int] { batches.withLock { $0 } }
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
