import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayStore

/// `/v1/affiliates` and `/v1/affiliate-programs`: who refers, on what terms, and the codes and links they share.
enum AffiliateRoutes {
    static let affiliateColumns = "id, workspace_id, name, external_id, created_at"
    static let programColumns = "id, workspace_id, app_id, name, commission, hold_days, offer_code, deferred_minutes, created_at"

    static func routes(_ services: ServerServices) -> [Route] {
        [
            Route(method: .POST, pattern: "/v1/affiliates", operation: Operation(
                id: "createAffiliate", summary: "Add an affiliate", tag: "Affiliates", access: Access.management,
                requestSchema: "CreateAffiliateRequest", responses: [.json(201, "Affiliate", "The affiliate.")], maxBodyBytes: 8 * 1024)
            ) { request, context in
                let principal = try context.principal()
                let body = try request.decode(CreateAffiliateRequest.self)
                let workspaceId = try workspace(body.workspaceId, principal)
                let name = try Validate.name(body.name)
                if let external = body.externalId, !(1...128).contains(external.count) {
                    throw HTTPError.invalidField("externalId", "must be 1 to 128 characters")
                }
                let now = services.clock.nowMilliseconds()
                let affiliate = Affiliate(id: Identifier.make("aff"), workspaceId: workspaceId, name: name, externalId: body.externalId,
                                          createdAt: Timestamp.iso(now))
                do {
                    try await services.store.write { db in
                        try db.execute("""
                            INSERT INTO affiliates (id, workspace_id, name, external_id, created_at)
                            VALUES (\(affiliate.id), \(workspaceId), \(name), \(body.externalId), \(now))
                            """)
                    }
                } catch StoreError.constraint {
                    throw HTTPError.invalidField("workspaceId", "no workspace has this id")
                }
                return try .json(affiliate, status: 201)
            },

            Route(method: .GET, pattern: "/v1/affiliates", operation: Operation(
                id: "listAffiliates", summary: "List affiliates", tag: "Affiliates", access: Access.management,
                responses: [.json(200, "AffiliatePage", "A page of affiliates.")],
                query: [QueryParameterDoc("workspaceId", "Only this workspace's.")] + pageQuery)
            ) { request, context in
                let principal = try context.principal()
                return try .json(await readPage(services.store, table: "affiliates", columns: affiliateColumns,
                                                filter: try principal.workspaceFilter(request), page: try PageRequest(request),
                                                row: affiliate, id: \.id))
            },

            Route(method: .POST, pattern: "/v1/affiliate-programs", operation: Operation(
                id: "createAffiliateProgram", summary: "Add an affiliate program to an app: its commission, holding period and offer",
                tag: "Affiliates", access: Access.management, requestSchema: "CreateProgramRequest",
                responses: [.json(201, "AffiliateProgram", "The program.")], maxBodyBytes: 8 * 1024)
            ) { request, context in
                let principal = try context.principal()
                let body = try request.decode(CreateProgramRequest.self)
                guard let app = try await services.links.app(id: body.appId) else { throw HTTPError.invalidField("appId", "no app has this id") }
                try principal.requireWorkspace(app.workspaceId)
                let name = try Validate.name(body.name)
                let rule = try CommissionRules.validate(body.commission)
                let hold = body.holdDays ?? 30
                guard (0...365).contains(hold) else { throw HTTPError.invalidField("holdDays", "must be 0 to 365") }
                let deferred = body.deferredMinutes ?? 60
                guard (1...10_080).contains(deferred) else { throw HTTPError.invalidField("deferredMinutes", "must be 1 to 10080 (a week)") }
                if let offer = body.offerCode, !(1...64).contains(offer.count) || !offer.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
                    throw HTTPError.invalidField("offerCode", "must be 1 to 64 letters and digits")
                }
                let now = services.clock.nowMilliseconds()
                let program = AffiliateProgram(id: Identifier.make("prg"), workspaceId: app.workspaceId, appId: app.id, name: name, commission: rule,
                                               holdDays: hold, offerCode: body.offerCode, deferredMinutes: deferred, createdAt: Timestamp.iso(now))
                let encoded = try CommissionRules.encode(rule)
                try await services.store.write { db in
                    try db.execute("""
                        INSERT INTO affiliate_programs (id, workspace_id, app_id, name, commission, hold_days, offer_code, deferred_minutes, created_at)
                        VALUES (\(program.id), \(program.workspaceId), \(app.id), \(name), \(encoded), \(Int64(hold)), \(body.offerCode),
                                \(Int64(deferred)), \(now))
                        """)
                }
                return try .json(program, status: 201)
            },

            Route(method: .GET, pattern: "/v1/affiliate-programs", operation: Operation(
                id: "listAffiliatePrograms", summary: "List affiliate programs", tag: "Affiliates", access: Access.management,
                responses: [.json(200, "AffiliateProgramPage", "A page of programs.")],
                query: [QueryParameterDoc("workspaceId", "Only this workspace's.")] + pageQuery)
            ) { request, context in
                let principal = try context.principal()
                return try .json(await readPage(services.store, table: "affiliate_programs", columns: programColumns,
                                                filter: try principal.workspaceFilter(request), page: try PageRequest(request),
                                                row: program, id: \.id))
            },

            Route(method: .POST, pattern: "/v1/affiliates/{affiliateId}/codes", operation: Operation(
                id: "createAffiliateCode", summary: "Give an affiliate a code for a program (customers type it into the app)",
                tag: "Affiliates", access: Access.management, requestSchema: "CreateAffiliateCodeRequest",
                responses: [.json(201, "AffiliateCode", "The code.")], maxBodyBytes: 4 * 1024, errors: [409])
            ) { request, context in
                let body = try request.decode(CreateAffiliateCodeRequest.self)
                let (affiliate, program) = try await affiliateAndProgram(context, services, programId: body.programId)
                let code = try body.code.map(normalizedCode) ?? SecureRandom.string(length: 8, alphabet: Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789"))
                let now = services.clock.nowMilliseconds()
                do {
                    try await services.store.write { db in
                        try db.execute("""
                            INSERT INTO affiliate_codes (workspace_id, code, affiliate_id, program_id, created_at)
                            VALUES (\(affiliate.workspaceId), \(code), \(affiliate.id), \(program.id), \(now))
                            """)
                    }
                } catch StoreError.conflict {
                    throw HTTPError.conflict(ErrorCode.conflict, "the code \(code) is taken in this workspace")
                }
                return try .json(AffiliateCode(code: code, affiliateId: affiliate.id, programId: program.id, createdAt: Timestamp.iso(now)), status: 201)
            },

            Route(method: .POST, pattern: "/v1/affiliates/{affiliateId}/links", operation: Operation(
                id: "createAffiliateLink", summary: "Make a link of the program's app that carries the affiliate (its click ids bind to them)",
                tag: "Affiliates", access: Access.management, requestSchema: "CreateAffiliateLinkRequest",
                responses: [.json(201, "Link", "The link.")], maxBodyBytes: 4 * 1024, errors: [409])
            ) { request, context in
                let body = try request.decode(CreateAffiliateLinkRequest.self)
                let (affiliate, program) = try await affiliateAndProgram(context, services, programId: body.programId)
                let customPath = try body.path.map(LinkValidate.path)
                let now = services.clock.nowMilliseconds()
                let link: LinkRecord = try await services.store.write { db in
                    let domain = try LinkQueries.pickDomain(db, workspaceId: affiliate.workspaceId, hostname: nil)
                    var link = LinkRecord(id: Identifier.make("lnk"), workspaceId: affiliate.workspaceId, appId: program.appId, kind: "link",
                                          domain: domain, path: customPath ?? "", createdAt: now)
                    // The branded page shows, so the app can take the signed click id from the clipboard on first launch.
                    link.interstitial = true
                    link.campaign = String(program.name.prefix(100))
                    link.channel = "affiliate"
                    link.feature = affiliate.id
                    try LinkQueries.insert(&link, db: db, custom: customPath != nil)
                    try db.execute("INSERT INTO affiliate_links (link_id, affiliate_id, program_id) VALUES (\(link.id), \(affiliate.id), \(program.id))")
                    return link
                }
                services.links.forget(link: link)
                return try .json(link.wire, status: 201)
            },
        ]
    }

    static func workspace(_ requested: String?, _ principal: Principal) throws -> String {
        guard let workspaceId = requested ?? principal.workspaceId else {
            throw HTTPError.badRequest(ErrorCode.missingField, "workspaceId is required with an admin key", field: "workspaceId")
        }
        try principal.requireWorkspace(workspaceId)
        return workspaceId
    }

    /// Codes are case-insensitive: kept in upper case, 3 to 32 letters, digits, `-` and `_`.
    static func normalizedCode(_ text: String) throws -> String {
        let code = text.uppercased()
        guard (3...32).contains(code.count), code.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw HTTPError.invalidField("code", "must be 3 to 32 letters, digits, - or _")
        }
        return code
    }

    static func affiliate(_ row: SQLRow) throws -> Affiliate {
        Affiliate(id: try row.string("id"), workspaceId: try row.string("workspace_id"), name: try row.string("name"),
                  externalId: try row.optionalString("external_id"), createdAt: Timestamp.iso(try row.int("created_at")))
    }

    static func program(_ row: SQLRow) throws -> AffiliateProgram {
        AffiliateProgram(id: try row.string("id"), workspaceId: try row.string("workspace_id"), appId: try row.string("app_id"),
                         name: try row.string("name"), commission: try CommissionRules.decode(try row.string("commission")),
                         holdDays: Int(try row.int("hold_days")), offerCode: try row.optionalString("offer_code"),
                         deferredMinutes: Int(try row.int("deferred_minutes")), createdAt: Timestamp.iso(try row.int("created_at")))
    }

    /// The path's affiliate (which the key must reach).
    static func pathAffiliate(_ context: RequestContext, _ services: ServerServices) async throws -> Affiliate {
        let principal = try context.principal()
        let id = try context.parameter("affiliateId")
        guard let affiliate = try await services.store.read({ db in
            try db.first("SELECT \(raw: affiliateColumns) FROM affiliates WHERE id = \(id)").map(affiliate)
        }) else {
            throw HTTPError.notFound(ErrorCode.notFound, "no affiliate \(id)")
        }
        try principal.requireWorkspace(affiliate.workspaceId)
        return affiliate
    }

    /// The path's affiliate and a program of the same workspace.
    static func affiliateAndProgram(_ context: RequestContext, _ services: ServerServices, programId: String) async throws -> (Affiliate, AffiliateProgram) {
        let affiliate = try await pathAffiliate(context, services)
        guard let program = try await services.store.read({ db in
            try db.first("SELECT \(raw: programColumns) FROM affiliate_programs WHERE id = \(programId)").map(program)
        }), program.workspaceId == affiliate.workspaceId else {
            throw HTTPError.invalidField("programId", "no program of the affiliate's workspace has this id")
        }
        return (affiliate, program)
    }
}
