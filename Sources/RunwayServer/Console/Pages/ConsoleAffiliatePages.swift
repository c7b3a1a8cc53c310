import Foundation
import LinkRunwayAPI
import RunwayHTTP

/// Affiliates with their balances, each one's ledger, and the payouts report as CSV.
enum AffiliatePages {
    static func list(_ context: ConsoleContext) async throws -> ConsoleResult {
        let report = try await context.api.get("/v1/reports/payouts", query: [("workspaceId", context.workspace.id)], as: PayoutReport.self)
        let affiliates = try await context.api.all("/v1/affiliates", query: [("workspaceId", context.workspace.id)], as: Affiliate.self)
        let f = context.format
        let body: Markup
        if affiliates.isEmpty {
            body = ConsoleLayout.empty("No affiliates yet.", "<p>Add one with <code>linkrunway affiliate create</code>, give them a program and a code, and their commissions on StoreKit 2 subscriptions show here.</p>")
        } else {
            let byAffiliate = Dictionary(grouping: report.rows, by: \.affiliateId)
            let rows: [[Markup]] = affiliates.flatMap { affiliate -> [[Markup]] in
                let link: Markup = "<a href=\"\(context.link("/console/affiliates/\(affiliate.id)"))\">\(affiliate.name)</a>"
                let balances = byAffiliate[affiliate.id] ?? []
                if balances.isEmpty { return [[link, "–", "–", "–", "–", "0"]] }
                return balances.map { row in
                    [link, "\(row.currency)", "\(f.money(row.pending, row.currency))", "\(f.money(row.payable, row.currency))",
                     "\(f.money(row.paid, row.currency))", "\(f.number(row.commissions))"]
                }
            }
            body = ConsoleLayout.table(["affiliate", "currency", "pending", "payable", "paid", "commissions"], rows, numericFrom: 2)
                + "<p><a href=\"\(context.link("/console/payouts.csv"))\" download=\"payouts.csv\">Download the payouts report (CSV)</a></p>"
        }
        return .page(ConsolePage(title: "Affiliates", body: body))
    }

    static func show(_ context: ConsoleContext) async throws -> ConsoleResult {
        let id = context.parameter("id")
        let balance = try await context.api.get("/v1/affiliates/\(id)/balance", as: AffiliateBalance.self)
        let affiliate = try await context.api.all("/v1/affiliates", query: [("workspaceId", context.workspace.id)], as: Affiliate.self).first { $0.id == id }
        guard let affiliate else { throw ConsoleAPIError(status: 404, code: ErrorCode.notFound, message: "not in this workspace", field: nil) }
        let ledger = try await context.api.get("/v1/affiliates/\(id)/ledger", query: [("limit", "200")], as: Page<LedgerPosting>.self)
        let f = context.format
        let balances = ConsoleLayout.table(["currency", "pending", "payable", "paid", "test money"], balance.balances.map { row in
            ["\(row.currency)", "\(f.money(row.pending, row.currency))", "\(f.money(row.payable, row.currency))", "\(f.money(row.paid, row.currency))",
             "\(row.test ? "yes" : "no")"]
        }, caption: "Balances", numericFrom: 1)
        let postings: Markup = ledger.items.isEmpty ? "<p class=\"hint\">No postings yet.</p>" : ConsoleLayout.table(
            ["when", "kind", "amounts", "transaction", "reference"], ledger.items.map { posting in
                let amounts = posting.entries.map { "\($0.account) \(f.money($0.amount, posting.currency))" }.joined(separator: "; ")
                return ["\(f.time(posting.createdAt))", "\(posting.kind)\(posting.test ? " (test)" : "")", "\(amounts)", "\(posting.transactionId ?? "–")",
                        "\(posting.reference ?? "")"]
            }, caption: "Ledger (every posting balances to zero)")
        return .page(ConsolePage(title: affiliate.name, body: balances + postings + "<p><a href=\"\(context.link("/console/affiliates"))\">All affiliates</a></p>"))
    }

    static func payoutsCSV(_ context: ConsoleContext) async throws -> ConsoleResult {
        .response(try await context.api.raw(.GET, "/v1/reports/payouts", query: [("workspaceId", context.workspace.id)], accept: "text/csv"))
    }
}
