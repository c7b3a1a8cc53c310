import LinkRunwayAPI
import RunwayHTTP
import RunwayStore

/// One capability of the server (links, attribution, postbacks, affiliates…): the routes it serves, the schema steps of
/// its tables, and its part in what every capability owes: forgetting and exporting an installation, the hourly
/// upkeep, and the secrets it keeps sealed. The application merges the parts of every capability, so adding one
/// touches no central list. Every part but the routes is optional.
package protocol Capability: Sendable {
    /// Its schema steps, merged with every other capability's in the order of their ids.
    var migrations: [Migration] { get }
    /// What an operator should hear after one of its steps was applied, by step id (nil when there is nothing to say).
    var migrationNotes: [String: @Sendable (any Store) async throws -> String?] { get }
    /// What an operator sets for it, if anything: its settings type, whose definitions join the server's settings.
    var settings: (any CapabilitySettings.Type)? { get }
    /// Its routes.
    func routes(_ services: ServerServices) -> [Route]
    /// What it runs for the life of the server beside its routes (queues it drains), started in the capabilities'
    /// order.
    func workers(_ services: ServerServices) -> [any Service]
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
    package var migrations: [Migration] { [] }
    package var migrationNotes: [String: @Sendable (any Store) async throws -> String?] { [:] }
    package var settings: (any CapabilitySettings.Type)? { nil }
    package func workers(_ services: ServerServices) -> [any Service] { [] }
    package func forget(_ install: InstallReference, _ db: any SQLExecutor) throws -> [String: Int] { [:] }
    package func export(_ install: InstallReference, _ db: any SQLExecutor, into export: inout InstallExport) throws {}
    package func maintain(_ services: ServerServices, policy: RetentionPolicy, now: Int64, report: inout RetentionReport) async throws {}
    package var sealedColumns: [SealedColumn] { [] }
}

/// The installation a deletion or an export is about, with what capabilities need to find their rows.
package struct InstallReference: Sendable {
    package let appId: String
    package let installId: String
    /// The workspace of the app.
    package let workspaceId: String
    /// The token of the click the install was matched to, if any.
    package let clickToken: String?
    /// The time of the request, in milliseconds (from the server's clock).
    package let now: Int64
    /// The port this server listens on (0 when unknown), for the links of the local domain an export shows.
    package let localPort: Int

    package init(appId: String, installId: String, workspaceId: String, clickToken: String?, now: Int64, localPort: Int) {
        self.appId = appId
        self.installId = installId
        self.workspaceId = workspaceId
        self.clickToken = clickToken
        self.now = now
        self.localPort = localPort
    }
}

/// A column whose values are sealed with the secret key file: `table.column` of the rows `rows` selects, each found
/// again by `key`.
package struct SealedColumn: Sendable {
    package let table: String
    package let key: String
    package let column: String
    package let rows: String

    package init(_ table: String, key: String, column: String, rows: String = "1 = 1") {
        self.table = table
        self.key = key
        self.column = column
        self.rows = rows
    }
}
