import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayOutbound
import RunwayStore

/// `/v1/domains`: the hostnames whose links a workspace serves. A domain added with a server key serves once control of
/// the hostname is proven with a DNS TXT record, so no workspace can take another's traffic (or the server's own host);
/// one added with an admin key is trusted at once.
enum DomainRoutes {
    static let columns = "id, workspace_id, hostname, created_at, verified_at, verification_token"

    static func domain(_ row: SQLRow) throws -> LinkDomain {
        let hostname = try row.string("hostname")
        let verified = try row.optionalInt("verified_at") != nil
        return LinkDomain(id: try row.string("id"), workspaceId: try row.string("workspace_id"), hostname: hostname,
                          createdAt: Timestamp.iso(try row.int("created_at")), verified: verified,
                          verification: verified ? nil : try row.optionalString("verification_token").map { verification(hostname: hostname, token: $0) })
    }

    static func verification(hostname: String, token: String) -> DomainVerification {
        DomainVerification(recordName: "_linkrunway-challenge." + hostname, recordValue: "linkrunway-verification=" + token)
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
                let trusted = principal.kind == .admin
                let token = trusted ? nil : SecureRandom.string(length: 32, alphabet: SecureRandom.base62)
                let domain = LinkDomain(id: Identifier.make("dom"), workspaceId: workspaceId, hostname: hostname, createdAt: Timestamp.iso(now),
                                        verified: trusted, verification: token.map { verification(hostname: hostname, token: $0) })
                let response = try await IdempotencyClaim.write(services.store, context) { db in
                    do {
                        try db.execute("""
                            INSERT INTO link_domains (\(raw: columns))
                            VALUES (\(domain.id), \(workspaceId), \(hostname), \(now), \(trusted ? now : nil), \(token))
                            """)
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

            Route(method: .POST, pattern: "/v1/domains/{domainId}/verify", operation: Operation(
                id: "verifyDomain", summary: "Check the domain's DNS TXT record; once it is there, the domain serves links",
                tag: "Link domains", access: Access.management, responses: [.json(200, "LinkDomain", "The domain, verified.")], errors: [409, 503])
            ) { _, context in
                let principal = try context.principal()
                let id = try context.parameter("domainId")
                guard let row = try await services.store.read({ db in try db.first("SELECT \(raw: columns) FROM link_domains WHERE id = \(id)") }) else {
                    throw HTTPError.notFound(ErrorCode.notFound, "no domain \(id)")
                }
                let found = try domain(row)
                try principal.requireWorkspace(found.workspaceId)
                guard let expected = found.verification else { return try .json(found) }
                guard let records = await TXTLookup.records(expected.recordName, server: services.dnsServer) else {
                    throw HTTPError.unavailable(ErrorCode.domainUnverified, "DNS gave no answer for \(expected.recordName); try again")
                }
                guard records.contains(where: { ConstantTime.equal(Array($0.utf8), Array(expected.recordValue.utf8)) }) else {
                    throw HTTPError.conflict(ErrorCode.domainUnverified,
                                             "no TXT record \(expected.recordName) with the value \(expected.recordValue) yet (\(records.count) TXT records found)")
                }
                let now = services.clock.nowMilliseconds()
                try await services.store.write { db in
                    try db.execute("UPDATE link_domains SET verified_at = \(now), verification_token = NULL WHERE id = \(id) AND verified_at IS NULL")
                }
                services.links.forget(hostname: found.hostname)
                return try .json(LinkDomain(id: found.id, workspaceId: found.workspaceId, hostname: found.hostname, createdAt: found.createdAt))
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
