import CPostgres
import Foundation
import RunwayStore

/// One libpq connection with its prepared statements, used by one thread only. It connects lazily and reconnects
/// after the server drops it, so a database that is down at start or restarts later costs errors, not a restart.
final class PostgresConnection: EngineConnection, @unchecked Sendable {
    let dialect = SQLDialect.postgres
    /// Set once by the store before its threads start (`SQLExecutor.lane`).
    var lane = 0
    private let conninfo: String
    private var connection: OpaquePointer?
    private var prepared: [String: String] = [:]
    private var nextStatement = 0

    init(url: String) {
        conninfo = Self.withConnectTimeout(url)
    }

    deinit { close() }

    /// libpq waits forever for an unreachable host unless told otherwise.
    static func withConnectTimeout(_ url: String) -> String {
        guard !url.contains("connect_timeout=") else { return url }
        return url + (url.contains("?") ? "&" : "?") + "connect_timeout=5"
    }

    func ensureOpen() throws {
        if let connection, PQstatus(connection) == CONNECTION_OK { return }
        close()
        guard let fresh = PQconnectdb(conninfo) else { throw StoreError.unavailable("out of memory connecting to PostgreSQL") }
        guard PQstatus(fresh) == CONNECTION_OK else {
            let message = Self.trimmed(PQerrorMessage(fresh))
            PQfinish(fresh)
            throw StoreError.unavailable("cannot connect to PostgreSQL: \(message)")
        }
        // Notices (e.g. "relation already exists, skipping") would go to stderr by default.
        PQsetNoticeProcessor(fresh, { _, _ in }, nil)
        connection = fresh
    }

    func close() {
        if let connection { PQfinish(connection) }
        connection = nil
        prepared.removeAll()
    }

    func executeScript(_ script: String) throws {
        let result = try check(PQexec(try open(), script))
        PQclear(result)
    }

    @discardableResult
    func execute(_ sql: SQL) throws -> Int {
        let result = try run(sql)
        defer { PQclear(result) }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    func query(_ sql: SQL) throws -> [SQLRow] {
        let result = try run(sql)
        defer { PQclear(result) }
        let rowCount = PQntuples(result), columnCount = PQnfields(result)
        let columns = (0..<columnCount).map { String(cString: PQfname(result, $0)) }
        let types = (0..<columnCount).map { PQftype(result, $0) }
        var rows: [SQLRow] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var values: [SQLValue] = []
            values.reserveCapacity(Int(columnCount))
            for column in 0..<columnCount {
                if PQgetisnull(result, row, column) == 1 {
                    values.append(.null)
                } else {
                    let length = Int(PQgetlength(result, row, column))
                    let bytes = UnsafeRawBufferPointer(start: PQgetvalue(result, row, column), count: length)
                    values.append(Self.value(String(decoding: bytes, as: UTF8.self), type: types[Int(column)]))
                }
            }
            rows.append(SQLRow(columns: columns, values: values))
        }
        return rows
    }

    // MARK: Statements

    private func open() throws -> OpaquePointer {
        guard let connection else { throw StoreError.unavailable("not connected to PostgreSQL") }
        return connection
    }

    /// Prepares the statement once per connection, then runs it with every parameter bound (text, or binary for blobs).
    private func run(_ sql: SQL) throws -> OpaquePointer {
        let connection = try open()
        let text = sql.text(for: .postgres)
        let key = sql.cacheKey ?? text
        let name: String
        if let existing = prepared[key] {
            name = existing
        } else {
            nextStatement += 1
            name = "lr\(nextStatement)"
            let result = try check(PQprepare(connection, name, text, Int32(sql.bindings.count), nil))
            PQclear(result)
            prepared[key] = name
        }
        var storage: [[UInt8]?] = []
        var formats: [Int32] = []
        for value in sql.bindings {
            switch value {
            case .null: storage.append(nil); formats.append(0)
            case .integer(let i): storage.append(Array(String(i).utf8)); formats.append(0)
            case .real(let d): storage.append(Array(Self.text(of: d).utf8)); formats.append(0)
            case .text(let s):
                guard !s.utf8.contains(0) else { throw StoreError.constraint("text values cannot contain NUL characters") }
                storage.append(Array(s.utf8)); formats.append(0)
            case .blob(let b): storage.append(b); formats.append(1)
            }
        }
        // Text parameters must be NUL-terminated; binary ones carry their length.
        let buffers: [UnsafeMutablePointer<CChar>?] = storage.map { (bytes: [UInt8]?) -> UnsafeMutablePointer<CChar>? in
            guard let bytes else { return nil }
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (i, byte) in bytes.enumerated() { pointer[i] = CChar(bitPattern: byte) }
            pointer[bytes.count] = 0
            return pointer
        }
        defer { buffers.forEach { $0?.deallocate() } }
        let lengths = storage.map { Int32($0?.count ?? 0) }
        let values = buffers.map { UnsafePointer($0) }
        return try check(PQexecPrepared(connection, name, Int32(values.count), values, lengths, formats, 0))
    }

    /// Returns the result when it succeeded; otherwise frees it and throws the mapped error.
    private func check(_ result: OpaquePointer?) throws -> OpaquePointer {
        guard let result else {
            throw StoreError.unavailable("PostgreSQL: \(connection.map { Self.trimmed(PQerrorMessage($0)) } ?? "no connection")")
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return result
        default:
            let state = lr_pq_sqlstate(result).map { String(cString: $0) } ?? ""
            let message = Self.trimmed(PQresultErrorMessage(result))
            PQclear(result)
            if let connection, PQstatus(connection) != CONNECTION_OK { throw StoreError.unavailable("PostgreSQL connection lost: \(message)") }
            throw Self.error(sqlstate: state, message: message)
        }
    }

    /// Maps a SQLSTATE to the store's error kinds.
    static func error(sqlstate: String, message: String) -> StoreError {
        switch sqlstate {
        case "23505": return .conflict(message)
        case "23503", "23502", "23514", "23P01": return .constraint(message)
        case "40001", "40P01": return .transactionConflict(message)
        case "55P03", "57014": return .unavailable("retry: \(message)")
        case "XX001", "XX002": return .corrupt(message)
        case "22003": return .outOfRange(message)
        default:
            if sqlstate.hasPrefix("08") || sqlstate.hasPrefix("53") || sqlstate.hasPrefix("57P") { return .unavailable(message) }
            return .failed(sqlstate.isEmpty ? message : "\(sqlstate): \(message)")
        }
    }

    // MARK: Values

    /// Text-format results, read by their column type.
    static func value(_ text: String, type: Oid) -> SQLValue {
        switch type {
        case 16: return .integer(text == "t" ? 1 : 0)                      // bool
        case 20, 21, 23, 26: return Int64(text).map(SQLValue.integer) ?? .text(text)  // int8, int2, int4, oid
        case 700, 701: return Double(text).map(SQLValue.real) ?? .text(text)          // float4, float8
        case 1700: return Int64(text).map(SQLValue.integer) ?? Double(text).map(SQLValue.real) ?? .text(text)  // numeric
        case 17: return .blob(hexBytes(text) ?? [])                         // bytea, "\x…"
        default: return .text(text)
        }
    }

    static func hexBytes(_ text: String) -> [UInt8]? {
        guard text.hasPrefix("\\x") else { return nil }
        let digits = Array(text.utf8.dropFirst(2))
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var i = 0
        while i < digits.count {
            // trap-safe: digits.count is even, checked above
            guard let byte = UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16) else { return nil }
            out.append(byte)
            i += 2
        }
        return out
    }

    static func text(of double: Double) -> String {
        if double.isNaN { return "NaN" }
        if double.isInfinite { return double > 0 ? "Infinity" : "-Infinity" }
        return "\(double)"
    }

    static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        message.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
    }
}

/// Statements run on a connection of their own, outside any transaction (`CREATE DATABASE` cannot run inside one):
/// for the tests, which make a database per test and drop it after.
package enum PostgresAdministration {
    package static func execute(_ statement: String, on url: String) throws {
        let connection = PostgresConnection(url: url)
        try connection.ensureOpen()
        defer { connection.close() }
        try connection.executeScript(statement)
    }
}
