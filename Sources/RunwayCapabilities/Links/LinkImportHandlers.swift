import LinkRunwayAPI
import RunwayHTTP
import RunwayJSON
import RunwayKit

/// `POST /v1/links/import`: many links at once, with a dry run, a report per row, and re-runs that change nothing.
struct LinkImportHandlers: Sendable {
    let services: ServerServices

    func importLinks(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let (options, items) = try Self.decode(request.body)
        // A batch in a workspace the key cannot reach is refused whole; a row naming one is refused alone.
        if let workspaceId = options.workspaceId { try principal.requireWorkspace(workspaceId) }
        // Each row is checked on its own, so one bad row does not sink the others.
        let checked: [Result<LinkImport.Row, any Error>] = items.map { item in
            Result { try LinkImport.Row(try StrictJSONDecoder().decode(CreateLinkRequest.self, from: item), principal: principal,
                                        workspaceId: options.workspaceId) }
        }
        let dryRun = options.dryRun ?? false, update = options.update ?? false
        let now = services.clock.nowMilliseconds()
        let port = services.listening.port
        let (changed, response) = try await IdempotencyClaim.write(services.store, context, { db -> (changed: [LinkRecord], results: [LinkImportResult]) in
            var run = LinkImport(db: db, now: now, dryRun: dryRun, update: update, localPort: port)
            var results: [LinkImportResult] = []
            for (index, row) in checked.enumerated() { results.append(try run.apply(index, row)) }
            return (run.changed, results)
        }, answer: { try HTTPResponse.json(ImportLinksResponse(dryRun: dryRun, results: $0.results)) })
        for link in changed.changed { services.links.forget(link: link) }
        return response
    }

    /// The options and the rows, undecoded: `{"links": [...]}` with 1 to 500 rows; every other member must belong to
    /// `ImportLinksRequest`.
    static func decode(_ body: [UInt8]) throws -> (ImportLinksRequest, [JSONValue]) {
        guard !body.isEmpty else { throw RequestError.invalidJSON("the request body is empty; send {\"links\":[…]}") }
        guard let members = try JSONParser().parse(body).objectValue,
              let items = members.first(where: { $0.0 == "links" })?.1.arrayValue,
              (1...ImportLinksRequest.batchLimit).contains(items.count) else {
            throw LinksError.notAnImportBatch
        }
        let options = members.filter { $0.0 != "links" } + [("links", JSONValue.array([]))]
        return (try StrictJSONDecoder().decode(ImportLinksRequest.self, from: .object(options)), items)
    }
}
