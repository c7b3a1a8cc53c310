import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayKit
import RunwayStore

/// `/v1/affiliates` and `/v1/affiliate-programs`: who refers, on what terms, and the codes and links they share.
struct AffiliateHandlers: Sendable {
    let services: ServerServices

    func create(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let body = try request.decode(CreateAffiliateRequest.self)
        let workspaceId = try principal.actingWorkspace(body.workspaceId)
        let name = try Validate.name(body.name)
        if let external = body.externalId, !(1...128).contains(external.count) {
            throw RequestError.invalidField("externalId", "must be 1 to 128 characters")
        }
        let now = services.clock.nowMilliseconds()
        let affiliate = Affiliate(id: Identifier.make("aff"), workspaceId: workspaceId, name: name, externalId: body.externalId,
                                  createdAt: Timestamp.iso(now))
        do {
            try await services.store.write { db in try AffiliateQueries.insertAffiliate(db, affiliate, now: now) }
        } catch StoreError.constraint {
            throw RequestError.invalidField("workspaceId", "no workspace has this id")
        }
        return try .json(affiliate, status: 201)
    }

    func list(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        return try .json(await readPage(services.store, table: "affiliates", columns: AffiliateRows.AffiliateRow.columns,
                                        filter: try await principal.workspaceFilter(request, in: services.store), page: try PageRequest(request),
                                        as: AffiliateRows.AffiliateRow.self, wire: \.wire, id: \.id))
    }

    func createProgram(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let body = try request.decode(CreateProgramRequest.self)
        guard let app = try await services.apps.app(id: body.appId) else { throw RequestError.invalidField("appId", "no app has this id") }
        try principal.requireWorkspace(app.workspaceId)
        let name = try Validate.name(body.name)
        let rule = try CommissionRules.validate(body.commission)
        let hold = body.holdDays ?? 30
        guard (0...365).contains(hold) else { throw RequestError.invalidField("holdDays", "must be 0 to 365") }
        let deferred = body.deferredMinutes ?? 60
        guard (1...10_080).contains(deferred) else { throw RequestError.invalidField("deferredMinutes", "must be 1 to 10080 (a week)") }
        if let offer = body.offerCode, !(1...64).contains(offer.count) || !offer.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
            throw RequestError.invalidField("offerCode", "must be 1 to 64 letters and digits")
        }
        let now = services.clock.nowMilliseconds()
        let program = AffiliateProgram(id: Identifier.make("prg"), workspaceId: app.workspaceId, appId: app.id, name: name, commission: rule,
                                       holdDays: hold, offerCode: body.offerCode, deferredMinutes: deferred,
                                       consumerStoresOnly: body.consumerStoresOnly ?? false, createdAt: Timestamp.iso(now))
        let encoded = try CommissionRules.encode(rule)
        try await services.store.write { db in try AffiliateQueries.insertProgram(db, program, encodedCommission: encoded, now: now) }
        return try .json(program, status: 201)
    }

    func listPrograms(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        return try .json(await readPage(services.store, table: "affiliate_programs", columns: AffiliateRows.ProgramRow.columns,
                                        filter: try await principal.workspaceFilter(request, in: services.store), page: try PageRequest(request),
                                        as: AffiliateRows.ProgramRow.self, wire: { try $0.wire() }, id: \.id))
    }

    func createCode(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let body = try request.decode(CreateAffiliateCodeRequest.self)
        let (affiliate, program) = try await affiliateAndProgram(context, programId: body.programId)
        let code = try body.code.map(Self.normalizedCode) ?? SecureRandom.string(length: 8, alphabet: Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789"))
        let now = services.clock.nowMilliseconds()
        do {
            try await services.store.write { db in
                try AffiliateQueries.insertCode(db, workspaceId: WorkspaceId(affiliate.workspaceId), code: code, affiliateId: AffiliateId(affiliate.id),
                                                programId: ProgramId(program.id), now: now)
            }
        } catch StoreError.conflict {
            throw AffiliatesError.codeTaken(code)
        }
        return try .json(AffiliateCode(code: code, affiliateId: affiliate.id, programId: program.id, createdAt: Timestamp.iso(now)), status: 201)
    }

    func listCodes(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let affiliate = try await pathAffiliate(context)
        let codes = try await services.store.read { db in try AffiliateQueries.codes(db, affiliateId: affiliate.id) }
        return try .json(Page(items: codes, nextCursor: nil))
    }

    func createLink(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let body = try request.decode(CreateAffiliateLinkRequest.self)
        let (affiliate, program) = try await affiliateAndProgram(context, programId: body.programId)
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
            try AffiliateQueries.insertLink(db, linkId: link.id, affiliateId: affiliate.id, programId: program.id)
            return link
        }
        services.links.forget(link: link)
        return try .json(link.wire(services), status: 201)
    }

    /// Codes are case-insensitive: kept in upper case, 3 to 32 letters, digits, `-` and `_`.
    static func normalizedCode(_ text: String) throws -> String {
        let code = text.uppercased()
        guard (3...32).contains(code.count), code.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw RequestError.invalidField("code", "must be 3 to 32 letters, digits, - or _")
        }
        return code
    }

    /// The path's affiliate (which the key must reach).
    func pathAffiliate(_ context: RequestContext) async throws -> Affiliate {
        let principal = try context.principal()
        let id = try context.parameter("affiliateId")
        guard let affiliate = try await services.store.read({ db in try AffiliateQueries.affiliate(db, id: id) }) else {
            throw RequestError.notFound("no affiliate \(id)")
        }
        try principal.requireWorkspace(affiliate.workspaceId)
        return affiliate
    }

    /// The path's affiliate and a program of the same workspace.
    func affiliateAndProgram(_ context: RequestContext, programId: String) async throws -> (Affiliate, AffiliateProgram) {
        let affiliate = try await pathAffiliate(context)
        guard let program = try await services.store.read({ db in try AffiliateQueries.program(db, id: programId) }),
              program.workspaceId == affiliate.workspaceId else {
            throw RequestError.invalidField("programId", "no program of the affiliate's workspace has this id")
        }
        return (affiliate, program)
    }
}
