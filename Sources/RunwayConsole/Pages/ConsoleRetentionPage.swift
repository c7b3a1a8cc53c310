import Foundation
import LinkRunwayAPI
import RunwayCapabilities
import RunwayHTTP
import RunwayKit

/// An app's retention messages: the rules that choose one by where the subscriber came from (edited as the JSON the
/// API takes, with the API's verdict beside it), what was shown how often and what followed, and, on request, the
/// messages Apple has with their review state.
enum RetentionPage {
    static func show(_ context: ConsoleContext) async throws -> ConsoleResult {
        let apps = try await context.apps()
        guard let app = SchemaPage.chosenApp(context, apps) else {
            return .page(ConsolePage(title: "Retention messages", body: ConsoleLayout.empty("No apps yet.", "<p><a href=\"\(context.link("/console/apps"))\">Register one</a>.</p>")))
        }
        let rules = try await context.api.get("/v1/apps/\(app.id)/retention/rules", as: RetentionRuleSet.self)
        return .page(try await page(context, apps: apps, app: app, text: pretty(rules), listMessages: context.request.queryValue("messages") == "1"))
    }

    static func save(_ context: ConsoleContext) async throws -> ConsoleResult {
        let apps = try await context.apps()
        guard let app = SchemaPage.chosenApp(context, apps) else { throw ConsoleAPIError(status: 404, code: ErrorCode.notFound, message: "no app", field: nil) }
        let text = context.form["rules"] ?? ""
        let refusal: String
        if let rules = try? JSONDecoder().decode(RetentionRuleSet.self, from: Data(text.utf8)) {
            do {
                _ = try await context.api.send(.PUT, "/v1/apps/\(app.id)/retention/rules", rules, as: RetentionRuleSet.self)
                return .redirect(context.link("/console/retention", [("app", app.id), ("notice", "Saved \(rules.rules.count) rules.")]))
            } catch let error as ConsoleAPIError where error.status == 400 {
                refusal = error.message
            }
        } else {
            refusal = "rules: must be JSON of the form {\"rules\": [{\"when\": {…}, \"answer\": {\"messageId\": …}}], \"fallback\": {\"messageId\": …}}"
        }
        var page = try await page(context, apps: apps, app: app, text: text, listMessages: false)
        page.status = 400
        page.problems = [FormProblem(fieldId: "rules", message: refusal)]
        return .page(page)
    }

    static func pretty(_ rules: RetentionRuleSet) -> String {
        var stored = rules
        stored.updatedAt = nil
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(stored)).map { String(decoding: $0, as: UTF8.self) } ?? "{\"rules\": []}"
    }

    static func page(_ context: ConsoleContext, apps: [App], app: App, text: String, listMessages: Bool) async throws -> ConsolePage {
        let report = try await context.api.get("/v1/apps/\(app.id)/retention/report", as: RetentionMessageReport.self)
        let reportTable: Markup = report.rows.isEmpty
            ? "<p class=\"hint\">No realtime requests in the last 30 days.</p>"
            : ConsoleLayout.table(["rule", "message", "environment", "shown", "late", "cancelled", "stayed", "undecided"], report.rows.map { row in
                ["\(row.rule)", "<code>\(row.messageId ?? "–")</code>", "\(row.environment)", "\(row.shown)", "\(row.late)", "\(row.cancelled)",
                 "\(row.stayed)", "\(row.undecided)"]
            }, caption: "Answers of the last 30 days, and what the subscribers did after")
        var messages: Markup = "<p><a href=\"\(context.link("/console/retention", [("app", app.id), ("messages", "1")]))\">Ask Apple for the app's messages</a></p>"
        if listMessages {
            do {
                var rows: [[Markup]] = []
                for environment in ["production", "sandbox"] {
                    let list = try await context.api.get("/v1/apps/\(app.id)/retention/messages", query: [("environment", environment)], as: RetentionMessageList.self)
                    rows += list.items.map { ["<code>\($0.messageId)</code>", "\($0.environment)", "\($0.state)", "\($0.header ?? "")", "\($0.body ?? "")"] }
                }
                messages = rows.isEmpty ? "<p class=\"hint\">Apple has no messages of this app.</p>"
                    : ConsoleLayout.table(["message", "environment", "state", "header", "body"], rows, caption: "The app's messages at Apple")
            } catch let error as ConsoleAPIError where [409, 422, 502].contains(error.status) {
                messages = "<p class=\"error\" role=\"alert\">\(error.message)</p>"
            }
        }
        let paths: [Markup] = try await context.api.get("/v1/apps/\(app.id)/app-store-surfaces", as: AppStoreSurfaceList.self).items.map {
            "<li>\($0.environment): <code>https://…\($0.retentionPath)</code></li>"
        }
        let body: Markup = """
            \(ConsolePages.appFilter(context, apps: apps, selected: app.id, allowAll: false))
            <p class="hint">When a subscriber views a subscription they may cancel, Apple asks this server which message to show and waits
            700 ms. The first rule whose conditions hold answers, else the fallback, else Apple's own default message. Apple calls, per
            environment:</p><ul>\(paths)</ul>
            <form method="post" action="/console/retention" novalidate>
            \(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)"><input type="hidden" name="app" value="\(app.id)">
            <div class="field"><label for="rules">Rules (JSON)</label>
            <textarea id="rules" name="rules" rows="16" aria-describedby="rules-hint">\(text)</textarea>
            <span class="hint" id="rules-hint">Conditions: sources (affiliate, apple_ads, link, ad, organic, unknown), affiliateIds, campaigns, linkIds,
            productIds, locales. Answers: messageId, and alternateProductId with billingPlanType for a switch-plan offer.</span></div>
            <button type="submit">Save rules</button>
            </form>
            <h2>What was shown</h2>
            \(reportTable)
            <h2>Messages</h2>
            \(messages)
            """
        return ConsolePage(title: "Retention messages", body: body)
    }
}
