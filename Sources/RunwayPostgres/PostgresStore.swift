import Foundation
import RunwayStore

/// The PostgreSQL backend: the same engine as SQLite (group-committing writers, reader threads), over libpq. The pool
/// is bounded (`writers` + `readers` connections per process); work that waits longer than `queueTimeout` for a
/// connection is refused with `unavailable`.
public final class PostgresStore: EngineBackedStore, Sendable {
    public struct Options: Sendable {
        /// Writer connections, each committing its own batches; more overlap round trips to the server.
        public var writers: Int
        public var readers: Int
        public var maxBatch: Int
        public var queueTimeout: Double

        public init(writers: Int = 4, readers: Int = max(2, ProcessInfo.processInfo.activeProcessorCount * 2), maxBatch: Int = 512,
                    queueTimeout: Double = 10) {
            self.writers = writers
            self.readers = readers
            self.maxBatch = maxBatch
            self.queueTimeout = queueTimeout
        }
    }

    public let engine: ThreadedStore
    /// How many lanes writers are spread over (`SQLExecutor.lane`).
    static let lanes = 16

    /// Reads see one snapshot; migrations from several processes wait for each other on an advisory lock.
    static let transactions = TransactionDialect(
        beginWrite: "BEGIN",
        beginRead: "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY",
        lockMigrations: "SELECT pg_advisory_lock(7275687900)",
        unlockMigrations: "SELECT pg_advisory_unlock(7275687900)")

    /// Starts the threads; connections open on first use, so this does not fail when the database is down.
    public init(url: String, options: Options = Options(), observer: (any StoreObserver)? = nil) {
        let readers = (0..<max(1, options.readers)).map { _ in PostgresConnection(url: url) }
        let writers = (0..<max(1, options.writers)).map { _ in PostgresConnection(url: url) }
        // Lanes from a random start, so that the writers of several server processes mostly keep to lanes of their own.
        let firstLane = Int.random(in: 0..<Self.lanes)
        for (index, writer) in writers.enumerated() { writer.lane = (firstLane + index) % Self.lanes }
        engine = ThreadedStore(dialect: .postgres, transactions: Self.transactions, writers: writers,
                               readers: readers, options: .init(maxBatch: options.maxBatch, queueTimeout: options.queueTimeout),
                               observer: observer)
    }
}
