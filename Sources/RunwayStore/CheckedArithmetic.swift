/// Sums of money and counts that refuse to overflow: each throws `StoreError.outOfRange` (HTTP 422
/// `total_out_of_range`) where a plain operator would stop the whole server.
public enum Checked {
    public static func add(_ a: Int64, _ b: Int64) throws -> Int64 {
        let (result, overflow) = a.addingReportingOverflow(b)
        if overflow { throw StoreError.outOfRange("\(a) + \(b) is past a 64-bit integer") }
        return result
    }

    public static func add(_ a: Int, _ b: Int) throws -> Int {
        let (result, overflow) = a.addingReportingOverflow(b)
        if overflow { throw StoreError.outOfRange("\(a) + \(b) is past a 64-bit integer") }
        return result
    }

    /// A count read as `Int64` added to one kept as `Int`.
    public static func add(_ a: Int, _ b: Int64) throws -> Int { try add(a, try int(b)) }

    public static func subtract(_ a: Int64, _ b: Int64) throws -> Int64 {
        let (result, overflow) = a.subtractingReportingOverflow(b)
        if overflow { throw StoreError.outOfRange("\(a) - \(b) is past a 64-bit integer") }
        return result
    }

    public static func multiply(_ a: Int64, _ b: Int64) throws -> Int64 {
        let (result, overflow) = a.multipliedReportingOverflow(by: b)
        if overflow { throw StoreError.outOfRange("\(a) × \(b) is past a 64-bit integer") }
        return result
    }

    public static func sum<Values: Sequence<Int64>>(_ values: Values) throws -> Int64 {
        try values.reduce(0, add)
    }

    /// `total[key] += amount`, checked.
    public static func add<Key: Hashable>(_ amount: Int64, to total: inout [Key: Int64], at key: Key) throws {
        total[key] = try add(total[key] ?? 0, amount)
    }

    public static func add<Key: Hashable>(_ amount: Int, to total: inout [Key: Int], at key: Key) throws {
        total[key] = try add(total[key] ?? 0, amount)
    }

    /// Two maps of totals merged, those under the same key added, checked.
    public static func merge<Key: Hashable, Value: FixedWidthInteger>(_ a: [Key: Value], _ b: [Key: Value]) throws -> [Key: Value] {
        try a.merging(b) { x, y in
            let (result, overflow) = x.addingReportingOverflow(y)
            if overflow { throw StoreError.outOfRange("\(x) + \(y) is past a 64-bit integer") }
            return result
        }
    }

    /// `Int(value)` for a count read from the database, refused when it does not fit.
    public static func int(_ value: Int64) throws -> Int {
        guard let int = Int(exactly: value) else { throw StoreError.outOfRange("\(value) does not fit an Int") }
        return int
    }
}
