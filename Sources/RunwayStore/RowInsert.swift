import Synchronization

/// The table and columns of an INSERT that the writer may send for several rows at once (`Store.insert`): one
/// multi-row statement instead of a statement (and, on PostgreSQL, a round trip) a row. Its text for each dialect and
/// number of rows is made once.
public final class InsertTarget: Sendable {
    public let table: String
    public let columns: [String]
    private let texts = Mutex<[TextKey: String]>([:])

    private struct TextKey: Hashable {
        let dialect: SQLDialect
        let rows: Int
    }

    /// `table` and `columns` are written in the code, never taken from input.
    public init(table: String, columns: [String]) {
        precondition(!columns.isEmpty)
        self.table = table
        self.columns = columns
    }

    /// The statement inserting `rows` (each with a value per column, in order).
    func sql(_ rows: [[SQLValue]], dialect: SQLDialect) -> SQL {
        let text = texts.withLock { texts in
            let key = TextKey(dialect: dialect, rows: rows.count)
            if let known = texts[key] { return known }
            let made = Self.text(table: table, columns: columns, rows: rows.count, dialect: dialect)
            texts[key] = made
            return made
        }
        var values: [SQLValue] = []
        values.reserveCapacity(rows.count * columns.count)
        for row in rows { values.append(contentsOf: row) }
        return SQL(rendered: text, bindings: values)
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

/// One row for an `InsertTarget`: a value per column, in the target's order.
public struct RowInsert: Sendable {
    public let target: InsertTarget
    public let values: [SQLValue]

    public init(into target: InsertTarget, values: [SQLValue]) {
        precondition(values.count == target.columns.count, "\(target.table): \(values.count) values for \(target.columns.count) columns")
        self.target = target
        self.values = values
    }
}

extension SQLExecutor {
    /// Inserts one row now, inside the caller's transaction.
    public func insert(_ row: RowInsert) throws {
        try execute(row.target.sql([row.values], dialect: dialect))
    }
}
