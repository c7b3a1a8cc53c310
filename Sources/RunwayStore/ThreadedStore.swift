import Foundation

/// A connection that `ThreadedStore` drives from one thread only.
public protocol EngineConnection: SQLExecutor, AnyObject {
    /// Runs statements without parameters (transaction control, pragmas, migrations); may hold several.
    func executeScript(_ script: String) throws
    /// Reconnects when the connection was lost; throws `StoreError.unavailable` when the database cannot be reached.
    func ensureOpen() throws
    /// Releases the connection; the engine calls it once, from the connection's thread.
    func close()
}

/// The statements that differ between backends around transactions.
public struct TransactionDialect: Sendable {
    /// Starts a write transaction that takes the write lock at once (SQLite `BEGIN IMMEDIATE`).
    public var beginWrite: String
    /// Starts a read-only snapshot.
    public var beginRead: String
    /// Serialises migrations between processes, if the backend needs it (PostgreSQL advisory lock).
    public var lockMigrations: String?
    public var unlockMigrations: String?

    public init(beginWrite: String, beginRead: String, lockMigrations: String? = nil, unlockMigrations: String? = nil) {
        self.beginWrite = beginWrite
        self.beginRead = beginRead
        self.lockMigrations = lockMigrations
        self.unlockMigrations = unlockMigrations
    }
}

/// The engine both backends share: writer threads that group-commit (one for SQLite, a few for PostgreSQL, which
/// takes concurrent writers) and reader threads, each owning one connection. Queued work that waits longer than
/// `queueTimeout` for a connection fails with `unavailable`.
public final class ThreadedStore: Store, @unchecked Sendable {
    public struct Options: Sendable {
        /// The most writes committed in one transaction.
        public var maxBatch: Int
        /// Seconds a read or write may wait in the queue before it is refused.
        public var queueTimeout: Double

        public init(maxBatch: Int = 512, queueTimeout: Double = 10) {
            self.maxBatch = maxBatch
            self.queueTimeout = queueTimeout
        }
    }

    public let dialect: SQLDialect
    private let transactions: TransactionDialect
    private let options: Options
    private let observer: (any StoreObserver)?
    private let writes = JobQueue<WriteJob>()
    private let reads = JobQueue<ReadJob>()
    private let stopped = DispatchGroup()
    /// Where commits wait for the disk when the backend's COMMIT does not (see `DurabilityBarrier`).
    private let barrier: DurabilityBarrier?

    /// Starts one thread per writer and per reader; each connection is used only by its thread from now on. Writers
    /// take batches from one queue. `durability` makes committed writes durable when COMMIT does not: writes are
    /// answered only once it has run after their commit (one writer only).
    public init(dialect: SQLDialect, transactions: TransactionDialect, writers: [any EngineConnection & Sendable],
                readers: [any EngineConnection & Sendable], options: Options = Options(), observer: (any StoreObserver)? = nil,
                durability: (@Sendable () throws -> Void)? = nil) {
        precondition(!writers.isEmpty, "a store needs a writer")
        precondition(durability == nil || writers.count == 1, "a durability barrier follows one writer's commits")
        self.dialect = dialect
        self.transactions = transactions
        self.options = options
        self.observer = observer
        // Thread names of at most 15 bytes, as Linux keeps them (perf and top show them).
        barrier = durability.map { DurabilityBarrier(label: "sync-\(dialect.rawValue)", observer: observer, sync: $0) }
        for writer in writers { startWriter(writer, label: "writer-\(dialect.rawValue)") }
        for reader in readers { startReader(reader, label: "reader-\(dialect.rawValue)") }
    }

    // MARK: Store

    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let job = ReadJob { executor in continuation.resume(with: Result { try body(executor) }) }
            if !reads.push(job) { continuation.resume(throwing: StoreError.unavailable("the store is closed")) }
        }
    }

    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let box = ResultBox<T>()
            let job = WriteJob(
                run: { connection in box.value = try body(connection) },
                finish: { error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let value = box.value {
                        continuation.resume(returning: value)
                    } else {
                        continuation.resume(throwing: StoreError.failed("a write finished without running"))
                    }
                })
            if !writes.push(job) { continuation.resume(throwing: StoreError.unavailable("the store is closed")) }
        }
    }

    public func write(_ body: @escaping @Sendable (any SQLExecutor) throws -> Void, completion: @escaping @Sendable ((any Error)?) -> Void) {
        let job = WriteJob(run: { connection in try body(connection) }, finish: completion, offWriter: true)
        if !writes.push(job) { completion(StoreError.unavailable("the store is closed")) }
    }

    public func insert(_ row: RowInsert, completion: @escaping @Sendable ((any Error)?) -> Void) {
        if !writes.push(WriteJob(row: row, finish: completion)) { completion(StoreError.unavailable("the store is closed")) }
    }

    public func migrate(_ migrations: [Migration]) async throws -> [String] {
        let transactions = self.transactions
        let dialect = self.dialect
        return try await exclusive { connection in
            try connection.ensureOpen()
            if let lock = transactions.lockMigrations { try connection.executeScript(lock) }
            defer { if let unlock = transactions.unlockMigrations { try? connection.executeScript(unlock) } }
            try connection.executeScript("CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)")
            let applied = Set(try connection.query("SELECT id FROM schema_migrations").map { try $0.string("id") })
            var done: [String] = []
            for migration in try Migration.pending(migrations, applied: applied) {
                try connection.executeScript(transactions.beginWrite)
                do {
                    try connection.executeScript(migration.sql(for: dialect))
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

    /// Reads waiting for a reader connection (for tests and diagnostics).
    public var queuedReads: Int { reads.count }

    public func ping() async throws {
        _ = try await read { try $0.query("SELECT 1 AS one") }
    }

    public func close() async {
        writes.close()
        reads.close()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            stopped.notify(queue: .global()) { [barrier] in
                barrier?.close()
                continuation.resume()
            }
        }
    }

    // MARK: Threads

    /// Runs `body` alone on the writer connection, between group commits; it manages its own transactions.
    private func exclusive<T: Sendable>(_ body: @escaping @Sendable (any EngineConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let job = WriteJob(exclusive: { [barrier] connection in
                var result = Result { try body(connection) }
                if case .success = result, let barrier {
                    do { try barrier.syncNow() } catch { result = .failure(error) }
                }
                continuation.resume(with: result)
            })
            if !writes.push(job) { continuation.resume(throwing: StoreError.unavailable("the store is closed")) }
        }
    }

    private func startWriter(_ connection: any EngineConnection & Sendable, label: String) {
        stopped.enter()
        let thread = Thread { [writes, options, observer, transactions, stopped, barrier] in
            Thread.current.name = label  // named from inside: on Linux a name set before start is not applied
            try? connection.ensureOpen()  // connected now rather than by the first write; a failure is tried again then
            let groupCommit = { (jobs: [WriteJob]) in
                Self.deliver(Self.commit(jobs, on: connection, transactions: transactions, observer: observer), through: barrier)
            }
            var rowsArriving = false
            // While rows arrive in numbers (a redirect's clicks: the last batch was large and mostly rows), the writer
            // takes its next batch only once the last commit is in a sync, and then waits up to a millisecond to
            // gather 48 writes: a write queued during a sync could not be answered before the next one anyway, and
            // fewer, larger commits and syncs cost less CPU a row. Other writes (a match, an event batch: heavier,
            // and waited for) are committed at once, and a lone write is never held.
            while let batch = writes.take(limit: options.maxBatch, after: { if rowsArriving { barrier?.awaitRoom() } },
                                          gather: barrier != nil && rowsArriving ? (jobs: Self.gatheredBatch, seconds: 0.001) : nil) {
                rowsArriving = batch.count >= Self.busyBatch && batch.filter({ $0.row != nil }).count * 4 >= batch.count * 3
                let deadline = Date().addingTimeInterval(-options.queueTimeout)
                var grouped: [WriteJob] = []
                for job in batch {
                    if job.enqueuedAt < deadline {
                        job.fail(StoreError.unavailable("waited more than \(options.queueTimeout) s for the database"))
                    } else if let exclusive = job.exclusive {
                        groupCommit(grouped)
                        grouped.removeAll()
                        exclusive(connection)
                    } else {
                        grouped.append(job)
                    }
                }
                groupCommit(grouped)
            }
            connection.close()
            stopped.leave()
        }
        thread.name = label
        thread.start()
    }

    private func startReader(_ connection: any EngineConnection & Sendable, label: String) {
        stopped.enter()
        let thread = Thread { [reads, options, transactions, stopped] in
            Thread.current.name = label  // named from inside: on Linux a name set before start is not applied
            try? connection.ensureOpen()  // connected now rather than by the first read; a failure is tried again then
            while let jobs = reads.take(limit: 1) {
                for job in jobs {
                    if job.enqueuedAt < Date().addingTimeInterval(-options.queueTimeout) {
                        job.run(FailingExecutor(error: StoreError.unavailable("waited more than \(options.queueTimeout) s for the database")))
                        continue
                    }
                    do {
                        try Self.begin(transactions.beginRead, on: connection)
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
        thread.name = label
        thread.start()
    }

    /// Starts a transaction. A connection the server dropped while idle (a restart, a failover) is noticed here,
    /// before anything ran, so it is safe to reconnect and try once more.
    private static func begin(_ statement: String, on connection: any EngineConnection) throws {
        do {
            try connection.ensureOpen()
            try connection.executeScript(statement)
        } catch StoreError.unavailable {
            try connection.ensureOpen()
            try connection.executeScript(statement)
        }
    }

    /// One group commit: every job in its own savepoint, one COMMIT; returns every job's answer (nil: committed). Rows
    /// queued one after another for the same `InsertTarget` go as multi-row statements of up to `rowsPerStatement`,
    /// each in one savepoint with its target's follow-up; a statement (or follow-up) that fails is undone and its rows
    /// are tried one by one, so only the row at fault fails. A job that lost a deadlock or a serialization race runs
    /// again after the COMMIT, alone (running it again inside the group would wait on the same locks), up to
    /// `maxAttempts` times in all.
    private static func commit(_ jobs: [WriteJob], on connection: any EngineConnection, transactions: TransactionDialect,
                               observer: (any StoreObserver)?, attempt: Int = 1) -> [(WriteJob, (any Error)?)] {
        guard !jobs.isEmpty else { return [] }
        let started = DispatchTime.now().uptimeNanoseconds
        var errors: [ObjectIdentifier: any Error] = [:]
        do {
            try begin(transactions.beginWrite, on: connection)
        } catch {
            return jobs.map { ($0, error) }
        }
        var savepoint = Savepoint(connection: connection)
        for unit in units(jobs) {
            guard savepoint.isUsable else { break }
            if let error = savepoint.run({ try unit.run(on: connection) }) {
                guard unit.jobs.count > 1 else {
                    errors[ObjectIdentifier(unit.jobs[0])] = error
                    continue
                }
                for job in unit.jobs {
                    if let error = savepoint.run({ try Unit(jobs: [job]).run(on: connection) }) { errors[ObjectIdentifier(job)] = error }
                }
            }
        }
        guard savepoint.finish() else {
            try? connection.executeScript("ROLLBACK")
            return jobs.map { ($0, StoreError.unavailable("the transaction could not be kept consistent")) }
        }
        do {
            try connection.executeScript("COMMIT")
        } catch {
            try? connection.executeScript("ROLLBACK")
            return jobs.map { ($0, error) }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        observer?.didCommit(batchSize: jobs.count, seconds: seconds)
        var answers: [(WriteJob, (any Error)?)] = []
        answers.reserveCapacity(jobs.count)
        var again: [WriteJob] = []
        for job in jobs {
            let error = errors[ObjectIdentifier(job)]
            if case .transactionConflict? = error as? StoreError, attempt < maxAttempts {
                again.append(job)
            } else {
                answers.append((job, error))
            }
        }
        for job in again {
            // The writer it lost to still holds its locks: wait a little, longer each time and never in step with it.
            usleep(Self.backoffMicroseconds(attempt: attempt))
            answers += commit([job], on: connection, transactions: transactions, observer: observer, attempt: attempt + 1)
        }
        return answers
    }

    /// The most rows one multi-row statement inserts.
    static let rowsPerStatement = StatementChunks.largest

    /// What one savepoint covers: a job, or rows of one target queued one after another (in statements of 64, 32, …
    /// rows, so a target has at most seven texts to prepare).
    struct Unit {
        let jobs: [WriteJob]

        func run(on connection: any EngineConnection) throws {
            if let row = jobs[0].row {
                // A unit made of rows holds only jobs with rows (units()); one without would be a row lost, so it fails.
                let rows = jobs.compactMap(\.row)
                guard rows.count == jobs.count else { throw StoreError.corrupt("a unit of rows holds a job without one") }
                try row.target.insert(rows, on: connection)
            } else {
                try jobs[0].run?(connection)
            }
        }
    }

    static func units(_ jobs: [WriteJob]) -> [Unit] {
        var units: [Unit] = []
        var index = 0
        while index < jobs.count {
            guard let target = jobs[index].row?.target else {
                units.append(Unit(jobs: [jobs[index]]))
                index += 1
                continue
            }
            var end = index + 1
            while end < jobs.count, end - index < rowsPerStatement, jobs[end].row?.target === target { end += 1 }
            for range in StatementChunks.ranges(count: end - index) {
                // trap-safe: the ranges lie within 0..<(end - index), and end <= jobs.count
                units.append(Unit(jobs: Array(jobs[(index + range.lowerBound)..<(index + range.upperBound)])))
            }
            index = end
        }
        return units
    }

    /// The savepoint every unit of a group commit runs after: moving on to the next unit costs one round trip on a
    /// networked database ("RELEASE …; SAVEPOINT …" in one script), undoing a failed one another.
    struct Savepoint {
        let connection: any EngineConnection
        private var set = false
        /// False once the transaction could not be kept consistent (every job of the commit then fails).
        private(set) var isUsable = true

        init(connection: any EngineConnection) { self.connection = connection }

        /// Runs `body` after a fresh savepoint; its error, with its changes undone.
        mutating func run(_ body: () throws -> Void) -> (any Error)? {
            do {
                try connection.executeScript(set ? "RELEASE SAVEPOINT w; SAVEPOINT w" : "SAVEPOINT w")
                set = true
            } catch {
                isUsable = false
                return StoreError.unavailable("could not set a savepoint")
            }
            do {
                try body()
                return nil
            } catch {
                do {
                    try connection.executeScript("ROLLBACK TO SAVEPOINT w")
                } catch {
                    isUsable = false
                }
                return error
            }
        }

        /// Releases the last savepoint; false when the transaction is not usable.
        mutating func finish() -> Bool {
            if isUsable && set && (try? connection.executeScript("RELEASE SAVEPOINT w")) == nil { isUsable = false }
            return isUsable
        }
    }

    /// Answers the callers of a group commit: through the barrier when there is one (once the commit is durable), else
    /// at once; callers that cannot wait are answered together off the writer's thread, one hand-off a commit rather
    /// than one a job, so their answers (logging, metrics, resuming a connection) do not hold up the next commit.
    private static func deliver(_ answers: [(WriteJob, (any Error)?)], through barrier: DurabilityBarrier?) {
        guard !answers.isEmpty else { return }
        if let barrier {
            barrier.committed(answers)
            return
        }
        var offWriter: [(WriteJob, (any Error)?)] = []
        for (job, error) in answers {
            if job.offWriter { offWriter.append((job, error)) } else { job.finish?(error) }
        }
        if !offWriter.isEmpty {
            let answers = offWriter
            DispatchQueue.global().async { for (job, error) in answers { job.finish?(error) } }
        }
    }

    /// A batch this large, mostly rows, means rows arrive in numbers; then the next one waits a little to gather this many.
    static let busyBatch = 8
    static let gatheredBatch = 48

    /// How many times a write that keeps losing deadlocks is run before its caller gets the error: with the backoff
    /// below, a quarter of a second of pauses in all besides the tries themselves, so that writers slowed by a machine
    /// busy with other work still get through.
    static let maxAttempts = 8

    /// The pause before try `attempt + 1`: 2, 4, 8 … ms up to 256, with jitter of up to half of it either way.
    static func backoffMicroseconds(attempt: Int) -> UInt32 {
        let base = UInt32(1000 << min(max(attempt, 1), 8))
        return base / 2 + UInt32.random(in: 0...base)
    }
}

/// A queued write: either a group-committed closure with its completion, or an exclusive closure.
final class WriteJob: @unchecked Sendable {
    let run: ((any EngineConnection) throws -> Void)?
    /// A row to insert with others of its target (`Store.insert`), instead of `run`.
    let row: RowInsert?
    let finish: (((any Error)?) -> Void)?
    let exclusive: ((any EngineConnection) -> Void)?
    let enqueuedAt = Date()
    /// Answered off the writer's thread, with the rest of its commit's such jobs.
    let offWriter: Bool

    init(run: @escaping (any EngineConnection) throws -> Void, finish: @escaping ((any Error)?) -> Void, offWriter: Bool = false) {
        self.run = run
        self.row = nil
        self.finish = finish
        self.exclusive = nil
        self.offWriter = offWriter
    }

    init(row: RowInsert, finish: @escaping ((any Error)?) -> Void) {
        self.run = nil
        self.row = row
        self.finish = finish
        self.exclusive = nil
        self.offWriter = true
    }

    init(exclusive: @escaping (any EngineConnection) -> Void) {
        self.run = nil
        self.row = nil
        self.finish = nil
        self.exclusive = exclusive
        self.offWriter = false
    }

    /// Answers the caller with `error` without running.
    func fail(_ error: any Error) {
        if let finish { finish(error) } else { exclusive?(FailingConnection(error: error)) }
    }
}

/// A queued read; it answers its caller itself.
final class ReadJob: @unchecked Sendable {
    let run: (any SQLExecutor) -> Void
    let enqueuedAt = Date()
    init(run: @escaping (any SQLExecutor) -> Void) { self.run = run }
}

/// Stands in for a connection that cannot be used, so the caller gets the error.
struct FailingExecutor: SQLExecutor {
    let error: any Error
    var dialect: SQLDialect { .sqlite }
    func execute(_ sql: SQL) throws -> Int { throw error }
    func query(_ sql: SQL) throws -> [SQLRow] { throw error }
}

final class FailingConnection: EngineConnection {
    let error: any Error
    init(error: any Error) { self.error = error }
    var dialect: SQLDialect { .sqlite }
    func execute(_ sql: SQL) throws -> Int { throw error }
    func query(_ sql: SQL) throws -> [SQLRow] { throw error }
    func executeScript(_ script: String) throws { throw error }
    func ensureOpen() throws { throw error }
    func close() {}
}

/// A backend that is a configured `ThreadedStore`: it only says how to open connections and forwards the rest.
public protocol EngineBackedStore: Store {
    var engine: ThreadedStore { get }
}

extension EngineBackedStore {
    public var dialect: SQLDialect { engine.dialect }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) throws -> T) async throws -> T {
        try await engine.read(body)
    }

    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) throws -> T) async throws -> T {
        try await engine.write(body)
    }

    public func write(_ body: @escaping @Sendable (any SQLExecutor) throws -> Void, completion: @escaping @Sendable ((any Error)?) -> Void) {
        engine.write(body, completion: completion)
    }

    public func insert(_ row: RowInsert, completion: @escaping @Sendable ((any Error)?) -> Void) {
        engine.insert(row, completion: completion)
    }

    public func migrate(_ migrations: [Migration]) async throws -> [String] { try await engine.migrate(migrations) }
    public func ping() async throws { try await engine.ping() }
    public func close() async { await engine.close() }
}
