/// One step of the schema, with the SQL for each dialect. Ids sort in the order they are applied and never change once
/// released; a database that records an id this binary does not know was written by a newer version.
public struct Migration: Sendable {
    public let id: String
    public let sqlite: String
    public let postgres: String

    /// A step whose SQL differs per dialect.
    public init(id: String, sqlite: String, postgres: String) {
        self.id = id
        self.sqlite = sqlite
        self.postgres = postgres
    }

    /// A step whose SQL is the same on every backend.
    public init(id: String, sql: String) {
        self.init(id: id, sqlite: sql, postgres: sql)
    }

    public func sql(for dialect: SQLDialect) -> String { dialect == .sqlite ? sqlite : postgres }
}

extension Migration {
    /// Checks a migration list against the ids a database recorded: returns the ones to apply, or throws when the
    /// database knows ids this binary does not (it was migrated by a newer version).
    public static func pending(_ migrations: [Migration], applied: Set<String>) throws -> [Migration] {
        let known = Set(migrations.map(\.id))
        if let unknown = applied.subtracting(known).sorted().first {
            throw StoreError.newerSchema("it has step \(unknown), which this version does not know; run that version or a later one "
                                         + "(upgrade linkrunway), never an older one")
        }
        return migrations.filter { !applied.contains($0.id) }
    }
}
