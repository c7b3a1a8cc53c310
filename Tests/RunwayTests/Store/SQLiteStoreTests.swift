import Foundation
import RunwayStore
import RunwaySQLite
import RunwayTestKit
import Synchronization
import Testing

/// What only SQLite needs checking: WAL mode and a lock held by another process.
@Suite("SQLite backend")
struct SQLiteStoreTests {
    @Test("the database is in WAL mode, and the writer keeps 16 MiB of pages")
    func walMode() async throws {
        let directory = TemporaryDirectory()
        let store = try SQLiteStore(path: directory.path("wal.db"))
        let mode = try await store.read { try $0.first("PRAGMA journal_mode")!.string("journal_mode") }
        #expect(mode == "wal")
        let writerCache = try await store.write { try $0.first("PRAGMA cache_size")!.int("cache_size") }
        #expect(writerCache == -16_384, "the writer's 16 MiB (a larger cache makes commits scan more; SQLiteStore)")
        await store.close()
    }

    @Test("a job's savepoint keeps the pages it changes in memory, not in a temporary file")
    func statementJournalInMemory() async throws {
        let directory = TemporaryDirectory()
        let store = try SQLiteStore(path: directory.path("journal.db"))
        try await store.write { db in
            try db.execute("CREATE TABLE wide (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            for id in 0..<400 { try db.execute("INSERT INTO wide (id, body) VALUES (\(id), \(String(repeating: "a", count: 1000)))") }
        }
        // Every job runs in a savepoint, which copies each page it changes: about 100 pages (400 KiB), past SQLite's
        // default 64 KiB after which the copies go to a temporary file (an unlinked /var/tmp/etilqs_* held open).
        let spilled = try await store.write { db -> [String] in
            let updated = try db.execute("UPDATE wide SET body = \(String(repeating: "b", count: 1000))")
            #expect(updated == 400)
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }.filter { $0.contains("etilqs") }
        }
        #expect(spilled.isEmpty, "\(spilled)")
        await store.close()
    }

    @Test("at full sync every write is answered after a sync of the WAL, and syncs are shared; at normal there are none")
    func walSyncedBeforeAnswers() async throws {
        let directory = TemporaryDirectory()
        for full in [true, false] {
            let recorder = CommitRecorder()
            // The whole suite's syncs share the disk: a queue timeout far past what 200 writes take, so only the order counts.
            let store = try SQLiteStore(path: directory.path("sync-\(full).db"), options: .init(synchronousFull: full, queueTimeout: 300),
                                        observer: recorder)
            _ = try await store.migrate(ConformanceSchema.migrations)
            let unsyncedAnswers = AtomicCount()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<200 {
                    group.addTask {
                        try await store.write { db in try db.execute("INSERT INTO items (id, n) VALUES (\("w\(i)"), \(i))") }
                        if recorder.syncs.isEmpty { unsyncedAnswers.add() }
                    }
                }
                try await group.waitForAll()
            }
            if full {
                #expect(unsyncedAnswers.value == 0, "no write was answered before the first sync")
                #expect(recorder.syncs.reduce(0, +) == 200, "every write went through a sync")
                #expect(recorder.syncs.count < 200, "syncs are shared: \(recorder.syncs.count) for 200 writes")
            } else {
                #expect(recorder.syncs.isEmpty)
            }
            await store.close()
        }
    }

    @Test("a write lock held by another process makes writes unavailable, then they succeed again")
    func busyFromAnotherProcess() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path("busy.db")
        let store = try SQLiteStore(path: path, options: .init(readers: 1, busyTimeoutMilliseconds: 200))
        _ = try await store.migrate(ConformanceSchema.migrations)

        // Another process takes the write lock and keeps it until told to let go.
        let output = try Subprocess.pipe(), release = try Subprocess.pipe()
        let holder = try Subprocess("/usr/bin/env", ["python3", "-c", """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute('BEGIN IMMEDIATE')
            print('locked', flush=True)
            sys.stdin.readline()
            c.execute('ROLLBACK')
            """, path], stdin: release[0], stdout: output[1])
        close(release[0])
        close(output[1])
        defer { close(output[0]) }
        let reading = output[0]
        _ = try await offloaded { () -> Int in
            var line = [UInt8](repeating: 0, count: 64)
            return read(reading, &line, line.count)
        }

        await #expect(throws: StoreError.self) {
            try await store.write { db in try db.execute("INSERT INTO items (id) VALUES ('blocked')") }
        }
        // Reads are not blocked by a writer in WAL mode.
        _ = try await store.read { try $0.query("SELECT COUNT(*) AS c FROM items") }
        _ = write(release[1], "go\n", 3)
        close(release[1])
        _ = try await offloaded { holder.wait() }
        try await store.write { db in try db.execute("INSERT INTO items (id) VALUES ('later')") }
        let ids = try await store.read { try $0.query("SELECT id FROM items").map { try $0.string("id") } }
        #expect(ids == ["later"])
        await store.close()
    }

    @Test("an unopenable path is reported as unavailable")
    func unopenable() {
        #expect(throws: StoreError.self) { _ = try SQLiteStore(path: "/nonexistent-dir/x/y.db") }
    }
}
