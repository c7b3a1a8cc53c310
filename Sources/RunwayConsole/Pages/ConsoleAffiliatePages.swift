import Foundation
import LinkRunwayAPI
import RunwayCapabilities
import RunwayCrypto
import RunwayHTTP
import RunwayKit

/// Affiliates with their balances, each one's ledger, and the payouts report as CSV; affiliates and programs added,
/// codes given and payouts recorded in forms.
enum AffiliatePages {
    static func list(_ context: ConsoleContext) async throws -> ConsoleResult {
        .page(try await listPage(context, error: nil, typed: [:]))
    }

    /// `typed` holds what was sent back with `error`; it names a program field when the program form failed.
    static func listPage(_ context: ConsoleContext, error: ConsoleAPIError?, typed: [String: String]) async throws -> ConsolePage {
        let programError = typed["programName"] != nil ? error : nil
        let error = programError == nil ? error : nil
        let apps = try await context.apps()
        let programs = try await context.api.all("/v1/affiliate-programs", query: [("workspaceId", context.workspace.id)], as: AffiliateProgram.self)
        let report = try await context.api.get("/v1/reports/payouts", query: [("workspaceId", context.workspace.id)], as: PayoutReport.self)
        let affiliates = try await context.api.all("/v1/affiliates", query: [("workspaceId", context.workspace.id)], as: Affiliate.self)
        let f = context.format
        let body: Markup
        if affiliates.isEmpty {
            body = ConsoleLayout.empty("No affiliates yet.", "<p>Add a program and an affiliate below, give the affiliate a code for the program, and their commissions on StoreKit 2 subscriptions show here.</p>")
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
            body = ConsoleLayout.table(["affiliate", "currency", "pending", "payable", "paid", "commissions"], rows,
                                       caption: "Affiliates and their balances", numericFrom: 2)
                + "<p><a href=\"\(context.link("/console/payouts.csv"))\" download=\"payouts.csv\">Download the payouts report (CSV)</a></p>"
        }
        let form: Markup = """
            <form method="post" action="/console/affiliates" class="card">
            <h2>New affiliate</h2>
            \(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)">
            \(ConsoleForms.field("name", "Name", value: typed["name"], error: error, required: true))
            \(ConsoleForms.field("externalId", "Your reference for them (optional)", value: typed["externalId"], error: error))
            <button type="submit">Add affiliate</button>
            </form>
            """
        let programSection = ProgramForm.table(programs, apps: apps, format: f) + ProgramForm.render(context, apps: apps, error: programError, typed: typed)
        return ConsolePage(title: "Affiliates", body: body + form + programSection, status: error == nil && programError == nil ? 200 : 400,
                           problems: error.map { [FormProblem($0, fields: ["name": nil, "externalId": nil])] }
                            ?? programError.map { [FormProblem($0, fields: ProgramForm.errorFields)] } ?? [])
    }

    static func create(_ context: ConsoleContext) async throws -> ConsoleResult {
        let form = context.form
        let request = CreateAffiliateRequest(workspaceId: context.workspace.id, name: form["name"] ?? "", externalId: form.text("externalId"))
        do {
            let affiliate = try await context.api.send(.POST, "/v1/affiliates", request, as: Affiliate.self)
            return .redirect(context.link("/console/affiliates/\(affiliate.id)", [("notice", "Added \(affiliate.name).")]))
        } catch let error as ConsoleAPIError where error.status == 400 {
            return .page(try await listPage(context, error: error, typed: ["name": form["name"] ?? "", "externalId": form["externalId"] ?? ""]))
        }
    }

    static func show(_ context: ConsoleContext) async throws -> ConsoleResult {
        .page(try await detailPage(context, error: nil, form: nil))
    }

    /// The affiliate's page; `form` names the form an error belongs to (`payout` or `code`).
    static func detailPage(_ context: ConsoleContext, error: ConsoleAPIError?, form: String?) async throws -> ConsolePage {
        let id = context.parameter("id")
        let balance = try await context.api.get("/v1/affiliates/\(id)/balance", as: AffiliateBalance.self)
        let affiliate = try await context.api.all("/v1/affiliates", query: [("workspaceId", context.workspace.id)], as: Affiliate.self).first { $0.id == id }
        guard let affiliate else { throw ConsoleAPIError(status: 404, code: ErrorCode.notFound, message: "not in this workspace", field: nil) }
        let ledger = try await context.api.get("/v1/affiliates/\(id)/ledger", query: [("limit", "200")], as: Page<LedgerPosting>.self)
        let programs = try await context.api.all("/v1/affiliate-programs", query: [("workspaceId", context.workspace.id)], as: AffiliateProgram.self)
        let codes = try await context.api.get("/v1/affiliates/\(id)/codes", as: Page<AffiliateCode>.self).items
        let f = context.format
        let programNames = Dictionary(programs.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        let codeList: Markup = codes.isEmpty ? "<p class=\"hint\">No codes yet: give one below.</p>" : ConsoleLayout.table(
            ["code", "program", "given"], codes.map { code in
                ["<code>\(code.code)</code>", "\(programNames[code.programId] ?? code.programId)", "\(f.time(code.createdAt))"]
            }, caption: "Codes customers type into the app")
        let balances: Markup = balance.balances.isEmpty ? "<p class=\"hint\">No commissions yet: they appear when a customer who used one of this affiliate's codes or links pays.</p>" : ConsoleLayout.table(["currency", "pending", "payable", "paid", "test money"], balance.balances.map { row in
            ["\(row.currency)", "\(f.money(row.pending, row.currency))", "\(f.money(row.payable, row.currency))", "\(f.money(row.paid, row.currency))",
             "\(row.test ? "yes" : "no")"]
        }, caption: "Balances", numericFrom: 1)
        let postings: Markup = ledger.items.isEmpty ? "<p class=\"hint\">No postings yet.</p>" : ConsoleLayout.table(
            ["when", "kind", "amounts", "commitment", "transaction", "reference"], ledger.items.map { posting in
                let amounts = posting.entries.map { "\($0.account) \(f.money($0.amount, posting.currency))" }.joined(separator: "; ")
                return ["\(f.time(posting.createdAt))", "\(posting.kind)\(posting.test ? " (test)" : "")", "\(amounts)",
                        "\(commitment(posting.commitment, currency: posting.currency, f))", "\(posting.transactionId ?? "–")", "\(posting.reference ?? "")"]
            }, caption: "Ledger (every posting balances to zero)")
        let payable = balance.balances.filter { !$0.test && $0.payable > 0 }
        let payout: Markup = payable.isEmpty ? "<div class=\"card\"><h2>Record a payout</h2><p class=\"hint\">Nothing is payable yet: commissions become payable when their holding period ends.</p></div>" : """
            <form method="post" action="/console/affiliates/\(id)/payouts" class="card">
            <h2>Record a payout</h2>
            <p class="hint">Record money you have sent them; it moves out of the payable balance.</p>
            \(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)">
            <input type="hidden" name="once" value="\(SecureRandom.string(length: 24, alphabet: SecureRandom.base62))">
            <label for="currency">Currency</label>
            <select id="currency" name="currency">\(Markup.join(payable.map { "<option value=\"\($0.currency)\">\($0.currency) (payable \(f.money($0.payable, $0.currency)))</option>" }))</select>
            \(ConsoleForms.field("amount", "Amount in minor units (cents); empty pays everything payable", value: nil, error: form == "payout" ? error : nil))
            \(ConsoleForms.field("reference", "Your payment reference (optional)", value: nil, error: form == "payout" ? error : nil))
            <button type="submit">Record payout</button>
            </form>
            """
        let code: Markup = programs.isEmpty ? "<div class=\"card\"><h2>Give a code</h2><p class=\"hint\">No programs yet: add one on the affiliates page.</p></div>" : """
            <form method="post" action="/console/affiliates/\(id)/codes" class="card">
            <h2>Give a code</h2>
            <p class="hint">Customers type the code into the app; their subscriptions then earn this affiliate commissions.</p>
            \(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)">
            <label for="programId">Program</label>
            <select id="programId" name="programId">\(Markup.join(programs.map { "<option value=\"\($0.id)\">\($0.name)</option>" }))</select>
            \(ConsoleForms.field("code", "Code (optional; one is made up when empty)", value: nil, error: form == "code" ? error : nil))
            <button type="submit">Give code</button>
            </form>
            """
        return ConsolePage(title: affiliate.name, body: balances + codeList + postings + payout + code
                           + "<p><a href=\"\(context.link("/console/affiliates"))\">All affiliates</a></p>", status: error?.status ?? 200,
                           problems: error.map { [FormProblem($0, fields: form == "payout" ? ["amount": nil, "reference": nil, "currency": nil] : ["code": nil, "programId": nil])] } ?? [])
    }

    /// Beside one payment's commission on a monthly plan with a 12-month commitment: which payment it is, and what the
    /// whole commitment earns (Apple's `commitmentInfo`); "–" for any other posting.
    static func commitment(_ commitment: CommissionCommitment?, currency: String, _ f: ConsoleFormat) -> String {
        guard let commitment else { return "–" }
        var parts: [String] = []
        if let number = commitment.billingPeriodNumber, let total = commitment.totalBillingPeriods { parts.append("payment \(number) of \(total)") }
        if let committed = commitment.committedAmount { parts.append("\(f.money(committed, currency)) committed in all") }
        if let ends = commitment.expiresAt { parts.append("until \(f.time(ends))") }
        return parts.isEmpty ? (commitment.billingPlanType ?? "–") : parts.joined(separator: ", ")
    }

    static func recordPayout(_ context: ConsoleContext) async throws -> ConsoleResult {
        let form = context.form
        let amount = form.text("amount")
        guard amount.map({ Int64($0) != nil }) ?? true else {
            return .page(try await detailPage(context, error: ConsoleAPIError(status: 400, code: ErrorCode.invalidField,
                                                                          message: "must be a whole number of minor units (cents)", field: "amount"), form: "payout"))
        }
        let request = CreatePayoutRequest(currency: form["currency"] ?? "", amount: amount.flatMap { Int64($0) }, reference: form.text("reference"))
        do {
            // The form's one-time token keys the call, so a form sent twice (a double click, a reload) records once.
            let once = form.text("once").map { "console-payout-" + $0.prefix(64) }
            let posting = try await context.api.send(.POST, "/v1/affiliates/\(context.parameter("id"))/payouts", request, as: LedgerPosting.self,
                                                     idempotencyKey: once)
            let paid = posting.entries.first { $0.amount < 0 }.map { context.format.money(-$0.amount, posting.currency) } ?? ""
            return .redirect(context.link("/console/affiliates/\(context.parameter("id"))", [("notice", "Recorded a payout of \(paid).")]))
        } catch let error as ConsoleAPIError where error.status == 400 || error.status == 409 {
            return .page(try await detailPage(context, error: error, form: "payout"))
        }
    }

    static func giveCode(_ context: ConsoleContext) async throws -> ConsoleResult {
        let form = context.form
        let request = CreateAffiliateCodeRequest(programId: form["programId"] ?? "", code: form.text("code"))
        do {
            let code = try await context.api.send(.POST, "/v1/affiliates/\(context.parameter("id"))/codes", request, as: AffiliateCode.self)
            return .redirect(context.link("/console/affiliates/\(context.parameter("id"))", [("notice", "Gave the code \(code.code).")]))
        } catch let error as ConsoleAPIError where error.status == 400 || error.status == 409 {
            return .page(try await detailPage(context, error: error, form: "code"))
        }
    }

    static func payoutsCSV(_ context: ConsoleContext) async throws -> ConsoleResult {
        .response(try await context.api.raw(.GET, "/v1/reports/payouts", query: [("workspaceId", context.workspace.id)], accept: "text/csv"))
    }
}
