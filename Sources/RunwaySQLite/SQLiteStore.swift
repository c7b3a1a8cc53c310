import CSQLite
import Foundation
import RunwayStore

/// The SQLite backend: one file in WAL mode, one writer thread that group-commits, and reader threads in parallel.
public final class SQLiteStore: Store, @unchecked Sendable {
    public struct Options: Sendable {
        /// Reader threads (each with its own connection).
        public var readers: Int
        /// How long a connection waits for a lock held by another process before reporting `unavailable`.
        public var busyTimeoutMilliseconds: Int32
        /// The most writes committed in one transaction.
        public var maxBatch: Int
        /// `FULL` syncs the WAL on every commit, so an acknowledged write survives power loss; `NORMAL` survives
        /// only a crash of the process.
        public var synchronousFull: Bool

        public init(readers: Int = max(2, ProcessInfo.processInfo.activeProcessorCount),
                    busyTimeoutMilliseconds: Int32 = 5_000, maxBatch: Int = 512, synchronousFull: Bool = true) {
            self.readers = readers
            self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
            self.maxBatch = maxBatch
            self.synchronousFull = synchronousFull
        }
    }

    public let dialect = SQLDialect.sqlite
    public let path: String
    private let options: Options
    private let observer: (any StoreObserver)?
    private let writes = JobQueue<WriteJob>()
    private let reads = JobQueue<ReadJob>()
    private let stopped = DispatchGroup()

    /// Opens (creating if needed) the database at `path` and starts its threads.
    public init(path: String, options: Options = Options(), observer: (any StoreObserver)? = nil) throws {
        self.path = path
        self.options = options
        self.observer = observer
        let writer = try SQLiteConnection(path: path, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
        let mode = try writer.query("PRAGMA journal_mode=WAL").first.flatMap { try? $0.string("journal_mode") }
        guard mode == "wal" else { throw StoreError.unavailable("cannot switch \(path) to WAL mode (got \(mode ?? "nothing"))") }
        try writer.executeScript("""
            PRAGMA synchronous=\(options.synchronousFull ? "FULL" : "NORMAL");
            PRAGMA foreign_keys=ON;
            """)
        var readers: [SQLiteConnection] = []
        for _ in 0..<max(1, options.readers) {
            let reader = try SQLiteConnection(path: path, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
            try reader.executeScript("PRAGMA foreign_keys=ON; PRAGMA query_only=1;")
            readers.append(reader)
        }
        startWriter(writer)
        for reader in readers { startReader(reader) }
    }

    // MARK: Store

    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let job = ReadJob { connection in
                continuation.resume(with: Result { try body(connection) })
            }
            if !reads.push(job) { continuation.resume(throwing: StoreError.unavailable("the store is closed")) }
        }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let box = ResultBox<T>()
            let job = WriteJob(
                run: { connection in box.value = try body(connection) },
                finish: { error in
                    if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: box.value!) }
                })
            if !writes.push(job) { continuation.resume(throwing: StoreError.unavailable("the store is closed")) }
        }
    }

    public func migrate(_ migrations: [Migration]) async throws -> [String] {
        try await exclusive { connection in
            try connection.executeScript("CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)")
            let applied = Set(try connection.query("SELECT id FROM schema_migrations").map { try $0.string("id") })
            var done: [String] = []
            for migration in try Migration.pending(migrations, applied: applied) {
                try connection.executeScript("BEGIN IMMEDIATE")
                do {
                    try connection.executeScript(migration.sqlite)
                    let now = Int64(Date().timeIntervalSince1970 * 1000)
                    try connection.execute("INSERT INTO schema_migrations (id, applied_at) VALUES (\(migration.id), \(now))")
                    try connection.executeScript("COMMIT")
                } catch {
                    try? connection.executeScript("ROLLBACK")
                    throw error
                }
                done.append(migration.id)
            }
            return done
        }
    }

    public func ping() async throws {
        _ = try await read { try $0.query("SELECT 1 AS one") }
    }

    public func close() async {
        writes.close()
        reads.close()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            stopped.notify(queue: .global()) { continuation.resume() }
        }
    }

    // MARK: Threads

    /// Runs `body` alone on the writer connection, outside group commit; it manages its own transactions.
    private func exclusive<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let job = WriteJob(exclusive: { connection in continuation.resume(with: Result { try body(connection) }) })
            if !writes.push(job) { continuation.resume(throwing: StoreError.unavailable("the store is closed")) }
        }
    }

    private func startWriter(_ connection: SQLiteConnection) {
        stopped.enter()
        let thread = Thread { [writes, options, observer, stopped] in
            while let batch = writes.take(limit: options.maxBatch) {
                var grouped: [WriteJob] = []
                for job in batch {
                    if let exclusive = job.exclusive {
                        Self.commit(grouped, on: connection, observer: observer)
                        grouped.removeAll()
                        exclusive(connection)
                    } else {
                        grouped.append(job)
                    }
                }
                Self.commit(grouped, on: connection, observer: observer)
            }
            connection.close()
            stopped.leave()
        }
        thread.name = "linkrunway-sqlite-writer"
        thread.start()
    }

    private func startReader(_ connection: SQLiteConnection) {
        stopped.enter()
        let thread = Thread { [reads, stopped] in
            while let jobs = reads.take(limit: 1) {
                for job in jobs {
                    do {
                        try connection.executeScript("BEGIN")
                    } catch {
                        job.run(FailingExecutor(error: error))
                        continue
                    }
                    job.run(connection)
                    // A read-only transaction has nothing to lose; end it whichever way works.
                    if (try? connection.executeScript("COMMIT")) == nil { try? connection.executeScript("ROLLBACK") }
                }
            }
            connection.close()
            stopped.leave()
        }
        thread.name = "linkrunway-sqlite-reader"
        thread.start()
    }

    /// One group commit: every job in its own savepoint, one COMMIT, then every caller is answered.
    private static func commit(_ jobs: [WriteJob], on connection: SQLiteConnection, observer: (any StoreObserver)?) {
        guard !jobs.isEmpty else { return }
        let started = DispatchTime.now().uptimeNanoseconds
        var errors = [(any Error)?](repeating: nil, count: jobs.count)
        do {
            try connection.executeScript("BEGIN IMMEDIATE")
        } catch {
            for job in jobs { job.finish?(error) }
            return
        }
        for (i, job) in jobs.enumerated() {
            do {
                try connection.executeScript("SAVEPOINT w")
                do {
                    try job.run?(connection)
                    try connection.executeScript("RELEASE w")
                } catch {
                    try connection.executeScript("ROLLBACK TO w; RELEASE w")
                    errors[i] = error
                }
            } catch {
                errors[i] = error
            }
        }
        do {
            try connection.executeScript("COMMIT")
        } catch {
            try? connection.executeScript("ROLLBACK")
            for job in jobs { job.finish?(error) }
            return
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        observer?.didCommit(batchSize: jobs.count, seconds: seconds)
        for (i, job) in jobs.enumerated() { job.finish?(errors[i]) }
    }
}

/// A queued write: either a group-committed closure with its completion, or an exclusive closure.
final class WriteJob: @unchecked Sendable {
    let run: ((SQLiteConnection) throws -> Void)?
    let finish: (((any Error)?) -> Void)?
    let exclusive: ((SQLiteConnection) -> Void)?

    init(run: @escaping (SQLiteConnection) throws -> Void, finish: @escaping ((any Error)?) -> Void) {
        self.run = run
        self.finish = finish
        self.exclusive = nil
    }

    init(exclusive: @escaping (SQLiteConnection) -> Void) {
        self.run = nil
        self.finish = nil
        self.exclusive = exclusive
    }
}

/// A queued read; it answers its caller itself.
final class ReadJob: @unchecked Sendable {
    let run: (any SQLExecutor) -> Void
    init(run: @escaping (any SQLExecutor) -> Void) { self.run = run }
}

/// Stands in for a connection whose transaction could not start, so the caller gets the error.
struct FailingExecutor: SQLExecutor {
    let error: any Error
    var dialect: SQLDialect { .sqlite }
    func execute(_ sql: SQL) throws -> Int { throw error }
    func query(_ sql: SQL) throws -> [SQLRow] { throw error }
}
