/// One result row; columns are looked up by name. Reading a missing column or a wrong type is a programming error
/// in our queries, reported as `StoreError.corrupt` rather than a crash.
public struct SQLRow: Sendable {
    public let columns: [String]
    public let values: [SQLValue]

    public init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    public subscript(_ name: String) -> SQLValue {
        guard let i = columns.firstIndex(of: name) else { return .null }
        return values[i]
    }

    public func string(_ name: String) throws -> String { try Self.string(self[name], column: name) }
    public func optionalString(_ name: String) throws -> String? { try Self.optionalString(self[name], column: name) }
    public func int(_ name: String) throws -> Int64 { try Self.int(self[name], column: name) }
    public func optionalInt(_ name: String) throws -> Int64? { try Self.optionalInt(self[name], column: name) }
    public func bool(_ name: String) throws -> Bool { try int(name) != 0 }
    public func double(_ name: String) throws -> Double { try Self.double(self[name], column: name) }
    public func blob(_ name: String) throws -> [UInt8] { try Self.blob(self[name], column: name) }

    // The readers of one value, named `column` in their errors: the row's accessors and `RowDecoder` share them.

    static func string(_ value: SQLValue, column name: String) throws -> String {
        guard case .text(let s) = value else { throw StoreError.corrupt("column \(name) is not text") }
        return s
    }

    static func optionalString(_ value: SQLValue, column name: String) throws -> String? {
        switch value {
        case .null: return nil
        case .text(let s): return s
        default: throw StoreError.corrupt("column \(name) is not text")
        }
    }

    static func int(_ value: SQLValue, column name: String) throws -> Int64 {
        guard case .integer(let i) = value else { throw notAnInteger(value, name) }
        return i
    }

    static func optionalInt(_ value: SQLValue, column name: String) throws -> Int64? {
        switch value {
        case .null: return nil
        case .integer(let i): return i
        default: throw notAnInteger(value, name)
        }
    }

    /// A column that should hold an integer: a whole number past 64 bits is a total that went out of range (a SUM on
    /// PostgreSQL is `numeric`; SQLite turns an overflowing `+` into a real), anything else is corrupt.
    private static func notAnInteger(_ value: SQLValue, _ name: String) -> StoreError {
        if case .real(let d) = value, d.rounded() == d, d.magnitude >= 9.2e18 {
            return .outOfRange("column \(name) holds \(d), past a 64-bit integer")
        }
        return .corrupt("column \(name) is not an integer")
    }

    static func double(_ value: SQLValue, column name: String) throws -> Double {
        switch value {
        case .real(let d): return d
        case .integer(let i): return Double(i)
        default: throw StoreError.corrupt("column \(name) is not a number")
        }
    }

    static func blob(_ value: SQLValue, column name: String) throws -> [UInt8] {
        guard case .blob(let b) = value else { throw StoreError.corrupt("column \(name) is not a blob") }
        return b
    }
}
