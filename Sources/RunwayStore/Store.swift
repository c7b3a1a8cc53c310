/// Runs statements on one connection, inside whatever transaction the store opened for the caller.
/// Executors are only valid inside the closure they are passed to.
public protocol SQLExecutor {
    var dialect: SQLDialect { get }
    /// Runs a statement and returns how many rows it changed.
    @discardableResult func execute(_ sql: SQL) throws -> Int
    /// Runs a query and returns its rows.
    func query(_ sql: SQL) throws -> [SQLRow]
    /// Which writer runs this, for rows that every write adds to (a link's daily counts): kept one per lane, writers
    /// that commit side by side (PostgreSQL's) never wait on each other's row locks, and readers sum the lanes. 0 on a
    /// reader and on SQLite's single writer.
    var lane: Int { get }
}

extension Store {
    public func insert(_ row: RowInsert, completion: @escaping @Sendable ((any Error)?) -> Void) {
        write({ db in try db.insert(row) }, completion: completion)
    }

    /// `insert(_:completion:)` for a caller that can wait: returns once the row is durable.
    public func insert(_ row: RowInsert) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            insert(row) { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }
}

extension SQLExecutor {
    public var lane: Int { 0 }

    /// The first row of a query, or nil.
    public func first(_ sql: SQL) throws -> SQLRow? { try query(sql).first }
}

/// What the store tells observers about group commits (for metrics).
public protocol StoreObserver: Sendable {
    func didCommit(batchSize: Int, seconds: Double)
    /// A sync made the writes of `writes` group commits' callers durable (`DurabilityBarrier`), taking `seconds`.
    func didSync(writes: Int, seconds: Double)
}

extension StoreObserver {
    public func didSync(writes: Int, seconds: Double) {}
}

/// The one storage interface every backend implements and the conformance suite checks.
///
/// Writes are group-committed: concurrent `write` calls are run one after another, each in its own savepoint, inside
/// one transaction, and each call returns only after that transaction committed durably. A write that throws rolls back
/// its own savepoint and does not disturb the others in its batch. Write closures must be quick and must not block
/// on anything but the database.
public protocol Store: Sendable {
    var dialect: SQLDialect { get }
    /// Runs `body` on a reader connection (a consistent snapshot).
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) throws -> T) async throws -> T
    /// Runs `body` inside a group-committed write transaction; returns after the commit.
    @discardableResult
    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) throws -> T) async throws -> T
    /// The same group-committed write for a caller that cannot wait: `completion` runs once the commit is durable (nil)
    /// or the write failed (its error), off the writer's thread (the completions of one group commit one after the
    /// other on one dispatch thread), so it may log and count but should not block.
    func write(_ body: @escaping @Sendable (any SQLExecutor) throws -> Void, completion: @escaping @Sendable ((any Error)?) -> Void)
    /// A group-committed write of one row, which the writer may send with other rows of the same target as one
    /// multi-row statement; `completion` as for `write(_:completion:)`. A row refused (a conflict) fails alone.
    func insert(_ row: RowInsert, completion: @escaping @Sendable ((any Error)?) -> Void)
    /// Applies the migrations not yet recorded, in order, each in its own transaction; returns the ids applied.
    func migrate(_ migrations: [Migration]) async throws -> [String]
    /// Succeeds when the database answers a trivial query.
    func ping() async throws
    /// Finishes queued writes, then closes every connection. Later calls fail with `unavailable`.
    func close() async
}
