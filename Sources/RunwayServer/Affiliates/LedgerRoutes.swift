import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayStore

/// Balances, the ledger, payouts and the payouts report. Commissions past their holding period are released to
/// payable before any of these is read.
enum LedgerRoutes {
    static func routes(_ services: ServerServices) -> [Route] {
        [
            Route(method: .GET, pattern: "/v1/affiliates/{affiliateId}/balance", operation: Operation(
                id: "affiliateBalance", summary: "An affiliate's pending, payable and paid commissions per currency (test money apart)",
                tag: "Affiliates", access: Access.management, responses: [.json(200, "AffiliateBalance", "The balances.")])
            ) { _, context in
                let affiliate = try await AffiliateRoutes.pathAffiliate(context, services)
                let now = services.clock.nowMilliseconds()
                let balances = try await services.store.write { db in
                    try Ledger.releaseDue(db, workspaceId: affiliate.workspaceId, now: now)
                    return try Ledger.balances(db, affiliateId: affiliate.id)
                }
                return try .json(AffiliateBalance(affiliateId: affiliate.id, balances: balances))
            },

            Route(method: .GET, pattern: "/v1/affiliates/{affiliateId}/ledger", operation: Operation(
                id: "affiliateLedger", summary: "An affiliate's ledger postings, oldest first, each with its balanced entries",
                tag: "Affiliates", access: Access.management, responses: [.json(200, "LedgerPostingPage", "A page of postings.")],
                query: pageQuery)
            ) { request, context in
                let affiliate = try await AffiliateRoutes.pathAffiliate(context, services)
                let page = try PageRequest(request)
                let rows = try await services.store.read { db in
                    try Ledger.postings(db, filter: " AND affiliate_id = \(affiliate.id)", limit: page.limit + 1, cursor: page.cursor)
                }
                let items = Array(rows.prefix(page.limit))
                return try .json(Page(items: items, nextCursor: rows.count > page.limit ? items.last?.id : nil))
            },

            Route(method: .POST, pattern: "/v1/affiliates/{affiliateId}/payouts", operation: Operation(
                id: "createPayout", summary: "Record a payout from the affiliate's payable balance (all of it by default)",
                tag: "Affiliates", access: Access.management, requestSchema: "CreatePayoutRequest",
                responses: [.json(201, "LedgerPosting", "The payout posting.")], maxBodyBytes: 2 * 1024, errors: [409], idempotent: true)
            ) { request, context in
                let affiliate = try await AffiliateRoutes.pathAffiliate(context, services)
                let body = try request.decode(CreatePayoutRequest.self)
                if let reference = body.reference, !(1...128).contains(reference.count) {
                    throw HTTPError.invalidField("reference", "must be 1 to 128 characters")
                }
                if let amount = body.amount, amount <= 0 { throw HTTPError.invalidField("amount", "must be positive") }
                let now = services.clock.nowMilliseconds()
                return try await IdempotencyClaim.write(services.store, context) { db in
                    // Payouts of one affiliate wait here for each other, so each reads the balance the last one left.
                    try db.execute("UPDATE affiliates SET name = name WHERE id = \(affiliate.id)")
                    try Ledger.releaseDue(db, workspaceId: affiliate.workspaceId, now: now)
                    let payable = try Ledger.balances(db, affiliateId: affiliate.id).first { $0.currency == body.currency && !$0.test }?.payable ?? 0
                    let amount = body.amount ?? payable
                    guard amount > 0, amount <= payable else {
                        throw HTTPError.conflict(ErrorCode.insufficientBalance, "the payable \(body.currency) balance is \(payable)")
                    }
                    let id = try Ledger.post(db, Ledger.Posting(workspaceId: affiliate.workspaceId, affiliateId: affiliate.id, kind: "payout",
                                                                currency: body.currency, test: false, reference: body.reference),
                                             entries: [(Ledger.payable, amount), (Ledger.payouts, -amount)], now: now)
                    return try HTTPResponse.json(try Ledger.postings(db, filter: " AND id = \(id)", limit: 1, cursor: nil)[0], status: 201)
                }
            },

            Route(method: .GET, pattern: "/v1/reports/payouts", operation: Operation(
                id: "payoutReport", summary: "What each affiliate has pending, payable and paid, per currency (live money only)",
                tag: "Reports", access: Access.management, responses: [.json(200, "PayoutReport", "The report (send Accept: text/csv for CSV).")],
                query: [QueryParameterDoc("workspaceId", "The workspace (admin keys)."), QueryParameterDoc("currency", "Only this currency.")])
            ) { request, context in
                let principal = try context.principal()
                guard let workspaceId = request.queryValue("workspaceId") ?? principal.workspaceId else {
                    throw HTTPError.badRequest(ErrorCode.invalidQuery, "workspaceId is required with an admin key", field: "workspaceId")
                }
                try principal.requireWorkspace(workspaceId)
                let currency = request.queryValue("currency")
                let now = services.clock.nowMilliseconds()
                let report = try await services.store.write { db in
                    try Ledger.releaseDue(db, workspaceId: workspaceId, now: now)
                    return try payouts(db, workspaceId: workspaceId, currency: currency)
                }
                if request.headers["Accept"]?.contains("text/csv") == true {
                    var response = HTTPResponse.text(csv(report), contentType: "text/csv; charset=utf-8")
                    response.headers.set("Content-Disposition", "attachment; filename=\"payouts.csv\"")
                    return response
                }
                return try .json(report)
            },
        ]
    }

    static func payouts(_ db: any SQLExecutor, workspaceId: String, currency: String?) throws -> PayoutReport {
        let filter: SQL = currency.map { " AND p.currency = \($0)" } ?? ""
        var rows: [String: PayoutRow] = [:]
        for row in try db.query("""
            SELECT p.affiliate_id, a.name, a.external_id, p.currency, e.account, SUM(e.amount) AS total
            FROM ledger_postings p JOIN ledger_entries e ON e.posting_id = p.id JOIN affiliates a ON a.id = p.affiliate_id
            WHERE p.workspace_id = \(workspaceId) AND p.test = 0\(filter)
            GROUP BY p.affiliate_id, a.name, a.external_id, p.currency, e.account
            """) {
            let key = try row.string("affiliate_id") + "|" + (try row.string("currency"))
            let fresh = PayoutRow(affiliateId: try row.string("affiliate_id"), name: try row.string("name"),
                                  externalId: try row.optionalString("external_id"), currency: try row.string("currency"),
                                  pending: 0, payable: 0, paid: 0, commissions: 0)
            var entry = rows[key] ?? fresh
            let total = try row.int("total")
            switch try row.string("account") {
            case Ledger.pending: entry.pending = -total
            case Ledger.payable: entry.payable = -total
            case Ledger.payouts: entry.paid = -total
            default: break
            }
            rows[key] = entry
        }
        for row in try db.query("""
            SELECT affiliate_id, currency, COUNT(*) AS n FROM commissions WHERE workspace_id = \(workspaceId) AND test = 0 AND status IN ('pending', 'payable')
            GROUP BY affiliate_id, currency
            """) {
            let key = try row.string("affiliate_id") + "|" + (try row.string("currency"))
            rows[key]?.commissions = Int(try row.int("n"))
        }
        return PayoutReport(rows: rows.values.sorted { ($0.name, $0.currency) < ($1.name, $1.currency) })
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
