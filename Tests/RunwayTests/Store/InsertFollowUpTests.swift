import Foundation
import RunwayStore
import RunwayTestKit
import Synchronization
import Testing

/// An `InsertTarget`'s follow-up runs in the transaction of the rows it follows, with exactly the rows that were
/// stored: on every backend, for rows the writer groups into one statement and for a row inserted inside a write.
@Suite("Insert follow-ups")
struct InsertFollowUpTests {
    /// Tags every item it is told of with `seen`, and refuses items whose note is `poison`.
    final class Tagger: InsertFollowUp {
        let calls = Mutex<[Int]>([])

        func inserted(_ rows: [RowInsert], db: any SQLExecutor) throws {
            calls.withLock { $0.append(rows.count) }
            for row in rows.map(\.values) {
                if row[2] == .text("poison") { throw StoreError.constraint("poisoned") }
                guard case .text(let id) = row[0] else { continue }
                try db.execute("INSERT INTO tags (item_id, tag) VALUES (\(id), 'seen')")
            }
        }
    }

    func withStore(_ backend: StoreBackend, _ body: (any Store) async throws -> Void) async throws {
        let location = try await backend.makeLocation()
        let store = try backend.open(location.url, nil)
        _ = try await store.migrate(ConformanceSchema.migrations)
        do {
            try await body(store)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
        _ = location
    }

    @Test("the follow-up commits with exactly the rows stored: a duplicate or a row it refuses fails alone, undone with its follow-up",
          arguments: StoreBackend.all)
    func followsStoredRows(_ backend: StoreBackend) async throws {
        let tagger = Tagger()
        let target = InsertTarget(table: "items", columns: ["id", "n", "note"], followUp: tagger)
        try await withStore(backend) { store in
            try await store.write { db in try db.execute("INSERT INTO items (id, n) VALUES ('taken', -1)") }
            let refused = await withTaskGroup(of: Int?.self) { group in
                for i in 0..<300 {
                    group.addTask {
                        let id = i % 40 == 9 ? "taken" : "row-\(i)"
                        let note = i % 50 == 17 ? "poison" : "note \(i)"
                        do {
                            try await store.insert(RowInsert(into: target, values: [.text(id), .integer(Int64(i)), .text(note)]))
                            return nil
                        } catch {
                            return i
                        }
                    }
                }
                return await group.reduce(into: Set<Int>()) { if let i = $1 { $0.insert(i) } }
            }
            #expect(refused == Set((0..<300).filter { $0 % 40 == 9 || $0 % 50 == 17 }))
            let stored = try await store.read { db in
                try db.query("SELECT id FROM items WHERE id <> 'taken'").map { try $0.string("id") }
            }
            let tagged = try await store.read { db in
                try db.query("SELECT item_id FROM tags WHERE tag = 'seen'").map { try $0.string("item_id") }
            }
            #expect(stored.count == 300 - refused.count)
            #expect(tagged.sorted() == stored.sorted(), "every stored row is tagged once, and no refused one")
            #expect(tagger.calls.withLock { $0.max() ?? 0 } > 1, "the writer sent rows together, and the follow-up heard them together")
        }
    }

    @Test("a row inserted inside a write runs the follow-up there, and a write that throws takes both back", arguments: StoreBackend.all)
    func insideWrite(_ backend: StoreBackend) async throws {
        let target = InsertTarget(table: "items", columns: ["id", "n", "note"], followUp: Tagger())
        try await withStore(backend) { store in
            try await store.write { db in try db.insert(RowInsert(into: target, values: [.text("kept"), .integer(1), .null])) }
            await #expect(throws: StoreError.self) {
                try await store.write { db in
                    try db.insert(RowInsert(into: target, values: [.text("undone"), .integer(2), .null]))
                    throw StoreError.conflict("changed its mind")
                }
            }
            let tags = try await store.read { db in try db.query("SELECT item_id FROM tags ORDER BY item_id").map { try $0.string("item_id") } }
            #expect(tags == ["kept"])
        }
    }
}
