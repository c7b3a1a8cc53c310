import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// Balances, the ledger, payouts and the payouts report. Commissions past their holding period are released to
/// payable before any of these is read.
struct LedgerHandlers: Sendable {
    let services: ServerServices
    /// Whose `pathAffiliate` finds the path's affiliate.
    let affiliates: AffiliateHandlers

    func balance(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let affiliate = try await affiliates.pathAffiliate(context)
        let now = services.clock.nowMilliseconds()
        let balances = try await services.store.write { db in
            try Ledger.releaseDue(db, workspaceId: WorkspaceId(affiliate.workspaceId), now: now)
            return try Ledger.balances(db, affiliateId: AffiliateId(affiliate.id))
        }
        return try .json(AffiliateBalance(affiliateId: affiliate.id, balances: balances))
    }

    func ledger(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let affiliate = try await affiliates.pathAffiliate(context)
        let page = try PageRequest(request)
        let rows = try await services.store.read { db in
            try AffiliateQueries.postings(db, affiliateId: AffiliateId(affiliate.id), limit: page.limit + 1, cursor: page.cursor)
        }
        let items = Array(rows.prefix(page.limit))
        return try .json(Page(items: items, nextCursor: rows.count > page.limit ? items.last?.id : nil))
    }

    func createPayout(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let affiliate = try await affiliates.pathAffiliate(context)
        let body = try request.decode(CreatePayoutRequest.self)
        if let reference = body.reference, !(1...128).contains(reference.count) {
            throw RequestError.invalidField("reference", "must be 1 to 128 characters")
        }
        if let amount = body.amount, amount <= 0 { throw RequestError.invalidField("amount", "must be positive") }
        let now = services.clock.nowMilliseconds()
        return try await IdempotencyClaim.write(services.store, context) { db in
            // Payouts of one affiliate wait here for each other, so each reads the balance the last one left.
            try AffiliateQueries.lockAffiliate(db, id: affiliate.id)
            try Ledger.releaseDue(db, workspaceId: WorkspaceId(affiliate.workspaceId), now: now)
            let payable = try Ledger.balances(db, affiliateId: AffiliateId(affiliate.id)).first { $0.currency == body.currency && !$0.test }?.payable ?? 0
            let amount = body.amount ?? payable
            guard amount > 0, amount <= payable else {
                throw AffiliatesError.insufficientBalance(currency: body.currency, payable: payable)
            }
            let id = try Ledger.post(db, Ledger.Posting(workspaceId: WorkspaceId(affiliate.workspaceId), affiliateId: AffiliateId(affiliate.id),
                                                        kind: .payout, currency: body.currency, test: false, reference: body.reference),
                                     entries: [(.payable, amount), (.payouts, -amount)], now: now)
            return try HTTPResponse.json(try AffiliateQueries.posting(db, id: id), status: 201)
        }
    }

    func payoutReport(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let workspaceId = WorkspaceId(try principal.actingWorkspace(request.queryValue("workspaceId"), inQuery: true))
        let currency = request.queryValue("currency")
        let now = services.clock.nowMilliseconds()
        let report = try await services.store.write { db in
            try Ledger.releaseDue(db, workspaceId: workspaceId, now: now)
            return try AffiliateQueries.payouts(db, workspaceId: workspaceId, currency: currency)
        }
        if request.headers["Accept"]?.contains("text/csv") == true {
            var response = HTTPResponse.text(Self.csv(report), contentType: "text/csv; charset=utf-8")
            response.headers.set("Content-Disposition", "attachment; filename=\"payouts.csv\"")
            return response
        }
        return try .json(report)
    }

    static func csv(_ report: PayoutReport) -> String {
        var lines = ["affiliate_id,name,external_id,currency,pending,payable,paid,commissions"]
        for row in report.rows {
            lines.append([row.affiliateId, ReportQuery.escape(row.name), ReportQuery.escape(row.externalId ?? ""), row.currency,
                          String(row.pending), String(row.payable), String(row.paid), String(row.commissions)].joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}
