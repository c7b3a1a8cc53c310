import Foundation
import RunwayCapabilities
import RunwayConsole
import RunwayKit
import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

/// The same migration list must leave both backends with the same tables, columns, types, nullability and indexes, but
/// for the one table PostgreSQL alone needs.
@Suite("Schema equivalence", .enabled(if: StoreBackend.postgresURL != nil, "LINKRUNWAY_TEST_POSTGRES_URL is not set"))
struct SchemaEquivalenceTests {
    struct Column: Hashable, CustomStringConvertible {
        let table: String, name: String, type: String, nullable: Bool
        var description: String { "\(table).\(name) \(type)\(nullable ? "" : " not null")" }
    }

    static func sqliteType(_ declared: String) -> String {
        switch declared.uppercased() {
        case "TEXT": return "text"
        case "BIGINT", "INTEGER": return "integer"
        case "BLOB": return "bytes"
        case "DOUBLE PRECISION", "REAL": return "real"
        default: return declared.lowercased()
        }
    }

    static func postgresType(_ type: String) -> String {
        switch type {
        case "text": return "text"
        case "bigint", "integer", "smallint": return "integer"
        case "bytea": return "bytes"
        case "double precision", "real": return "real"
        default: return type
        }
    }

    static func sqliteShape(_ store: any Store) async throws -> (Set<Column>, Set<String>) {
        try await store.read { db in
            var columns = Set<Column>()
            let tables = try db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").map { try $0.string("name") }
            for table in tables {
                for row in try db.query("SELECT name, type, \"notnull\" AS nn, pk FROM pragma_table_info(\(table))") {
                    let notNull = try row.int("nn") == 1 || row.int("pk") > 0
                    columns.insert(Column(table: table, name: try row.string("name"), type: sqliteType(try row.string("type")), nullable: !notNull))
                }
            }
            let indexes = try db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").map { try $0.string("name") }
            return (columns, Set(indexes))
        }
    }

    static func postgresShape(_ store: any Store) async throws -> (Set<Column>, Set<String>) {
        try await store.read { db in
            let rows = try db.query("""
                SELECT c.table_name, c.column_name, c.data_type, c.is_nullable
                FROM information_schema.columns c
                JOIN pg_class k ON k.relname = c.table_name AND NOT k.relispartition
                WHERE c.table_schema = 'public'
                """)
            let columns = Set(try rows.map { row in
                Column(table: try row.string("table_name"), name: try row.string("column_name"),
                       type: postgresType(try row.string("data_type")), nullable: try row.string("is_nullable") == "YES")
            })
            // Indexes we created by name; constraint indexes (primary keys, UNIQUE) are implied by the columns above.
            let indexes = try db.query("""
                SELECT i.relname AS name FROM pg_index x
                JOIN pg_class i ON i.oid = x.indexrelid
                JOIN pg_class t ON t.oid = x.indrelid AND NOT t.relispartition
                JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = 'public'
                WHERE NOT x.indisprimary AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)
                """).map { try $0.string("name") }
            return (columns, Set(indexes))
        }
    }

    @Test("both backends end at the same schema")
    func sameSchema() async throws {
        let sqliteLocation = try await StoreBackend.sqlite.makeLocation()
        let postgresLocation = try await StoreBackend.postgres.makeLocation()
        let sqlite = try StoreBackend.sqlite.open(sqliteLocation.url, nil)
        let postgres = try StoreBackend.postgres.open(postgresLocation.url, nil)
        #expect(try await sqlite.migrate(Schema.migrations) == Schema.migrations.map(\.id))
        #expect(try await postgres.migrate(Schema.migrations) == Schema.migrations.map(\.id))
        let (liteColumns, liteIndexes) = try await Self.sqliteShape(sqlite)
        let (pgColumns, pgIndexes) = try await Self.postgresShape(postgres)
        #expect(liteColumns.count > 10)
        #expect(liteColumns.subtracting(pgColumns).isEmpty, "only in SQLite: \(liteColumns.subtracting(pgColumns))")
        // `event_ids` keeps event ids unique on PostgreSQL only (step 0071): SQLite finds them in the events' own key.
        let pgOnly = pgColumns.filter { $0.table == "event_ids" }
        #expect(Set(pgOnly.map(\.name)) == ["app_id", "event_id", "received_at"])
        #expect(pgColumns.subtracting(pgOnly).subtracting(liteColumns).isEmpty, "only in PostgreSQL: \(pgColumns.subtracting(liteColumns))")
        #expect(liteIndexes.union(["event_ids_by_age"]) == pgIndexes)
        await sqlite.close()
        await postgres.close()
    }
}
