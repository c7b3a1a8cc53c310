import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// `/v1/links`: short links on the workspace's domains, managed with server (or admin) keys.
struct LinkHandlers: Sendable {
    let services: ServerServices

    func create(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let body = try request.decode(CreateLinkRequest.self)
        let workspaceId = try principal.actingWorkspace(body.workspaceId)
        let customPath = try body.path.map(LinkValidate.path)
        let draft = try LinkDraft(body)
        let now = services.clock.nowMilliseconds()
        let (link, response) = try await IdempotencyClaim.write(services.store, context, { db -> LinkRecord in
            let appId = try LinkQueries.resolveApp(db, workspaceId: workspaceId, requested: body.appId)
            let domain = try LinkQueries.pickDomain(db, workspaceId: workspaceId, hostname: body.domain)
            var link = LinkRecord(id: Identifier.make("lnk"), workspaceId: workspaceId, appId: appId, kind: "link",
                                  domain: domain, path: customPath ?? "", createdAt: now)
            draft.apply(to: &link)
            try LinkQueries.insert(&link, db: db, custom: customPath != nil)
            return link
        }, answer: { try HTTPResponse.json($0.wire(services), status: 201) })
        services.links.forget(link: link)
        return response
    }

    func list(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let page = try PageRequest(request)
        let workspace = try await principal.workspaceFilter(request, in: services.store)
        let enabled = try request.queryValue("enabled").map { enabled in
            guard let flag = Bool(enabled) else {
                throw RequestError.invalidQuery("enabled must be true or false", field: "enabled")
            }
            return flag
        }
        let filter = LinkQueries.linkFilter(workspace, request, enabled: enabled)
        let port = services.listening.port
        return try .json(await readPage(services.store, table: "links", columns: LinkRecord.columns, filter: filter, page: page,
                                        as: LinkRecord.self, wire: { $0.wire(localPort: port) }, id: \.id))
    }

    func get(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        try .json(try await load(context).wire(services))
    }

    /// The link's figures over a range of UTC days, from its daily rollups, as JSON or CSV.
    func stats(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let link = try await load(context)
        let query = try LinkStatsQuery(request, now: services.clock.nowMilliseconds())
        let stats = try await services.store.read { db in try LinkStatsReport.read(db, linkId: link.id, query: query) }
        return try ReportQuery.respond(request, stats, csv: { LinkStatsReport.csv(stats) }, filename: "link-\(link.id)-stats.csv")
    }

    func update(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let id = try context.parameter("linkId")
        let body = try request.decode(UpdateLinkRequest.self)
        let change = try LinkChange(body)
        let now = services.clock.nowMilliseconds()
        let (link, response) = try await IdempotencyClaim.write(services.store, context, { db -> LinkRecord in
            guard var link = try LinkRecord.find(db, id: id) else { throw RequestError.notFound("no link \(id)") }
            try principal.requireWorkspace(link.workspaceId)
            try change.apply(to: &link)
            link.updatedAt = now
            try link.update(db)
            return link
        }, answer: { try HTTPResponse.json($0.wire(services)) })
        services.links.forget(link: link)
        return response
    }

    func disable(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let id = try context.parameter("linkId")
        let now = services.clock.nowMilliseconds()
        let link: LinkRecord = try await services.store.write { db in
            guard var link = try LinkRecord.find(db, id: id) else { throw RequestError.notFound("no link \(id)") }
            try principal.requireWorkspace(link.workspaceId)
            if link.enabled {
                link.enabled = false
                link.updatedAt = now
                try link.update(db)
            }
            return link
        }
        services.links.forget(link: link)
        return try .json(link.wire(services))
    }

    static func intQuery(_ request: HTTPRequest, _ name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = request.queryValue(name) else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw RequestError.invalidQuery("\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)", field: name)
        }
        return number
    }

    /// The link named by the path, if the caller may see it.
    func load(_ context: RequestContext) async throws -> LinkRecord {
        let principal = try context.principal()
        let id = try context.parameter("linkId")
        guard let link = try await services.store.read({ db in try LinkRecord.find(db, id: id) }) else {
            throw RequestError.notFound("no link \(id)")
        }
        try principal.requireWorkspace(link.workspaceId)
        return link
    }
}
