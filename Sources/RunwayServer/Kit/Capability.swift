import LinkRunwayAPI
import RunwayHTTP
import RunwayStore

/// One capability of the server (links, attribution, postbacks, affiliates…): the routes it serves, the schema steps of
/// its tables, and its part in what every capability owes: forgetting and exporting an installation, the hourly
/// upkeep, and the secrets it keeps sealed. The application merges the parts of every capability, so adding one
/// touches no central list. Every part but the routes is optional.
protocol Capability: Sendable {
    /// Its schema steps, merged with every other capability's in the order of their ids.
    var migrations: [Migration] { get }
    /// What an operator should hear after one of its steps was applied, by step id (nil when there is nothing to say).
    var migrationNotes: [String: @Sendable (any Store) async throws -> String?] { get }
    /// Its routes.
    func routes(_ services: ServerServices) -> [Route]
    /// Deletes, or unlinks, what it keeps about `install`, in the deletion's one transaction; returns how many rows it
    /// deleted or unlinked, by the name the deletion receipt gives them.
    func forget(_ install: InstallReference, _ db: any SQLExecutor) throws -> [String: Int]
    /// Adds what it keeps about `install` to an export.
    func export(_ install: InstallReference, _ db: any SQLExecutor, into export: inout InstallExport) throws
    /// Its part of the hourly upkeep: what its retention settings expire, what becomes due.
    func maintain(_ services: ServerServices, policy: RetentionPolicy, now: Int64, report: inout RetentionReport) async throws
    /// The columns of its tables that hold secrets, sealed with the secret key file.
    var sealedColumns: [SealedColumn] { get }
}

extension Capability {
    var migrations: [Migration] { [] }
    var migrationNotes: [String: @Sendable (any Store) async throws -> String?] { [:] }
    func forget(_ install: InstallReference, _ db: any SQLExecutor) throws -> [String: Int] { [:] }
    func export(_ install: InstallReference, _ db: any SQLExecutor, into export: inout InstallExport) throws {}
    func maintain(_ services: ServerServices, policy: RetentionPolicy, now: Int64, report: inout RetentionReport) async throws {}
    var sealedColumns: [SealedColumn] { [] }
}

/// The installation a deletion or an export is about, with what capabilities need to find their rows.
struct InstallReference: Sendable {
    let appId: String
    let installId: String
    /// The workspace of the app.
    let workspaceId: String
    /// The token of the click the install was matched to, if any.
    let clickToken: String?
    /// The time of the request, in milliseconds (from the server's clock).
    let now: Int64
}

/// A column whose values are sealed with the secret key file: `table.column` of the rows `rows` selects, each found
/// again by `key`.
struct SealedColumn: Sendable {
    let table: String
    let key: String
    let column: String
    let rows: String

    init(_ table: String, key: String, column: String, rows: String = "1 = 1") {
        self.table = table
        self.key = key
        self.column = column
        self.rows = rows
    }
}
