import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// `POST /v1/claims/apple-ads`: store the AdServices token first, answer 200 once Apple's answer is known, 202 while
/// it is not.
struct AppleAdsHandlers: Sendable {
    let services: ServerServices
    let claims: AppleAdsClaims

    init(services: ServerServices) {
        self.services = services
        var inline = services.appleAds
        inline.timeoutSeconds = min(inline.timeoutSeconds, services.settings[AppleAdsSettings.self].inlineSeconds)
        claims = AppleAdsClaims(services: services, settings: inline)
    }

    func claim(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        guard let appId = principal.appId else { throw AccessError.keyKindForbidden("needs a publishable key") }
        let body = try request.decode(AppleAdsClaimRequest.self)
        guard let installId = try Validate.installID(body.installId, field: "installId") else {
            throw RequestError.missingField("installId is required", field: "installId")
        }
        guard (1...8192).contains(body.token.utf8.count), body.token.utf8.allSatisfy({ b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b == 0x2b || b == 0x2f || b == 0x3d || b == 0x2d || b == 0x5f
        }) else {
            throw RequestError.invalidField("token", "must be the AdServices token, 1 to 8192 base64 characters")
        }
        let now = services.clock.nowMilliseconds()
        let isNew: Bool = try await services.store.write { db in
            guard let install = try AttributionQueries.install(db, appId: appId, installId: installId) else {
                throw AttributionError.installNotMatched(installId)
            }
            if try AppleAdsQueries.insertPending(db, appId: appId, installId: installId, workspaceId: install.workspaceId, token: body.token, now: now) {
                return true
            }
            // A fresher token helps while Apple has no answer. An answer is asked for again only with another token
            // (AdServices makes one when the user changes tracking consent), a few times at most; the claim stays one.
            if try AppleAdsQueries.status(db, appId: appId, installId: installId) == "pending" {
                try AppleAdsQueries.refreshToken(db, appId: appId, installId: installId, token: body.token)
                return false
            }
            return try AppleAdsQueries.renew(db, appId: appId, installId: installId, token: body.token, now: now)
        }
        if isNew { try await claims.attempt(appId: appId, installId: installId) }
        // The install can be forgotten while Apple is asked; its claim then goes with it, and the answer is as for an
        // install that is not there.
        guard let claim = try await services.store.read({ db in
            try AppleAdsQueries.claim(db, appId: appId, installId: installId, now: services.clock.nowMilliseconds())
        }) else {
            throw AttributionError.installNotMatched(installId)
        }
        return try .json(claim, status: claim.status == "pending" ? 202 : 200)
    }

    /// The report's one grouping.
    static let groupings = ["outcome"]

    func report(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let query = try ReportQuery(request, principal: principal, now: services.clock.nowMilliseconds(), groupings: Self.groupings)
        let rows = try await services.store.read { db in
            try AppleAdsQueries.report(db, workspaceId: query.workspaceId, appId: query.appId, from: query.from, to: query.to)
        }
        let report = AppleAdsReport(from: Timestamp.iso(query.from), to: Timestamp.iso(query.to), rows: rows)
        return try query.respond(request, report, csv: {
            (["outcome,conversion_type,label,claims"] + rows.map { row in
                [row.outcome, row.conversionType ?? "", row.label, String(row.claims)].map(ReportQuery.escape).joined(separator: ",")
            }).joined(separator: "\r\n") + "\r\n"
        }, filename: "apple-ads.csv")
    }
}
