import Foundation
import RunwayStore
import RunwayTestKit
import Testing

/// What every backend must do the same way. Runs unchanged against each backend in `StoreBackend.all`.
@Suite("Store conformance")
struct StoreConformanceTests {
    struct Marker: Error, Equatable {}

    func withStore(_ backend: StoreBackend, observer: (any StoreObserver)? = nil,
                   _ body: (any Store, String) async throws -> Void) async throws {
        let location = try await backend.makeLocation()
        let store = try backend.open(location.url, observer)
        _ = try await store.migrate(ConformanceSchema.migrations)
        do {
            try await body(store, location.url)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
        _ = location
    }

    @Test("values of every type round-trip exactly", arguments: StoreBackend.all)
    func roundTrip(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            let text = "naïve 😀 ' \" ; -- \u{1}x"
            try await store.write { db in
                try db.execute("INSERT INTO items (id, n, note, data, ratio) VALUES ('max', \(Int64.max), \(text), \([UInt8]([0, 1, 255])), \(0.1))")
                try db.execute("INSERT INTO items (id, n, note, data, ratio) VALUES ('min', \(Int64.min), \(String?.none), \([UInt8]()), \(-1e300))")
            }
            let rows = try await store.read { try $0.query("SELECT id, n, note, data, ratio FROM items ORDER BY id") }
            #expect(rows.count == 2)
            #expect(try rows[0].int("n") == Int64.max)
            #expect(try rows[0].string("note") == text)
            #expect(try rows[0].blob("data") == [0, 1, 255])
            #expect(try rows[0].double("ratio") == 0.1)
            #expect(try rows[1].int("n") == Int64.min)
            #expect(try rows[1].optionalString("note") == nil)
            #expect(try rows[1].double("ratio") == -1e300)
        }
    }

    @Test("interpolated values are bound, never spliced into the statement", arguments: StoreBackend.all)
    func bindingIsSafe(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            let hostile = "x'); DROP TABLE items; --"
            try await store.write { db in try db.execute("INSERT INTO items (id, note) VALUES (\(hostile), \(hostile))") }
            let found = try await store.read { try $0.first("SELECT note FROM items WHERE id = \(hostile)") }
            #expect(try found?.string("note") == hostile)
        }
    }

    @Test("a duplicate key is a conflict and leaves the other writes of its batch alone", arguments: StoreBackend.all)
    func conflictIsolated(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            try await store.write { db in try db.execute("INSERT INTO items (id) VALUES ('taken')") }
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for i in 0..<60 {
                    group.addTask {
                        do {
                            try await store.write { db in
                                try db.execute("INSERT INTO items (id, n) VALUES (\(i % 6 == 0 ? "taken" : "item-\(i)"), \(i))")
                            }
                            return true
                        } catch let error as StoreError {
                            guard case .conflict = error else { Issue.record("expected conflict, got \(error)"); return true }
                            return false
                        } catch {
                            Issue.record("unexpected \(error)")
                            return true
                        }
                    }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { !$0 }.count == 10)
            let count = try await store.read { try $0.first("SELECT COUNT(*) AS c FROM items")!.int("c") }
            #expect(count == 51)
        }
    }

    static let itemRows = InsertTarget(table: "items", columns: ["id", "n", "note"])

    @Test("rows of one table inserted at once each arrive, whatever the statements they were grouped in; a duplicate fails alone",
          arguments: StoreBackend.all)
    func rowInserts(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            try await store.insert(RowInsert(into: Self.itemRows, values: [.text("taken"), .integer(-1), .null]))
            let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
                for i in 0..<300 {
                    group.addTask {
                        let id = i % 25 == 7 ? "taken" : "row-\(i)"
                        do {
                            if i % 10 == 3 {
                                // An ordinary write in the same group commit, between rows.
                                try await store.write { db in try db.execute("INSERT INTO items (id, n) VALUES (\(id), \(i))") }
                            } else {
                                try await store.insert(RowInsert(into: Self.itemRows, values: [.text(id), .integer(Int64(i)), .text("note \(i)")]))
                            }
                            return (i, true)
                        } catch let error as StoreError {
                            if case .conflict = error { return (i, false) }
                            Issue.record("expected a conflict, got \(error)")
                            return (i, true)
                        } catch {
                            Issue.record("unexpected \(error)")
                            return (i, true)
                        }
                    }
                }
                return await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
            }
            #expect(outcomes.filter { !$0.value }.keys.sorted() == (0..<300).filter { $0 % 25 == 7 })
            let rows = try await store.read { try $0.query("SELECT id, n, note FROM items WHERE id <> 'taken' ORDER BY n") }
            #expect(rows.count == 300 - 12)
            for row in rows {
                let n = try row.int("n")
                #expect(try row.string("id") == "row-\(n)")
                #expect(try row.optionalString("note") == (n % 10 == 3 ? nil : "note \(n)"))
            }
        }
    }

    @Test("a write that throws rolls back only itself, and its caller gets that error", arguments: StoreBackend.all)
    func failingWriteRollsBack(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            await #expect(throws: Marker()) {
                try await store.write { db in
                    try db.execute("INSERT INTO items (id) VALUES ('half-done')")
                    throw Marker()
                }
            }
            try await store.write { db in try db.execute("INSERT INTO items (id) VALUES ('kept')") }
            let ids = try await store.read { try $0.query("SELECT id FROM items").map { try $0.string("id") } }
            #expect(ids == ["kept"])
        }
    }

    @Test("concurrent writes are group-committed, each acknowledged once it is durable", arguments: StoreBackend.all)
    func groupCommit(_ backend: StoreBackend) async throws {
        let recorder = CommitRecorder()
        try await withStore(backend, observer: recorder) { store, location in
            let writes = 400
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<writes {
                    group.addTask { _ = try await store.write { db in try db.execute("INSERT INTO items (id, n) VALUES (\("w\(i)"), \(i))") } }
                }
                try await group.waitForAll()
            }
            let sizes = recorder.sizes
            #expect(sizes.reduce(0, +) >= writes)
            #expect(sizes.max() ?? 0 > 1, "expected some batches of more than one write, got \(sizes.count) commits")
            // Every acknowledged write is visible to a fresh connection of a new store on the same storage.
            await store.close()
            let reopened = try backend.open(location, nil)
            let count = try await reopened.read { try $0.first("SELECT COUNT(*) AS c, SUM(n) AS s FROM items")! }
            #expect(try count.int("c") == Int64(writes))
            #expect(try count.int("s") == Int64(writes * (writes - 1) / 2))
            await reopened.close()
        }
    }

    @Test("a foreign key violation is a constraint error", arguments: StoreBackend.all)
    func foreignKeys(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            await #expect(throws: StoreError.self) {
                try await store.write { db in try db.execute("INSERT INTO tags (item_id, tag) VALUES ('missing', 'x')") }
            }
        }
    }

    @Test("migrations apply once, in order, and are recorded", arguments: StoreBackend.all)
    func migrations(_ backend: StoreBackend) async throws {
        let location = try await backend.makeLocation()
        let store = try backend.open(location.url, nil)
        #expect(try await store.migrate(Array(ConformanceSchema.migrations.prefix(1))) == ["0001_items"])
        #expect(try await store.migrate(ConformanceSchema.migrations) == ["0002_tags"])
        #expect(try await store.migrate(ConformanceSchema.migrations) == [])
        let recorded = try await store.read { try $0.query("SELECT id FROM schema_migrations ORDER BY id").map { try $0.string("id") } }
        #expect(recorded == ["0001_items", "0002_tags"])
        // A binary that knows fewer migrations than the database refuses it.
        await #expect(throws: StoreError.self) { try await store.migrate(Array(ConformanceSchema.migrations.prefix(1))) }
        await store.close()
        _ = location
    }

    @Test("a failing migration is rolled back and not recorded", arguments: StoreBackend.all)
    func failingMigration(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            let broken = ConformanceSchema.migrations + [
                Migration(id: "0003_broken", sql: "CREATE TABLE half (id TEXT); CREATE TABLE items (id TEXT);"),
            ]
            await #expect(throws: StoreError.self) { try await store.migrate(broken) }
            let recorded = try await store.read { try $0.query("SELECT id FROM schema_migrations").map { try $0.string("id") } }
            #expect(!recorded.contains("0003_broken"))
            await #expect(throws: StoreError.self) { try await store.read { try $0.query("SELECT id FROM half") } }
        }
    }

    @Test("after close, calls fail with unavailable; writes queued before it are kept", arguments: StoreBackend.all)
    func close(_ backend: StoreBackend) async throws {
        let location = try await backend.makeLocation()
        let store = try backend.open(location.url, nil)
        _ = try await store.migrate(ConformanceSchema.migrations)
        try await store.write { db in try db.execute("INSERT INTO items (id) VALUES ('before')") }
        await store.close()
        await #expect(throws: StoreError.unavailable("the store is closed")) {
            try await store.write { db in try db.execute("INSERT INTO items (id) VALUES ('after')") }
        }
        await #expect(throws: StoreError.self) { try await store.ping() }
        let reopened = try backend.open(location.url, nil)
        let ids = try await reopened.read { try $0.query("SELECT id FROM items").map { try $0.string("id") } }
        #expect(ids == ["before"])
        await reopened.close()
        _ = location
    }
}
