import Synchronization

/// Work that keeps something up with the rows inserted through an `InsertTarget`, in their own transaction (counts of
/// what the rows record, say). It runs once for each statement that inserts rows of the target, with exactly those
/// rows, inside the same savepoint: it commits with them or is undone with them, and when it throws, so do they.
/// The writer sends up to 64 queued rows in one statement, so under load it runs once for many rows, not once a row.
public protocol InsertFollowUp: Sendable {
    /// Runs after `rows` were inserted, on the same connection; each keeps the `followUpValue` it was made with.
    func inserted(_ rows: [RowInsert], db: any SQLExecutor) throws
}

/// The table and columns of an INSERT that the writer may send for several rows at once (`Store.insert`): one
/// multi-row statement instead of a statement (and, on PostgreSQL, a round trip) a row. Its text for each dialect and
/// number of rows is made once.
public final class InsertTarget: Sendable {
    public let table: String
    public let columns: [String]
    /// What follows the rows (`ON CONFLICT … DO NOTHING RETURNING …`), written in the code.
    public let suffix: String
    /// What runs with every statement that inserts rows of this target.
    public let followUp: (any InsertFollowUp)?
    private let texts = Mutex<[TextKey: String]>([:])
    /// Names this target's texts in prepared-statement caches (never the start of SQL text).
    private let name: String
    private static let made = Atomic<Int>(0)

    private struct TextKey: Hashable {
        let dialect: SQLDialect
        let rows: Int
    }

    /// `table`, `columns` and `suffix` are written in the code, never taken from input. A target that returns rows
    /// has no follow-up.
    public init(table: String, columns: [String], then suffix: String = "", followUp: (any InsertFollowUp)? = nil) {
        precondition(!columns.isEmpty)
        precondition(followUp == nil || !suffix.contains("RETURNING"), "\(table): a follow-up of rows that return rows")
        self.table = table
        self.columns = columns
        self.suffix = suffix
        self.followUp = followUp
        name = "\u{1}insert-\(Self.made.add(1, ordering: .relaxed).newValue)-"
    }

    /// Inserts `rows` in one statement, then runs the follow-up with them (for a caller already inside a write).
    public func insert(_ rows: [RowInsert], on db: any SQLExecutor) throws {
        try db.execute(sql(rows.map(\.values), dialect: db.dialect))
        try followUp?.inserted(rows, db: db)
    }

    /// The statement inserting `rows` (each with a value per column, in order).
    func sql(_ rows: some Collection<[SQLValue]>, dialect: SQLDialect) -> SQL {
        let text = texts.withLock { texts in
            let key = TextKey(dialect: dialect, rows: rows.count)
            if let known = texts[key] { return known }
            let made = Self.text(table: table, columns: columns, rows: rows.count, dialect: dialect) + (suffix.isEmpty ? "" : " " + suffix)
            texts[key] = made
            return made
        }
        var values: [SQLValue] = []
        values.reserveCapacity(rows.count * columns.count)
        for row in rows {
            precondition(row.count == columns.count, "\(table): \(row.count) values for \(columns.count) columns")
            values.append(contentsOf: row)
        }
        return SQL(rendered: text, cacheKey: name + "\(dialect.rawValue)-\(rows.count)", bindings: values)
    }

    static func text(table: String, columns: [String], rows: Int, dialect: SQLDialect) -> String {
        var text = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES "
        var n = 0
        for row in 0..<rows {
            text += row == 0 ? "(" : ", ("
            for column in 0..<columns.count {
                n += 1
                if column > 0 { text += ", " }
                text += dialect == .sqlite ? "?" : "$\(n)"
            }
            text += ")"
        }
        return text
    }
}

/// One row for an `InsertTarget`: a value per column, in the target's order, and what its follow-up reads of it, typed
/// as the code that made the row knows it (a click's facts for its rollup), so the follow-up never reads values back
/// by position.
public struct RowInsert: Sendable {
    public let target: InsertTarget
    public let values: [SQLValue]
    public let followUpValue: (any Sendable)?

    public init(into target: InsertTarget, values: [SQLValue], followUpValue: (any Sendable)? = nil) {
        precondition(values.count == target.columns.count, "\(target.table): \(values.count) values for \(target.columns.count) columns")
        self.target = target
        self.values = values
        self.followUpValue = followUpValue
    }
}

extension SQLExecutor {
    /// Inserts one row now, inside the caller's transaction (with its target's follow-up).
    public func insert(_ row: RowInsert) throws {
        try row.target.insert([row], on: self)
    }

    /// Inserts rows of one target now, inside the caller's transaction, in statements of 64, 32, … rows (so a target
    /// has at most seven texts to prepare); the rows the statements return (a target whose suffix has `RETURNING`), in
    /// order.
    @discardableResult
    public func insert(_ target: InsertTarget, rows: [[SQLValue]]) throws -> [SQLRow] {
        var returned: [SQLRow] = []
        for range in StatementChunks.ranges(count: rows.count) {
            // trap-safe: the ranges lie within 0..<rows.count
            let chunk = rows[range]
            if target.suffix.contains("RETURNING") {
                returned += try query(target.sql(chunk, dialect: dialect))
            } else if target.followUp == nil {
                try execute(target.sql(chunk, dialect: dialect))
            } else {
                try target.insert(chunk.map { RowInsert(into: target, values: $0) }, on: self)
            }
        }
        return returned
    }
}
