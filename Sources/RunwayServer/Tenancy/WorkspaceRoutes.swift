import LinkRunwayAPI
import RunwayHTTP
import RunwayStore

/// `/v1/workspaces`: tenants. Admin keys create and list them; a server key sees its own.
enum WorkspaceRoutes {
    static func routes(_ services: ServerServices) -> [Route] {
        [
            Route(method: .POST, pattern: "/v1/workspaces", operation: Operation(
                id: "createWorkspace", summary: "Create a workspace", tag: "Workspaces", access: Access.admin,
                requestSchema: "CreateWorkspaceRequest", responses: [.json(201, "Workspace", "The new workspace.")],
                maxBodyBytes: 16 * 1024, idempotent: true)
            ) { request, context in
                let body = try request.decode(CreateWorkspaceRequest.self)
                let name = try Validate.name(body.name)
                let now = services.clock.nowMilliseconds()
                let id = Identifier.make("ws")
                return try await IdempotencyClaim.write(services.store, context) { db in
                    try TenancyQueries.insertWorkspace(db, id: id, name: name, now: now)
                    return try HTTPResponse.json(Workspace(id: id, name: name, createdAt: Timestamp.iso(now)), status: 201)
                }
            },

            Route(method: .GET, pattern: "/v1/workspaces", operation: Operation(
                id: "listWorkspaces", summary: "List workspaces (a server key sees its own)", tag: "Workspaces",
                access: Access.management, responses: [.json(200, "WorkspacePage", "A page of workspaces.")],
                query: pageQuery)
            ) { request, context in
                let principal = try context.principal()
                let page = try PageRequest(request)
                let scope: SQL = principal.kind == .admin ? "" : " AND id = \(principal.workspaceId ?? "")"
                return try .json(await readPage(services.store, table: "workspaces", columns: "id, name, created_at", filter: scope,
                                                page: page, row: TenancyRows.workspace, id: \.id))
            },

            Route(method: .GET, pattern: "/v1/workspaces/{workspaceId}", operation: Operation(
                id: "getWorkspace", summary: "Show a workspace", tag: "Workspaces", access: Access.management,
                responses: [.json(200, "Workspace", "The workspace.")])
            ) { _, context in
                let principal = try context.principal()
                let id = try context.parameter("workspaceId")
                guard let workspace = try await services.store.read({ db in try TenancyQueries.workspace(db, id: id) }) else {
                    throw HTTPError.notFound(ErrorCode.notFound, "no workspace \(id)")
                }
                try principal.requireWorkspace(workspace.id)
                return try .json(workspace)
            },
        ]
    }
}
