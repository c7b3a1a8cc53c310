import LinkRunwayAPI
import RunwayHTTP
import RunwayStore

/// `/v1/domains`: the hostnames whose links a workspace serves.
enum DomainRoutes {
    static let columns = "id, workspace_id, hostname, created_at"

    static func domain(_ row: SQLRow) throws -> LinkDomain {
        LinkDomain(id: try row.string("id"), workspaceId: try row.string("workspace_id"), hostname: try row.string("hostname"),
                   createdAt: Timestamp.iso(try row.int("created_at")))
    }

    static func routes(_ services: ServerServices) -> [Route] {
        [
            Route(method: .POST, pattern: "/v1/domains", operation: Operation(
                id: "createDomain", summary: "Add a link domain to a workspace", tag: "Link domains", access: Access.management,
                requestSchema: "CreateLinkDomainRequest", responses: [.json(201, "LinkDomain", "The domain.")],
                maxBodyBytes: 16 * 1024, errors: [409], idempotent: true)
            ) { request, context in
                let principal = try context.principal()
                let body = try request.decode(CreateLinkDomainRequest.self)
                guard let workspaceId = body.workspaceId ?? principal.workspaceId else {
                    throw HTTPError.badRequest(ErrorCode.missingField, "workspaceId is required with an admin key", field: "workspaceId")
                }
                try principal.requireWorkspace(workspaceId)
                let hostname = try LinkValidate.hostname(body.hostname)
                let now = services.clock.nowMilliseconds()
                let domain = LinkDomain(id: Identifier.make("dom"), workspaceId: workspaceId, hostname: hostname, createdAt: Timestamp.iso(now))
                let response = try await IdempotencyClaim.write(services.store, context) { db in
                    do {
                        try db.execute("INSERT INTO link_domains (\(raw: columns)) VALUES (\(domain.id), \(workspaceId), \(hostname), \(now))")
                    } catch StoreError.conflict {
                        throw HTTPError.conflict(ErrorCode.hostnameTaken, "\(hostname) is already a link domain")
                    } catch StoreError.constraint {
                        throw HTTPError.invalidField("workspaceId", "no workspace has this id")
                    }
                    return try HTTPResponse.json(domain, status: 201)
                }
                services.links.forget(hostname: hostname)
                return response
            },

            Route(method: .GET, pattern: "/v1/domains", operation: Operation(
                id: "listDomains", summary: "List link domains", tag: "Link domains", access: Access.management,
                responses: [.json(200, "LinkDomainPage", "A page of domains.")],
                query: [QueryParameterDoc("workspaceId", "Only this workspace's domains.")] + pageQuery)
            ) { request, context in
                let principal = try context.principal()
                let page = try PageRequest(request)
                let filter = try principal.workspaceFilter(request)
                return try .json(await readPage(services.store, table: "link_domains", columns: columns, filter: filter, page: page,
                                                row: domain, id: \.id))
            },

            Route(method: .DELETE, pattern: "/v1/domains/{domainId}", operation: Operation(
                id: "deleteDomain", summary: "Remove a link domain that has no links", tag: "Link domains", access: Access.management,
                responses: [ResponseDoc(status: 204, description: "Removed.")], errors: [409])
            ) { _, context in
                let principal = try context.principal()
                let id = try context.parameter("domainId")
                let hostname: String = try await services.store.write { db in
                    guard let row = try db.first("SELECT \(raw: columns) FROM link_domains WHERE id = \(id)") else {
                        throw HTTPError.notFound(ErrorCode.notFound, "no domain \(id)")
                    }
                    let domain = try domain(row)
                    try principal.requireWorkspace(domain.workspaceId)
                    if try db.first("SELECT 1 AS one FROM links WHERE domain = \(domain.hostname) LIMIT 1") != nil {
                        throw HTTPError.conflict(ErrorCode.domainInUse, "\(domain.hostname) still has links")
                    }
                    try db.execute("DELETE FROM link_domains WHERE id = \(id)")
                    return domain.hostname
                }
                services.links.forget(hostname: hostname)
                return HTTPResponse(status: 204)
            },
        ]
    }

    /// The workspace's domain named `hostname`, or its first one.
    static func pick(_ db: any SQLExecutor, workspaceId: String, hostname: String?) throws -> String {
        if let hostname {
            let host = try LinkValidate.hostname(hostname, field: "domain")
            guard try db.first("SELECT 1 AS one FROM link_domains WHERE hostname = \(host) AND workspace_id = \(workspaceId)") != nil else {
                throw HTTPError.invalidField("domain", "\(host) is not a link domain of this workspace")
            }
            return host
        }
        guard let first = try db.first("SELECT hostname FROM link_domains WHERE workspace_id = \(workspaceId) ORDER BY created_at, id LIMIT 1") else {
            throw HTTPError.badRequest(ErrorCode.noLinkDomain, "the workspace has no link domain yet; add one with POST /v1/domains")
        }
        return try first.string("hostname")
    }
}
