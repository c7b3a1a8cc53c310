import Foundation
import Synchronization

/// Reads a result row into a `Decodable` record, as GRDB's `FetchableRecord` does: each stored property names its
/// column in snake case (`workspaceId` reads `workspace_id`). Text, integers (`Int64`, `Int`, `Int32`), reals, blobs
/// (`[UInt8]`) and booleans (integers 0 and 1) are read as `SQLRow` reads them; a type that decodes one value (an
/// enumeration with raw values, an id wrapper) from the column's value; any other `Decodable` (a list, an object) from
/// the column's JSON text; an `SQLValue` as it is. An optional property is nil for NULL or a column the query did not select; a missing
/// column, a value of the wrong type or one its type refuses is `StoreError.corrupt`, as with `SQLRow`.
public enum RowDecoder {
    public static func decode<Record: Decodable>(_ type: Record.Type, from row: SQLRow) throws -> Record {
        try decode(type, from: row, plan: ColumnPlan.learned(for: type, columns: row.columns))
    }

    /// `plan` serves every row of one statement (they share their columns).
    static func decode<Record: Decodable>(_ type: Record.Type, from row: SQLRow, plan: ColumnPlan) throws -> Record {
        do {
            let record = try Record(from: RowRecordDecoder(row: row, plan: plan))
            plan.learn(for: type, columns: row.columns)
            return record
        } catch let error as StoreError {
            throw error
        } catch {
            // A type's own refusal (an enumeration's unknown raw value) is a row that does not fit, like any other.
            throw StoreError.corrupt("a \(Record.self) row does not fit: \(error)")
        }
    }

    /// Column names already worked out, by property name: a record read per request (an install on every match) does
    /// not work them out again. Property names come from code, so the table stays small.
    private static let knownColumns = Mutex<[String: String]>([:])

    /// `columnName(property)`, worked out once per property name.
    static func column(of property: String) -> String {
        if let known = knownColumns.withLock({ $0[property] }) { return known }
        let name = columnName(property)
        knownColumns.withLock { $0[property] = name }
        return name
    }

    /// `workspaceId` → `workspace_id`, `iosURL` → `ios_url`: a capital letter after a lower-case letter or a digit, or
    /// before a lower-case letter after capitals, starts a word.
    public static func columnName(_ property: String) -> String {
        let characters = Array(property)
        var name = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true) { name.append("_") }
            }
            name.append(contentsOf: character.lowercased())
        }
        return name
    }
}

extension SQLRow {
    /// This row as a `Decodable` record (`RowDecoder`).
    public func decode<Record: Decodable>(_ type: Record.Type = Record.self) throws -> Record {
        try RowDecoder.decode(type, from: self)
    }
}

extension SQLExecutor {
    /// The rows `sql` returns, each read as a `Record` (`RowDecoder`).
    public func query<Record: Decodable>(_ sql: SQL, as type: Record.Type) throws -> [Record] {
        let rows = try query(sql)
        guard let first = rows.first else { return [] }
        let plan = ColumnPlan.learned(for: type, columns: first.columns)
        return try rows.map { try RowDecoder.decode(type, from: $0, plan: plan) }
    }

    /// The first row `sql` returns as a `Record`, or nil.
    public func first<Record: Decodable>(_ sql: SQL, as type: Record.Type) throws -> Record? {
        try first(sql).map { try $0.decode(type) }
    }

    /// The `n` of `SELECT COUNT(*) AS n …` (0 when it returns no row).
    public func count(_ sql: SQL) throws -> Int64 {
        try first(sql, as: RowCount.self)?.n ?? 0
    }
}

private struct RowCount: Decodable {
    let n: Int64
}

/// Where each property's column is in the rows of one statement, worked out on the first row it is asked for and
/// looked up after that: the rows of a query share their columns. What a whole record found is kept for its type and
/// column list (`learned`), so the next query with those columns starts from it.
final class ColumnPlan {
    typealias Places = [String: (index: Int, column: String)]
    private var places: Places
    /// Whether `places` came from `learned` or were kept already (nothing to keep after the next record).
    private var remembered: Bool

    private init(places: Places = [:], remembered: Bool = false) {
        self.places = places
        self.remembered = remembered
    }

    /// The places a record type's properties had in rows with these columns, as kept from an earlier read: a record read
    /// on every request (an install for each event) does not look its columns up again. Empty when not kept yet.
    static func learned<Record>(for type: Record.Type, columns: [String]) -> ColumnPlan {
        let key = ObjectIdentifier(type)
        // `==` is quick for the list a cached statement returns each time: the same array.
        let places = kept.withLock { kept in kept[key]?.first { $0.columns == columns }?.places }
        return places.map { ColumnPlan(places: $0, remembered: true) } ?? ColumnPlan()
    }

    /// Keeps what this plan found after it read a whole record of `type` from rows with `columns`.
    func learn<Record>(for type: Record.Type, columns: [String]) {
        guard !remembered else { return }
        remembered = true
        let key = ObjectIdentifier(type)
        let found = places
        Self.kept.withLock { kept in
            var layouts = kept[key] ?? []
            guard !layouts.contains(where: { $0.columns == columns }) else { return }
            // A type read by several queries keeps a few column lists; a query whose columns change (none does) cannot
            // grow it without end.
            if layouts.count >= Self.layoutsPerType { layouts.removeFirst() }
            layouts.append((columns, found))
            kept[key] = layouts
        }
    }

    private static let layoutsPerType = 8
    private static let kept = Mutex<[ObjectIdentifier: [(columns: [String], places: Places)]]>([:])

    /// Where `property`'s column is in rows like `row` (index -1 when the query did not select it).
    private func place(of property: String, in row: SQLRow) -> (index: Int, column: String) {
        if let known = places[property] { return known }
        let column = RowDecoder.column(of: property)
        let place = (index: row.columns.firstIndex(of: column) ?? -1, column: column)
        places[property] = place
        return place
    }

    /// The value and the column name of `property` (NULL for a column the query did not select).
    func value(of property: String, in row: SQLRow) -> (value: SQLValue, column: String) {
        let place = place(of: property, in: row)
        guard place.index >= 0, place.index < row.values.count else { return (.null, place.column) }
        return (row.values[place.index], place.column)
    }

    /// Whether the statement selected `property`'s column.
    func selects(_ property: String, in row: SQLRow) -> Bool { place(of: property, in: row).index >= 0 }
}

/// A property of type `SQLValue` takes its column's value as it is: a grouping key whose SQL type depends on the query.
extension SQLValue: Decodable {
    public init(from decoder: any Decoder) throws {
        guard let column = decoder as? ColumnDecoder else { throw StoreError.corrupt("an SQLValue is read from a row's column only") }
        self = column.value
    }
}

/// The record's decoder: one keyed container over the row's columns.
private struct RowRecordDecoder: Decoder {
    let row: SQLRow
    let plan: ColumnPlan
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RowContainer<Key>(row: row, plan: plan))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw StoreError.corrupt("a row is read as a record, not a list")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw StoreError.corrupt("a row is read as a record, not one value")
    }
}

private struct RowContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let row: SQLRow
    let plan: ColumnPlan
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { row.columns.compactMap { column in Key(stringValue: column) } }

    func contains(_ key: Key) -> Bool { plan.selects(key.stringValue, in: row) }

    func decodeNil(forKey key: Key) throws -> Bool { plan.value(of: key.stringValue, in: row).value == .null }

    /// The column's value, read as one value.
    private func value(_ key: Key) -> ColumnDecoder {
        let (value, column) = plan.value(of: key.stringValue, in: row)
        return ColumnDecoder(value: value, column: column)
    }

    /// The column's value, or nil for NULL (or a column not selected): one lookup, where the default asks three times.
    private func present(_ key: Key) -> ColumnDecoder? {
        let found = value(key)
        return found.value == .null ? nil : found
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try present(key)?.decode(type) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try present(key)?.decode(type) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try present(key)?.decode(type) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try present(key)?.decode(type) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try present(key)?.decode(type) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try present(key)?.decode(type) }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        present(key) == nil ? nil : try decode(type, forKey: key)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try value(key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try value(key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try value(key).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try value(key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try value(key).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try value(key).decode(type) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let (value, name) = plan.value(of: key.stringValue, in: row)
        if type == [UInt8].self, let blob = try SQLRow.blob(value, column: name) as? T { return blob }
        do {
            return try T(from: ColumnDecoder(value: value, column: name))
        } catch is ColumnDecoder.StoredAsJSON {
            guard case .text(let text) = value else { throw StoreError.corrupt("column \(name) is not JSON text") }
            do {
                return try JSONDecoder().decode(T.self, from: Data(text.utf8))
            } catch {
                throw StoreError.corrupt("column \(name) does not hold its JSON: \(error)")
            }
        }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw StoreError.corrupt("column \(value(key).column) is read as a Decodable value, not a nested container")
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw StoreError.corrupt("column \(value(key).column) is read as a Decodable value, not a nested container")
    }

    func superDecoder() throws -> any Decoder { RowRecordDecoder(row: row, plan: plan) }
    func superDecoder(forKey key: Key) throws -> any Decoder { value(key) }
}

/// One column's value, for a type that decodes one value; a type that asks for a list or an object is read from the
/// column's JSON text instead (`StoredAsJSON`).
private struct ColumnDecoder: Decoder, SingleValueDecodingContainer {
    struct StoredAsJSON: Error {}

    let value: SQLValue
    let column: String
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> { throw StoredAsJSON() }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw StoredAsJSON() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try SQLRow.int(value, column: column) != 0 }
    func decode(_ type: String.Type) throws -> String { try SQLRow.string(value, column: column) }
    func decode(_ type: Double.Type) throws -> Double { try SQLRow.double(value, column: column) }
    func decode(_ type: Float.Type) throws -> Float { Float(try SQLRow.double(value, column: column)) }
    func decode(_ type: Int64.Type) throws -> Int64 { try SQLRow.int(value, column: column) }
    func decode(_ type: Int.Type) throws -> Int { try exactly(Int.self) }
    func decode(_ type: Int8.Type) throws -> Int8 { try exactly(Int8.self) }
    func decode(_ type: Int16.Type) throws -> Int16 { try exactly(Int16.self) }
    func decode(_ type: Int32.Type) throws -> Int32 { try exactly(Int32.self) }
    func decode(_ type: UInt.Type) throws -> UInt { try exactly(UInt.self) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try exactly(UInt8.self) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try exactly(UInt16.self) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try exactly(UInt32.self) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try exactly(UInt64.self) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: self) }

    private func exactly<T: BinaryInteger>(_ type: T.Type) throws -> T {
        guard let exact = T(exactly: try SQLRow.int(value, column: column)) else { throw StoreError.corrupt("column \(column) is past \(T.self)") }
        return exact
    }
}
