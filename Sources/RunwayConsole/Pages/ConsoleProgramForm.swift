import Foundation
import LinkRunwayAPI
import RunwayCapabilities
import RunwayHTTP
import RunwayKit

/// Affiliate programs on the affiliates page: the list, and a form for a new one (commission, holding period, offer).
enum ProgramForm {
    /// Form fields and the API fields their errors come back under.
    static let errorFields = ["programName": "name", "app": "appId", "percent": "commission.basisPoints", "amount": "commission.amount",
                              "currency": "commission.currency", "months": "commission.months", "holdDays": "holdDays",
                              "offerCode": "offerCode", "deferredMinutes": "deferredMinutes"]

    static func table(_ programs: [AffiliateProgram], apps: [App], format: ConsoleFormat) -> Markup {
        guard !programs.isEmpty else { return "<p class=\"hint\">No programs yet: add one below, then give affiliates codes for it.</p>" }
        let names = Dictionary(apps.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        return ConsoleLayout.table(["program", "app", "commission", "holding period", "offer code", "stores"], programs.map { program in
            ["\(program.name)", "\(names[program.appId] ?? program.appId)", "\(describe(program.commission, format: format))",
             "\(program.holdDays) days", "\(program.offerCode ?? "–")", program.consumerStoresOnly ? "consumer only" : "all"]
        }, caption: "Programs")
    }

    static func describe(_ rule: CommissionRule, format: ConsoleFormat) -> String {
        let percent = Double(rule.basisPoints ?? 0) / 100
        let what = rule.kind == "percent" ? (percent == percent.rounded() ? "\(Int(percent))%" : "\(percent)%")
            : format.money(rule.amount ?? 0, rule.currency ?? "USD")
        switch rule.duration {
        case "first": return "\(what) of the first payment"
        case "months": return "\(what) of payments in the first \(rule.months ?? 0) months"
        default: return "\(what) of every payment"
        }
    }

    static func render(_ context: ConsoleContext, apps: [App], error: ConsoleAPIError?, typed: [String: String]) -> Markup {
        guard !apps.isEmpty else { return "" }
        func field(_ name: String, _ label: String, type: String = "text", hint: String? = nil) -> Markup {
            ConsoleForms.field(name, label, value: typed[name], error: error, errorField: errorFields[name], type: type, hint: hint)
        }
        func select(_ name: String, _ label: String, _ choices: [(String, String)]) -> Markup {
            let options = Markup.join(choices.map { value, text in
                let selected: Markup = typed[name] == value ? " selected" : ""
                return "<option value=\"\(value)\"\(selected)>\(text)</option>"
            })
            return "<label for=\"\(name)\">\(label)</label><select id=\"\(name)\" name=\"\(name)\">\(options)</select>"
        }
        return """
            <form method="post" action="/console/affiliate-programs" class="card">
            <h2>New program</h2>
            \(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)">
            <label for="app">App</label>\(ConsolePages.appSelect(apps, selected: typed["app"], allowAll: false))
            \(ConsoleForms.field("programName", "Name", value: typed["programName"], error: error, errorField: "name", required: true))
            \(select("kind", "Commission", [("percent", "a percentage of each payment"), ("fixed", "a fixed amount per payment")]))
            \(field("percent", "Percentage (for a percentage)", hint: "e.g. 30 or 12.5"))
            \(field("amount", "Amount in minor units (for a fixed amount)", hint: "e.g. 200 for 2.00"))
            \(field("currency", "Currency of the amount", hint: "ISO 4217, e.g. USD"))
            \(select("duration", "Paid on", [("lifetime", "every payment, for as long as the customer pays"), ("first", "the first payment only"),
                                             ("months", "payments in the first months")]))
            \(field("months", "Months (for the first months)"))
            \(field("holdDays", "Holding period in days", hint: "default 30; refunds inside it claw back before any payout"))
            \(field("offerCode", "Subscription offer code for referred customers (optional)"))
            <label class="check"><input type="checkbox" name="consumerStoresOnly"\(typed["consumerStoresOnly"] == "on" ? Markup(" checked") : "")> \
            consumer stores only: purchases of installs from education or enterprise stores earn nothing</label>
            <button type="submit">Add program</button>
            </form>
            """
    }

    static func create(_ context: ConsoleContext) async throws -> ConsoleResult {
        let form = context.form
        var typed: [String: String] = [:]
        for name in ["app", "programName", "kind", "percent", "amount", "currency", "duration", "months", "holdDays", "offerCode", "consumerStoresOnly"] {
            typed[name] = form[name] ?? ""
        }
        func refused(_ field: String, _ message: String) async throws -> ConsoleResult {
            .page(try await AffiliatePages.listPage(context, error: ConsoleAPIError(status: 400, code: ErrorCode.invalidField, message: message, field: field),
                                                    typed: typed))
        }
        let kind = form["kind"] ?? "percent"
        var basisPoints: Int?
        if kind == "percent" {
            // A percentage from 0.01 to 100, in basis points; anything else (1e300 among them) is refused here, before
            // it is turned into an integer.
            guard let percent = Double(form.text("percent") ?? ""), percent.isFinite, (0.01...100).contains(percent) else {
                return try await refused("commission.basisPoints", "must be a percentage such as 30 or 12.5, from 0.01 to 100")
            }
            basisPoints = Int((percent * 100).rounded())
        }
        let amount = kind == "fixed" ? form.text("amount") : nil
        guard amount.map({ Int64($0) != nil }) ?? true else { return try await refused("commission.amount", "must be a whole number of minor units") }
        let duration = form["duration"] ?? "lifetime"
        let months = duration == "months" ? form.text("months") : nil
        guard months.map({ Int($0) != nil }) ?? true else { return try await refused("commission.months", "must be a number of months") }
        let hold = form.text("holdDays")
        guard hold.map({ Int($0) != nil }) ?? true else { return try await refused("holdDays", "must be a number of days") }
        let rule = CommissionRule(kind: kind, basisPoints: basisPoints, amount: amount.flatMap { Int64($0) },
                                  currency: kind == "fixed" ? form.text("currency")?.uppercased() : nil, duration: duration,
                                  months: months.flatMap { Int($0) } ?? (duration == "months" ? 0 : nil))
        let request = CreateProgramRequest(appId: form["app"] ?? "", name: form["programName"] ?? "", commission: rule,
                                           holdDays: hold.flatMap { Int($0) }, offerCode: form.text("offerCode"),
                                           consumerStoresOnly: form["consumerStoresOnly"] == "on" ? true : nil)
        do {
            let program = try await context.api.send(.POST, "/v1/affiliate-programs", request, as: AffiliateProgram.self)
            return .redirect(context.link("/console/affiliates", [("notice", "Added the program \(program.name).")]))
        } catch let error as ConsoleAPIError where error.status == 400 {
            return .page(try await AffiliatePages.listPage(context, error: error, typed: typed))
        }
    }
}
