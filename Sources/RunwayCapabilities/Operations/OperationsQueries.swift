import RunwayKit
import RunwayStore

/// The SQL the operations routes run.
enum OperationsQueries {
    /// The id of the newest schema step applied, or nil before any.
    static func newestMigration(_ db: any SQLExecutor) throws -> String? {
        try db.first("SELECT MAX(id) AS newest FROM schema_migrations", as: Newest.self)?.newest
    }

    private struct Newest: Decodable {
        let newest: String?
    }
}
