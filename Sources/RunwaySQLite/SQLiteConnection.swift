import CSQLite
import Foundation
import RunwayStore

/// Creates `path` readable and writable by its owner only (0600) unless it exists or is in memory. SQLite gives the
/// database's `-wal`, `-shm` and `-journal` files the database's own mode, so they stay private too.
func createPrivately(_ path: String) {
    guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else { return }
    let fd = Foundation.open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
    if fd >= 0 { close(fd) }
}

/// One SQLite connection with its prepared-statement cache. Not thread-safe: each connection is handed to one thread
/// when the store starts and used only there (hence the unchecked Sendable).
final class SQLiteConnection: EngineConnection, @unchecked Sendable {
    let dialect = SQLDialect.sqlite
    private var db: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    /// Short scripts (transaction control) and their statements, which `statements` holds.
    private var scripts: [String: [OpaquePointer]] = [:]
    /// The column names of the cached statements that returned rows: made once a statement, so the rows of every run
    /// share one list (and `RowDecoder` knows the list again).
    private var columnNames: [OpaquePointer: [String]] = [:]
    private static let statementCacheLimit = 256

    init(path: String, busyTimeoutMilliseconds: Int32) throws {
        var handle: OpaquePointer?
        createPrivately(path)
        _ = SQLiteLibrary.configured
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw StoreError.unavailable("cannot open SQLite database: \(message)")
        }
        db = handle
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
    }

    deinit { close() }

    /// The database file's absolute path, as SQLite resolved it.
    var filename: String {
        guard let db, let name = sqlite3_db_filename(db, "main") else { return "" }
        return String(cString: name)
    }

    /// Finalizes every cached statement, then closes the connection.
    func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements.removeAll()
        scripts.removeAll()
        columnNames.removeAll()
        if let db { sqlite3_close_v2(db) }
        db = nil
    }

    /// A SQLite connection stays open until closed.
    func ensureOpen() throws {
        if db == nil { throw StoreError.unavailable("connection closed") }
    }

    /// Runs one or more statements without parameters (pragmas, migrations, transaction control). Short scripts, the
    /// transaction control the engine sends for every write, run as cached prepared statements.
    func executeScript(_ script: String) throws {
        guard let db else { throw StoreError.unavailable("connection closed") }
        if script.utf8.count <= 64, !script.hasPrefix("PRAGMA") {
            for statement in try scriptStatements(script) {
                defer { sqlite3_reset(statement) }
                let status = sqlite3_step(statement)
                if status != SQLITE_DONE && status != SQLITE_ROW { throw Self.error(status, String(cString: sqlite3_errmsg(db))) }
            }
            return
        }
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(db, script, nil, nil, &message)
        if status != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_free(message)
            throw Self.error(status, text)
        }
    }

    @discardableResult
    func execute(_ sql: SQL) throws -> Int {
        try run(sql) { _ in }
        return Int(sqlite3_changes(db))
    }

    func query(_ sql: SQL) throws -> [SQLRow] {
        var rows: [SQLRow] = []
        var columns: [String]?  // the same for every row of a run
        try run(sql) { statement in
            let count = sqlite3_column_count(statement)
            let names = columns ?? self.columnNames(of: statement, count: count)
            columns = names
            rows.append(SQLRow(columns: names, values: (0..<count).map { Self.column(statement, $0) }))
        }
        return rows
    }

    /// `statement`'s column names, kept while it stays prepared. A statement SQLite prepared again after a schema change
    /// may return another number of columns (`SELECT *`); then they are read again.
    private func columnNames(of statement: OpaquePointer, count: Int32) -> [String] {
        if let known = columnNames[statement], known.count == Int(count) { return known }
        let names = (0..<count).map { String(cString: sqlite3_column_name(statement, $0)) }
        columnNames[statement] = names
        return names
    }

    private func run(_ sql: SQL, onRow: (OpaquePointer) throws -> Void) throws {
        let statement = try prepare(sql.text(for: .sqlite), key: sql.cacheKey)
        // Text and blobs are copied once into one buffer that outlives the statement's run and bound from there without
        // SQLite copying each again (SQLITE_STATIC): one allocation a statement instead of one a value.
        let arena = BindingArena(sql.bindings)
        try arena.bytes.withUnsafeBufferPointer { bytes in
            defer {
                sqlite3_reset(statement)
                sqlite3_clear_bindings(statement)
            }
            for (i, value) in sql.bindings.enumerated() {
                let status = Self.bind(value, to: statement, at: Int32(i + 1), arena: bytes, slot: arena.slots[i])
                guard status == SQLITE_OK else { throw Self.error(status, String(cString: sqlite3_errmsg(db))) }
            }
            while true {
                let status = sqlite3_step(statement)
                if status == SQLITE_ROW { try onRow(statement); continue }
                if status == SQLITE_DONE { return }
                throw Self.error(status, String(cString: sqlite3_errmsg(db)))
            }
        }
    }

    private func flushStatements() {
        for old in statements.values { sqlite3_finalize(old) }
        statements.removeAll()
        scripts.removeAll()
        columnNames.removeAll()
    }

    /// The prepared statements of a short script, split at its semicolons the first time.
    private func scriptStatements(_ script: String) throws -> [OpaquePointer] {
        if let known = scripts[script] { return known }
        let texts = script.split(separator: ";").filter { !$0.allSatisfy(\.isWhitespace) }.map(String.init)
        // Room for all of them first, so that preparing one cannot finalize another of the script.
        if statements.count + texts.count > Self.statementCacheLimit { flushStatements() }
        let prepared = try texts.map { try prepare($0) }
        scripts[script] = prepared
        return prepared
    }

    private func prepare(_ text: String, key: String? = nil) throws -> OpaquePointer {
        let key = key ?? text
        if let cached = statements[key] { return cached }
        guard let db else { throw StoreError.unavailable("connection closed") }
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(db, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else {
            throw Self.error(status, String(cString: sqlite3_errmsg(db)))
        }
        if statements.count >= Self.statementCacheLimit { flushStatements() }
        statements[key] = statement
        return statement
    }

    private static func bind(_ value: SQLValue, to statement: OpaquePointer, at index: Int32, arena: UnsafeBufferPointer<UInt8>,
                             slot: Range<Int>) -> Int32 {
        switch value {
        case .null: return sqlite3_bind_null(statement, index)
        case .integer(let i): return sqlite3_bind_int64(statement, index, i)
        case .real(let d): return sqlite3_bind_double(statement, index, d)
        case .text:
            // An explicit byte length keeps text after an embedded NUL; an empty string still binds as text.
            // trap-safe: a non-zero bit pattern always makes a pointer
            let start = UnsafeRawPointer(arena.baseAddress.map { $0 + slot.lowerBound } ?? UnsafePointer(bitPattern: 1)!)
            return sqlite3_bind_text(statement, index, start.assumingMemoryBound(to: CChar.self), Int32(slot.count), lr_sqlite_static())
        case .blob(let b):
            if b.isEmpty { return sqlite3_bind_zeroblob(statement, index, 0) }
            // trap-safe: a non-empty blob is in the arena, so it has a base address
            return sqlite3_bind_blob(statement, index, arena.baseAddress! + slot.lowerBound, Int32(slot.count), lr_sqlite_static())
        }
    }

    private static func column(_ statement: OpaquePointer, _ i: Int32) -> SQLValue {
        switch sqlite3_column_type(statement, i) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, i))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, i))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, i))
            guard count > 0, let text = sqlite3_column_text(statement, i) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, i))
            guard count > 0, let pointer = sqlite3_column_blob(statement, i) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: pointer, count: count)))
        default: return .null
        }
    }

    /// SQLITE_CONSTRAINT_UNIQUE and _PRIMARYKEY are macro expressions Swift does not import.
    private static let constraintUnique = SQLITE_CONSTRAINT | (8 << 8)
    private static let constraintPrimaryKey = SQLITE_CONSTRAINT | (6 << 8)

    /// Maps an extended result code to the store's error kinds.
    static func error(_ code: Int32, _ message: String) -> StoreError {
        switch code & 0xff {
        case SQLITE_CONSTRAINT:
            if code == constraintUnique || code == constraintPrimaryKey { return .conflict(message) }
            return .constraint(message)
        case SQLITE_BUSY, SQLITE_LOCKED: return .unavailable("database is busy: \(message)")
        case SQLITE_FULL: return .unavailable("disk full: \(message)")
        case SQLITE_READONLY: return .unavailable("read-only: \(message)")
        case SQLITE_CANTOPEN, SQLITE_IOERR: return .unavailable("\(message) (SQLite code \(code))")
        case SQLITE_CORRUPT, SQLITE_NOTADB: return .corrupt(message)
        // SUM() and abs() of 64-bit integers report an overflow as an error of this text (SQLITE_ERROR).
        case SQLITE_ERROR where message == "integer overflow": return .outOfRange(message)
        default: return .failed(message)
        }
    }
}

/// The bytes of a statement's text and blob parameters, one after another, and where each one's are.
struct BindingArena {
    var bytes: [UInt8] = []
    var slots: [Range<Int>] = []

    init(_ values: [SQLValue]) {
        var total = 0
        for value in values {
            switch value {
            case .text(let s): total += s.utf8.count
            case .blob(let b): total += b.count
            default: break
            }
        }
        bytes.reserveCapacity(total)
        slots.reserveCapacity(values.count)
        for value in values {
            let start = bytes.count
            switch value {
            case .text(var s): s.withUTF8 { bytes.append(contentsOf: $0) }
            case .blob(let b): bytes.append(contentsOf: b)
            default: break
            }
            slots.append(start..<bytes.count)
        }
    }
}
