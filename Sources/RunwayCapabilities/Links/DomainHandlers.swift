import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayKit
import RunwayOutbound
import RunwayStore

/// `/v1/domains`: the hostnames whose links a workspace serves. A domain added with a server key serves once control of
/// the hostname is proven with a DNS TXT record, so no workspace can take another's traffic (or the server's own host);
/// one added with an admin key is trusted at once.
struct DomainHandlers: Sendable {
    let services: ServerServices

    func create(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let body = try request.decode(CreateLinkDomainRequest.self)
        let workspaceId = try principal.actingWorkspace(body.workspaceId)
        let hostname = try LinkValidate.hostname(body.hostname)
        let now = services.clock.nowMilliseconds()
        let trusted = principal.kind == .admin
        let token = trusted ? nil : SecureRandom.string(length: 32, alphabet: SecureRandom.base62)
        let domain = LinkDomain(id: Identifier.make("dom"), workspaceId: workspaceId, hostname: hostname, createdAt: Timestamp.iso(now),
                                verified: trusted, verification: token.map { LinkRows.verification(hostname: hostname, token: $0) })
        let response = try await IdempotencyClaim.write(services.store, context) { db in
            do {
                try LinkQueries.insertDomain(db, domain, now: now, verifiedAt: trusted ? now : nil, token: token)
            } catch StoreError.conflict {
                throw LinksError.hostnameTaken(hostname)
            } catch StoreError.constraint {
                throw RequestError.invalidField("workspaceId", "no workspace has this id")
            }
            return try HTTPResponse.json(domain, status: 201)
        }
        services.links.forget(hostname: hostname)
        return response
    }

    func verify(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let id = try context.parameter("domainId")
        guard let found = try await services.store.read({ db in try LinkQueries.domain(db, id: id) }) else {
            throw RequestError.notFound("no domain \(id)")
        }
        try principal.requireWorkspace(found.workspaceId)
        guard let expected = found.verification else { return try .json(found) }
        guard let records = await TXTLookup.records(expected.recordName, server: services.settings[LinksSettings.self].dnsServer) else {
            throw LinksError.domainUnanswered(recordName: expected.recordName)
        }
        guard records.contains(where: { ConstantTime.equal(Array($0.utf8), Array(expected.recordValue.utf8)) }) else {
            throw LinksError.domainUnverified(recordName: expected.recordName, recordValue: expected.recordValue, found: records.count)
        }
        let now = services.clock.nowMilliseconds()
        try await services.store.write { db in try LinkQueries.markVerified(db, id: id, now: now) }
        services.links.forget(hostname: found.hostname)
        return try .json(LinkDomain(id: found.id, workspaceId: found.workspaceId, hostname: found.hostname, createdAt: found.createdAt))
    }

    func list(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let page = try PageRequest(request)
        let filter = try await principal.workspaceFilter(request, in: services.store)
        return try .json(await readPage(services.store, table: "link_domains", columns: LinkRows.Domain.columns, filter: filter, page: page,
                                        as: LinkRows.Domain.self, wire: \.wire, id: \.id))
    }

    func delete(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let id = try context.parameter("domainId")
        let hostname: String = try await services.store.write { db in
            guard let domain = try LinkQueries.domain(db, id: id) else {
                throw RequestError.notFound("no domain \(id)")
            }
            try principal.requireWorkspace(domain.workspaceId)
            if try LinkQueries.domainHasLinks(db, hostname: domain.hostname) {
                throw LinksError.domainInUse(domain.hostname)
            }
            try LinkQueries.deleteDomain(db, id: id)
            return domain.hostname
        }
        services.links.forget(hostname: hostname)
        return HTTPResponse(status: 204)
    }
}
