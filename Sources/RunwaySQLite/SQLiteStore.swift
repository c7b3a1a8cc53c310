import Foundation
import RunwayStore

/// The SQLite backend: one file in WAL mode, one writer thread that group-commits, and reader threads in parallel.
public final class SQLiteStore: EngineBackedStore, Sendable {
    public struct Options: Sendable {
        /// Reader threads (each with its own connection).
        public var readers: Int
        /// How long a connection waits for a lock held by another process before reporting `unavailable`.
        public var busyTimeoutMilliseconds: Int32
        /// The most writes committed in one transaction.
        public var maxBatch: Int
        /// `FULL`: an acknowledged write survives power loss, because the WAL is synced after its commit and before
        /// it is answered; `NORMAL` survives only a crash of the process. (At `FULL` SQLite itself runs at `NORMAL`
        /// and the WAL is synced by a thread of its own, so the writer goes on with the next commit while the disk
        /// flushes: see `DurabilityBarrier`.)
        public var synchronousFull: Bool
        /// Seconds a read or write may wait for its thread before it is refused as `unavailable`.
        public var queueTimeout: Double

        public init(readers: Int = max(2, ProcessInfo.processInfo.activeProcessorCount),
                    busyTimeoutMilliseconds: Int32 = 5_000, maxBatch: Int = 512, synchronousFull: Bool = true, queueTimeout: Double = 10) {
            self.readers = readers
            self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
            self.maxBatch = maxBatch
            self.synchronousFull = synchronousFull
            self.queueTimeout = queueTimeout
        }
    }

    public let path: String
    public let engine: ThreadedStore

    /// The writer connection's page cache, in KiB.
    static let writerCacheKiB = 16_384

    static let transactions = TransactionDialect(beginWrite: "BEGIN IMMEDIATE", beginRead: "BEGIN")

    /// Opens (creating if needed) the database at `path` and starts its threads.
    public init(path: String, options: Options = Options(), observer: (any StoreObserver)? = nil) throws {
        self.path = path
        let writer = try SQLiteConnection(path: path, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
        let mode = try writer.query("PRAGMA journal_mode=WAL").first.flatMap { try? $0.string("journal_mode") }
        guard mode == "wal" else { throw StoreError.unavailable("cannot switch \(path) to WAL mode (got \(mode ?? "nothing"))") }
        // The writer's page cache is 16 MiB, not more: when a page split reorders new pages, SQLite parks one in its
        // cache under the page number at the 1 GiB lock byte, and a commit then finds a page past the end of a
        // smaller database and scans the cache's whole hash table to drop it, at a cost that grows with the cache.
        // At 64 MiB that scan was a quarter of the writer's time in matches; the operating system caches the rest.
        try writer.executeScript("""
            PRAGMA synchronous=NORMAL;
            PRAGMA foreign_keys=ON;
            PRAGMA cache_size=-\(Self.writerCacheKiB);
            """)
        var readers: [SQLiteConnection] = []
        for _ in 0..<max(1, options.readers) {
            let reader = try SQLiteConnection(path: path, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
            try reader.executeScript("PRAGMA foreign_keys=ON; PRAGMA query_only=1;")
            readers.append(reader)
        }
        var durability: (@Sendable () throws -> Void)?
        if options.synchronousFull {
            let wal = WALSync(databasePath: writer.filename)
            durability = { try wal.sync() }
        }
        engine = ThreadedStore(dialect: .sqlite, transactions: Self.transactions, writers: [writer], readers: readers,
                               options: .init(maxBatch: options.maxBatch, queueTimeout: options.queueTimeout), observer: observer,
                               durability: durability)
    }
}
