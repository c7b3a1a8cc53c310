import CSQLite
import Foundation
import RunwayStore

/// Whole-database copies with SQLite's online backup API: one consistent snapshot, taken while the server keeps
/// writing (in WAL mode readers never block writers).
public enum SQLiteBackup {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// What a copy holds: the migrations it records and the rows of each table.
    public struct Summary: Sendable, Equatable {
        public var migrations: [String]
        public var rowCounts: [String: Int64]
    }

    /// Copies the database at `source` to a new file at `destination`, checks the copy's integrity and returns what it
    /// holds. `destination` must not exist; the copy appears there only when complete.
    /// Called as pages are copied: how many are done, of how many.
    public typealias Progress = (_ copied: Int, _ total: Int) -> Void

    /// `pagesPerStep` is how many pages each step copies between reports of progress.
    @discardableResult
    public static func backup(from source: String, to destination: String, progress: Progress? = nil,
                              pagesPerStep: Int32 = 4096) throws -> Summary {
        guard FileManager.default.fileExists(atPath: source) else { throw Failure(description: "\(source) does not exist") }
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw Failure(description: "\(destination) already exists; choose a new file")
        }
        return try copy(from: source, to: destination, progress: progress, pagesPerStep: pagesPerStep)
    }

    /// Replaces the database at `target` with the copy at `backup` (checked first). Stop every server using `target`
    /// before; `replace` must be true when `target` exists.
    @discardableResult
    public static func restore(from backup: String, to target: String, replace: Bool,
                               knownMigrations: Set<String>, progress: Progress? = nil) throws -> Summary {
        guard FileManager.default.fileExists(atPath: backup) else { throw Failure(description: "\(backup) does not exist") }
        if FileManager.default.fileExists(atPath: target), !replace {
            throw Failure(description: "\(target) exists; stop the server and pass --replace to overwrite it")
        }
        if let holder = openedElsewhere(target) {
            throw Failure(description: "\(target) is open in another process (\(holder)); stop every server using it, then restore")
        }
        let source = try summary(of: backup)
        if let unknown = source.migrations.first(where: { !knownMigrations.contains($0) }) {
            throw Failure(description: "the backup has migration \(unknown), which this version does not know; restore it with a newer linkrunway")
        }
        let staged = target + ".restoring"
        try? FileManager.default.removeItem(atPath: staged)
        let restored = try copy(from: backup, to: staged, progress: progress, pagesPerStep: 4096)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: target + suffix) }
        guard rename(staged, target) == 0 else {
            throw Failure(description: "cannot move the restored database into place: \(String(cString: strerror(errno)))")
        }
        syncDirectory(of: target)
        return restored
    }

    /// Which process has the database at `path` open, if one does. SQLite connections in WAL mode hold a read lock on
    /// the `-shm` file for as long as they are open, and any connection holds locks on the database file while it
    /// reads or writes; a lock another process holds on either is seen here (POSIX `F_GETLK`). Call it from a process
    /// with no connection of its own to `path`: closing the probe's descriptor drops this process's locks on the file.
    public static func openedElsewhere(_ path: String) -> String? {
        for file in [path + "-shm", path] {
            let fd = Foundation.open(file, O_RDWR)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var probe = flock()
            probe.l_type = Int16(F_WRLCK)
            probe.l_whence = Int16(SEEK_SET)
            probe.l_start = 0
            probe.l_len = 0
            if fcntl(fd, F_GETLK, &probe) == 0, probe.l_type != Int16(F_UNLCK) { return "pid \(probe.l_pid) holds a lock on \(file)" }
        }
        return nil
    }

    /// The migrations and row counts of the database at `path`, after an integrity check.
    public static func summary(of path: String) throws -> Summary {
        let db = try open(path, flags: SQLITE_OPEN_READONLY)
        defer { sqlite3_close_v2(db) }
        let check = try strings(db, "PRAGMA integrity_check")
        guard check == ["ok"] else { throw Failure(description: "\(path) fails SQLite's integrity check: \(check.prefix(3).joined(separator: "; "))") }
        let tables = try strings(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        guard tables.contains("schema_migrations") else { throw Failure(description: "\(path) is not a LinkRunway database") }
        var counts: [String: Int64] = [:]
        for table in tables {
            counts[table] = Int64(try strings(db, "SELECT COUNT(*) FROM \"\(table)\"").first ?? "") ?? 0
        }
        return Summary(migrations: try strings(db, "SELECT id FROM schema_migrations ORDER BY id"), rowCounts: counts)
    }

    private static func copy(from source: String, to destination: String, progress: Progress?, pagesPerStep: Int32) throws -> Summary {
        let from = try open(source, flags: SQLITE_OPEN_READONLY)
        defer { sqlite3_close_v2(from) }
        let partial = destination + ".partial"
        try? FileManager.default.removeItem(atPath: partial)
        do {
            createPrivately(partial)
            let to = try open(partial, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            defer { sqlite3_close_v2(to) }
            guard let backup = sqlite3_backup_init(to, "main", from, "main") else {
                throw Failure(description: "cannot start the backup: \(String(cString: sqlite3_errmsg(to)))")
            }
            // One read transaction held across every step, so one snapshot: in WAL mode the source connection keeps
            // seeing the database as it was when the transaction began, whatever writers do meanwhile (without it,
            // SQLite restarts the copy after each commit of another connection, and a busy server could keep a large
            // copy from ever finishing). Busy or locked
            // only while a writer holds the source in a rollback journal mode; retried for up to a minute.
            _ = try strings(from, "BEGIN")
            _ = try strings(from, "SELECT count(*) FROM sqlite_schema")
            defer { _ = try? strings(from, "COMMIT") }
            var status = SQLITE_OK
            var retries = 0
            repeat {
                status = sqlite3_backup_step(backup, pagesPerStep)
                if status == SQLITE_BUSY || status == SQLITE_LOCKED {
                    retries += 1
                    usleep(100_000)
                    continue
                }
                let total = Int(sqlite3_backup_pagecount(backup))
                progress?(total - Int(sqlite3_backup_remaining(backup)), total)
            } while (status == SQLITE_OK || status == SQLITE_BUSY || status == SQLITE_LOCKED) && retries < 600
            let finish = sqlite3_backup_finish(backup)
            guard status == SQLITE_DONE, finish == SQLITE_OK else {
                throw Failure(description: "the backup failed: \(String(cString: sqlite3_errstr(status == SQLITE_DONE ? finish : status)))")
            }
            // A single file that needs nothing beside it.
            _ = try strings(to, "PRAGMA journal_mode=DELETE")
        }
        do {
            let summary = try summary(of: partial)
            try fsyncFile(partial)
            guard rename(partial, destination) == 0 else {
                throw Failure(description: "cannot move the copy into place: \(String(cString: strerror(errno)))")
            }
            syncDirectory(of: destination)
            return summary
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
    }

    private static func open(_ path: String, flags: Int32) throws -> OpaquePointer {
        var handle: OpaquePointer?
        _ = SQLiteLibrary.configured
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw Failure(description: "cannot open \(path): \(message)")
        }
        sqlite3_busy_timeout(handle, 10_000)
        return handle
    }

    /// The first column of every row of `sql`, as text.
    private static func strings(_ db: OpaquePointer, _ sql: String) throws -> [String] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw Failure(description: "\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
        defer { sqlite3_finalize(statement) }
        var values: [String] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return values }
            guard status == SQLITE_ROW else { throw Failure(description: "\(sql): \(String(cString: sqlite3_errmsg(db)))") }
            values.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
        }
    }

    private static func fsyncFile(_ path: String) throws {
        let descriptor = Foundation.open(path, O_RDONLY)
        guard descriptor >= 0 else { throw Failure(description: "cannot open \(path) to sync it") }
        defer { Foundation.close(descriptor) }
        guard fsync(descriptor) == 0 else { throw Failure(description: "cannot sync \(path): \(String(cString: strerror(errno)))") }
    }

    /// A rename is durable only once its directory is synced.
    private static func syncDirectory(of path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let descriptor = Foundation.open(directory.isEmpty ? "." : directory, O_RDONLY)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        Foundation.close(descriptor)
    }
}
