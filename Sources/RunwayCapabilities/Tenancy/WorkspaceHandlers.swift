import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// `/v1/workspaces`: tenants. Admin keys create and list them; a server key sees its own.
struct WorkspaceHandlers: Sendable {
    let services: ServerServices

    func create(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let body = try request.decode(CreateWorkspaceRequest.self)
        let name = try Validate.name(body.name)
        let now = services.clock.nowMilliseconds()
        let id = Identifier.make("ws")
        return try await IdempotencyClaim.write(services.store, context) { db in
            try TenancyQueries.insertWorkspace(db, id: id, name: name, now: now)
            return try HTTPResponse.json(Workspace(id: id, name: name, createdAt: Timestamp.iso(now)), status: 201)
        }
    }

    func list(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let page = try PageRequest(request)
        let scope = TenancyQueries.workspacesVisible(to: principal)
        return try .json(await readPage(services.store, table: "workspaces", columns: TenancyRows.workspaceColumns, filter: scope,
                                        page: page, as: TenancyRows.WorkspaceRow.self, wire: \.wire, id: \.id))
    }

    func get(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let id = try context.parameter("workspaceId")
        guard let workspace = try await services.store.read({ db in try TenancyQueries.workspace(db, id: id) }) else {
            throw RequestError.notFound("no workspace \(id)")
        }
        try principal.requireWorkspace(workspace.id)
        return try .json(workspace)
    }
}
