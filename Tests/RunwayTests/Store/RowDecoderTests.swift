import Foundation
import RunwayStore
import RunwayTestKit
import Testing

@Suite("Rows read as records")
struct RowDecoderTests {
    enum Colour: String, Codable { case red, blue }

    struct Rule: Codable, Equatable {
        let when: String
        let weight: Int
    }

    struct Record: Decodable, Equatable {
        let id: String
        let workspaceId: String
        let iosURL: String?
        let clickLimit: Int64?
        let attempts: Int
        let score: Int32
        let enabled: Bool
        let ratio: Double
        let colour: Colour
        let rules: [Rule]
        let data: [UInt8]
        let notSelected: String?
    }

    static func row(_ changes: [String: SQLValue] = [:]) -> SQLRow {
        var values: [String: SQLValue] = [
            "id": .text("rec_1"), "workspace_id": .text("ws_1"), "ios_url": .null, "click_limit": .integer(5), "attempts": .integer(3),
            "score": .integer(12), "enabled": .integer(1), "ratio": .real(0.25), "colour": .text("blue"), "rules": .text(#"[{"when":"ios","weight":2}]"#),
            "data": .blob([1, 2, 3]),
        ]
        values.merge(changes) { _, new in new }
        let columns = values.keys.sorted()
        return SQLRow(columns: columns, values: columns.map { values[$0] ?? .null })
    }

    @Test("property names become snake-case columns")
    func columnNames() {
        let names = ["id", "workspaceId", "iosURL", "previewImageURL", "inAppBrowserPage", "utmSource", "appStoreId", "URLString", "p99Millis"]
        #expect(names.map(RowDecoder.columnName) == ["id", "workspace_id", "ios_url", "preview_image_url", "in_app_browser_page", "utm_source",
                                                    "app_store_id", "url_string", "p99_millis"])
    }

    @Test("each kind of column is read as its property's type: NULL or unselected as nil, raw values, JSON lists, blobs")
    func decodesEveryKind() throws {
        let record = try Self.row().decode(Record.self)
        #expect(record == Record(id: "rec_1", workspaceId: "ws_1", iosURL: nil, clickLimit: 5, attempts: 3, score: 12, enabled: true, ratio: 0.25,
                                 colour: .blue, rules: [Rule(when: "ios", weight: 2)], data: [1, 2, 3], notSelected: nil))
    }

    @Test("a value of the wrong type, out of range, or not the JSON its type needs is corrupt, never a crash",
          arguments: [("attempts", SQLValue.text("3")), ("score", .integer(Int64(Int32.max) + 1)), ("enabled", .text("yes")), ("colour", .text("green")),
                      ("rules", .text("[{")), ("rules", .integer(1)), ("data", .text("abc")), ("workspace_id", .null)])
    func refusesWhatDoesNotFit(_ column: String, _ value: SQLValue) {
        #expect(throws: (any Error).self, "\(column) = \(value)") { try Self.row([column: value]).decode(Record.self) }
        do {
            _ = try Self.row([column: value]).decode(Record.self)
        } catch let error as StoreError {
            if case .corrupt = error {} else { Issue.record("\(column): \(error)") }
        } catch {
            Issue.record("\(column): \(error) is not StoreError.corrupt")
        }
    }

    struct Grouped: Decodable {
        let k: SQLValue
        let n: Int
    }

    @Test("an SQLValue property takes its column as it is, NULL included; it cannot be read outside a row")
    func rawValues() throws {
        for value in [SQLValue.integer(20_000), .text("skadnetwork"), .real(1.5), .null] {
            let row = SQLRow(columns: ["k", "n"], values: [value, .integer(3)])
            #expect(try row.decode(Grouped.self).k == value)
        }
        #expect(throws: (any Error).self) { try JSONDecoder().decode(SQLValue.self, from: Data("1".utf8)) }
    }

    struct Item: Decodable, Equatable {
        let id: String
        let n: Int64?
        let note: String?
        let data: [UInt8]?
        let ratio: Double?
    }

    struct Pair: Decodable, Equatable {
        let id: String
        let n: Int64?
    }

    @Test("a type read from rows of other column lists, in turn, finds each list's columns (places are kept per list)")
    func placesKeptPerColumnList() throws {
        // More lists than a type keeps, so some are read again after they were let go.
        var layouts: [SQLRow] = [SQLRow(columns: ["id", "n"], values: [.text("a"), .integer(1)]),
                                 SQLRow(columns: ["n", "id"], values: [.integer(2), .text("b")]),
                                 SQLRow(columns: ["id"], values: [.text("c")])]
        for extra in 0..<10 {
            let columns = (0..<extra).map { "x\($0)" } + ["n", "id"]
            layouts.append(SQLRow(columns: columns, values: (0..<extra).map { _ in SQLValue.text("x") } + [.integer(Int64(10 + extra)), .text("e\(extra)")]))
        }
        let expected = [Pair(id: "a", n: 1), Pair(id: "b", n: 2), Pair(id: "c", n: nil)] + (0..<10).map { Pair(id: "e\($0)", n: Int64(10 + $0)) }
        for _ in 0..<3 {
            #expect(try layouts.map { try $0.decode(Pair.self) } == expected)
            #expect(try layouts.reversed().map { try $0.decode(Pair.self) } == expected.reversed())
        }
    }

    @Test("records read from each backend's own rows", arguments: StoreBackend.all)
    func fromTheStore(_ backend: StoreBackend) async throws {
        let (location, store) = try await backend.opened(migratedBy: ConformanceSchema.migrations)
        try await store.write { db in
            try db.execute("INSERT INTO items (id, n, note, data, ratio) VALUES ('a', 7, 'seven', \([UInt8]([0, 255])), 1.5)")
            try db.execute("INSERT INTO items (id) VALUES ('b')")
        }
        let items = try await store.read { db in try db.query("SELECT id, n, note, data, ratio FROM items ORDER BY id", as: Item.self) }
        #expect(items == [Item(id: "a", n: 7, note: "seven", data: [0, 255], ratio: 1.5), Item(id: "b", n: nil, note: nil, data: nil, ratio: nil)])
        for _ in 0..<2 {  // each statement's column list again, the places found the first time kept
            let swapped = try await store.read { db in try db.first("SELECT ratio, note, n, id FROM items WHERE id = 'a'", as: Item.self) }
            #expect(swapped == Item(id: "a", n: 7, note: "seven", data: nil, ratio: 1.5))
            let plain = try await store.read { db in try db.first("SELECT id, n, note, data, ratio FROM items WHERE id = 'a'", as: Item.self) }
            #expect(plain == items.first)
        }
        let missing = try await store.read { db in try db.first("SELECT id, n FROM items WHERE id = 'c'", as: Item.self) }
        #expect(missing == nil)
        let counts = try await store.read { db in
            (try db.count("SELECT COUNT(*) AS n FROM items"), try db.count("SELECT COUNT(*) AS n FROM items WHERE n = 7"),
             try db.count("SELECT 1 AS n FROM items WHERE id = 'c'"))
        }
        #expect(counts == (2, 1, 0), "a count, a filtered count, and no row as 0")
        await store.close()
        _ = location
    }
}
