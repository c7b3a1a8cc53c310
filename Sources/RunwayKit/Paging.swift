import LinkRunwayAPI
import RunwayHTTP
import RunwayStore

/// Paging parameters shared by list routes: `limit` (1–200, default 50) and an opaque `cursor`.
package struct PageRequest: Sendable {
    package var limit: Int
    package var cursor: String?

    package static let maximum = 200

    package init(_ request: HTTPRequest) throws {
        if let text = request.queryValue("limit") {
            guard let value = Int(text), (1...Self.maximum).contains(value) else {
                throw RequestError.invalidQuery("limit must be an integer from 1 to \(Self.maximum)", field: "limit")
            }
            limit = value
        } else {
            limit = 50
        }
        cursor = request.queryValue("cursor").flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// `limit` and `cursor`, documented once for every list route.
package let pageQuery = [
    QueryParameterDoc("limit", "Items per page, 1 to 200 (default 50).", schema: "integer"),
    QueryParameterDoc("cursor", "The nextCursor of the previous page."),
]

/// Reads one page of `table` in (created_at, id) order, after the request's cursor (an unknown cursor yields an empty
/// page), keeping the rows `filter` (` AND …` clauses) allows: each row decoded as `record` (`RowDecoder`), then made
/// the item the page lists by `wire`.
package func readPage<Record: Decodable, Item: Codable & Sendable>(_ store: any Store, table: String, columns: String, filter: SQL,
                                                                   page: PageRequest, as record: Record.Type,
                                                                   wire: @escaping @Sendable (Record) throws -> Item,
                                                                   id: @escaping @Sendable (Item) -> String) async throws -> Page<Item> {
    let cursor: SQL = page.cursor.map { " AND (created_at, id) > (SELECT created_at, id FROM \(raw: table) WHERE id = \($0))" } ?? ""
    let rows = try await store.read { db in
        try db.query("SELECT \(raw: columns) FROM \(raw: table) WHERE 1 = 1\(filter)\(cursor) ORDER BY created_at, id LIMIT \(page.limit + 1)",
                     as: record).map(wire)
    }
    let items = Array(rows.prefix(page.limit))
    return Page(items: items, nextCursor: rows.count > page.limit ? items.last.map(id) : nil)
}

extension Principal {
    /// The ` AND workspace_id = …` clause a list route applies: the `workspaceId` asked for (which this key must
    /// reach, and which must exist: a list of a workspace that is not there is a 404, not an empty page), else the key's
    /// own workspace; admin keys without one see every workspace.
    package func workspaceFilter(_ request: HTTPRequest, in store: any Store) async throws -> SQL {
        guard let workspaceId = request.queryValue("workspaceId") ?? self.workspaceId else { return "" }
        try requireWorkspace(workspaceId)
        if workspaceId != self.workspaceId {
            let exists = try await store.read { db in try db.first("SELECT 1 AS found FROM workspaces WHERE id = \(workspaceId)") != nil }
            guard exists else { throw RequestError.notFound("no workspace \(workspaceId)") }
        }
        return " AND workspace_id = \(workspaceId)"
    }
}
