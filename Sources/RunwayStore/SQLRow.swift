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

    public func string(_ name: String) throws -> String {
        guard case .text(let s) = self[name] else { throw StoreError.corrupt("column \(name) is not text") }
        return s
    }

    public func optionalString(_ name: String) throws -> String? {
        switch self[name] {
        case .null: return nil
        case .text(let s): return s
        default: throw StoreError.corrupt("column \(name) is not text")
        }
    }

    public func int(_ name: String) throws -> Int64 {
        guard case .integer(let i) = self[name] else { throw notAnInteger(name) }
        return i
    }

    public func optionalInt(_ name: String) throws -> Int64? {
        switch self[name] {
        case .null: return nil
        case .integer(let i): return i
        default: throw notAnInteger(name)
        }
    }

    /// A column that should hold an integer: a whole number past 64 bits is a total that went out of range (a SUM on
    /// PostgreSQL is `numeric`; SQLite turns an overflowing `+` into a real), anything else is corrupt.
    private func notAnInteger(_ name: String) -> StoreError {
        if case .real(let d) = self[name], d.rounded() == d, d.magnitude >= 9.2e18 {
            return .outOfRange("column \(name) holds \(d), past a 64-bit integer")
        }
        return .corrupt("column \(name) is not an integer")
    }

    public func bool(_ name: String) throws -> Bool { try int(name) != 0 }

    public func double(_ name: String) throws -> Double {
        switch self[name] {
        case .real(let d): return d
        case .integer(let i): return Double(i)
        default: throw StoreError.corrupt("column \(name) is not a number")
        }
    }

    public func blob(_ name: String) throws -> [UInt8] {
        guard case .blob(let b) = self[name] else { throw StoreError.corrupt("column \(name) is not a blob") }
        return b
    }
}
