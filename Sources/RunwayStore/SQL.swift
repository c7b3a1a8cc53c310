/// The SQL flavour a backend speaks; only placeholders and a few types differ between them.
public enum SQLDialect: String, Sendable {
    case sqlite
    case postgres
}

/// A statement with its parameters kept apart from the text. Interpolated values are always bound, never spliced:
/// `"SELECT * FROM apps WHERE id = \(id)"` renders `... id = ?` (SQLite) or `... id = $1` (PostgreSQL).
/// Use `\(raw: fragment)` only for trusted fragments written in the code (column lists, ORDER BY).
public struct SQL: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    enum Part: Sendable { case text(String), parameter }
    var parts: [Part]
    public private(set) var bindings: [SQLValue]
    /// Text already in its dialect's placeholders (`InsertTarget` makes it once), used instead of `parts`.
    private var rendered: String?
    /// A short name for the text, for backends to find their prepared statement by instead of hashing a long text.
    public private(set) var cacheKey: String?

    /// A statement whose text is written with its dialect's placeholders already, known to prepared-statement caches
    /// by `cacheKey` (which must be unique to the text).
    init(rendered text: String, cacheKey: String, bindings: [SQLValue]) {
        parts = []
        self.bindings = bindings
        rendered = text
        self.cacheKey = cacheKey
    }

    public init(stringLiteral value: String) {
        parts = [.text(value)]
        bindings = []
    }

    public init(stringInterpolation: StringInterpolation) {
        parts = stringInterpolation.parts
        bindings = stringInterpolation.bindings
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var parts: [Part] = []
        var bindings: [SQLValue] = []

        public init(literalCapacity: Int, interpolationCount: Int) {}

        public mutating func appendLiteral(_ literal: String) { parts.append(.text(literal)) }

        public mutating func appendInterpolation(_ value: some SQLBindable) {
            parts.append(.parameter)
            bindings.append(value.sqlValue)
        }

        /// Binds NULL for nil.
        public mutating func appendInterpolation<Value: SQLBindable>(_ value: Value?) {
            parts.append(.parameter)
            bindings.append(value?.sqlValue ?? .null)
        }

        public mutating func appendInterpolation(raw fragment: String) { parts.append(.text(fragment)) }

        /// Splices another statement, parameters included.
        public mutating func appendInterpolation(_ sql: SQL) {
            precondition(sql.rendered == nil, "a rendered statement is not spliced into another")
            parts.append(contentsOf: sql.parts)
            bindings.append(contentsOf: sql.bindings)
        }
    }

    /// `?, ?, …`: a parameter for each of `values`, to splice into `IN (…)`. Its text depends on the count, so a caller
    /// with lists of any length sends them in a few sizes (`StatementChunks`) to keep the texts prepared few.
    public static func list<Value: SQLBindable>(_ values: some Collection<Value>) -> SQL {
        var out = SQL(stringLiteral: "")
        out.parts.reserveCapacity(values.count * 2)
        out.bindings.reserveCapacity(values.count)
        for value in values {
            if !out.bindings.isEmpty { out.parts.append(.text(", ")) }
            out.parts.append(.parameter)
            out.bindings.append(value.sqlValue)
        }
        return out
    }

    /// Appends another statement, parameters included.
    public static func + (lhs: SQL, rhs: SQL) -> SQL {
        precondition(lhs.rendered == nil && rhs.rendered == nil, "a rendered statement is not joined with another")
        var out = lhs
        out.parts += rhs.parts
        out.bindings += rhs.bindings
        return out
    }

    /// The text with the dialect's placeholders.
    public func text(for dialect: SQLDialect) -> String {
        if let rendered { return rendered }
        var out = ""
        out.reserveCapacity(parts.reduce(0) { total, part in
            if case .text(let t) = part { return total + t.utf8.count }
            return total + 4
        })
        var n = 0
        for part in parts {
            switch part {
            case .text(let t): out += t
            case .parameter:
                n += 1
                out += dialect == .sqlite ? "?" : "$\(n)"
            }
        }
        return out
    }

    /// The SQLite text; never includes parameter values, so it is safe to log.
    public var description: String { text(for: .sqlite) }
}

/// SQL text both backends run the same way.
public enum SQLText {
    /// `a + b` of two 64-bit integer expressions, refused with `StoreError.outOfRange` when it would pass what 64 bits
    /// hold: PostgreSQL raises on an overflowing `+` itself, but SQLite would turn it into a real, so past the bound the
    /// expression takes `abs` of the smallest integer, which both raise as an out-of-range error. The minimum is made
    /// from a column, not a constant, so neither planner evaluates it ahead of the rows.
    public static func checkedSum(_ a: String, _ b: String) -> String {
        "CASE WHEN (\(b) > 0 AND \(a) > 9223372036854775807 - \(b)) OR (\(b) < 0 AND \(a) < -9223372036854775807 - 1 - \(b)) "
            + "THEN abs(\(a) - \(a) - 9223372036854775807 - 1) ELSE \(a) + \(b) END"
    }
}
