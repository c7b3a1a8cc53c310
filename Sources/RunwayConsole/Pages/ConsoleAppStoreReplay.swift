import Foundation
import LinkRunwayAPI
import RunwayKit

/// The app page's Replay button: App Store notifications the server missed, fetched from Apple's notification history
/// and processed as if they had just arrived, through `POST /v1/apps/{id}/app-store/replay` page after page, as
/// `linkrunway app-store replay` does. One already processed comes back as a duplicate and changes nothing, so pressing
/// it twice is safe.
enum AppStoreReplayForm {
    /// Pages one press follows (20 notifications each); Apple's token for the rest rides in a Continue button.
    static let pagesPerPress = 10
    /// Form controls and the API fields their errors come back under.
    static let fields: [String: String?] = ["since": nil, "environment": nil]

    /// The card on the app's page: the form when the app has an In-App Purchase key, else how to give it one.
    static func card(_ context: ConsoleContext, app: App, typed: [String: String], problems: [FormProblem]) async throws -> Markup {
        let key = try await context.api.get("/v1/apps/\(app.id)/app-store-key", as: AppStoreKeyStatus.self)
        let intro: Markup = """
            <h2>Missed App Store notifications</h2>
            <p class="hint">Apple retries a production notification for three days and sends a sandbox one once. Replaying fetches what
            Apple sent in a span from its history (180 days of production, 30 of sandbox) and processes each notification as if it had
            just arrived; one processed before is a duplicate and changes nothing.</p>
            """
        guard key.configured else {
            return """
                <div class="card">\(intro)<p>Replaying needs the app's In-App Purchase key, which this app does not have yet:
                <code>linkrunway app-store key set --app \(app.id) --key-file AuthKey_….p8 --issuer-id …</code>
                (<a href="https://developer.apple.com/documentation/appstoreserverapi/get-notification-history">Get Notification History</a>).</p></div>
                """
        }
        let since = typed["since"].flatMap { $0.isEmpty ? nil : $0 }
            ?? String(Timestamp.iso(context.services.clock.nowMilliseconds() - 7 * 86_400_000).prefix(10))
        let environment = typed["environment"] ?? "production"
        let options = Markup.join(["production", "sandbox"].map { value in
            let mark: Markup = value == environment ? " selected" : ""
            return "<option value=\"\(value)\"\(mark)>\(value)</option>"
        })
        let envProblem = inline(problems, "environment")
        let envMarks: Markup = envProblem == nil ? "" : " aria-invalid=\"true\" aria-describedby=\"environment-error\""
        let envError: Markup = envProblem.map { "<span class=\"error\" id=\"environment-error\">\($0)</span>" } ?? ""
        return """
            <form method="post" action="/console/apps/\(app.id)/app-store/replay" class="card replay" novalidate>
            \(intro)
            <p class="hint">Apple is asked with the app's In-App Purchase key \(key.keyId ?? "") (issuer \(key.issuerId ?? "")).</p>
            \(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)">
            \(ConsoleForms.input("since", "Since", value: since, problem: inline(problems, "since"),
                                 hint: "A UTC day such as 2026-11-20, or an ISO 8601 time; the span runs to now", required: true))
            <div class="field"><label for="environment">Apple's environment</label>
            <select id="environment" name="environment"\(envMarks)>\(options)</select>\(envError)</div>
            <button type="submit">Replay</button>
            </form>
            """
    }

    /// The counts of a press, each refusal, and a Continue button while Apple has more (at the top of the app's page).
    static func result(_ context: ConsoleContext, app: App, _ outcome: NotificationReplayTotals) -> Markup {
        let summary: Markup = """
            <p class="notice" role="status">Replayed Apple's \(outcome.environment) history from \(context.format.time(outcome.since)) to
            \(context.format.time(outcome.until)) at surface <code>\(outcome.surfaceId)</code>: \(outcome.counts).</p>
            """
        let refusals: Markup = outcome.refusals.isEmpty ? "" : ConsoleLayout.table(
            ["notification", "code", "why"], outcome.refusals.map { ["<code>\($0.notificationUUID ?? "(unreadable)")</code>", "\($0.code)", "\($0.message)"] },
            caption: "Notifications the surface refused")
        guard let token = outcome.paginationToken else { return summary + refusals }
        let more: Markup = """
            <form method="post" action="/console/apps/\(app.id)/app-store/replay" class="inline">
            \(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)">
            <input type="hidden" name="since" value="\(outcome.since)"><input type="hidden" name="until" value="\(outcome.until)">
            <input type="hidden" name="environment" value="\(outcome.environment)"><input type="hidden" name="paginationToken" value="\(token)">
            <p class="hint">Apple has more in this span.</p><button type="submit">Continue replaying</button>
            </form>
            """
        return summary + refusals + more
    }

    /// Up to `pagesPerPress` pages of the span; what they did is shown on the app's page, with the API's refusal if one came.
    static func replay(_ context: ConsoleContext) async throws -> ConsoleResult {
        let app = try await AppPages.app(context)
        let form = context.form
        let typed = ["since": (form["since"] ?? "").trimmingCharacters(in: .whitespaces), "environment": form["environment"] ?? "production"]
        var outcome = NotificationReplayTotals()
        var problems: [FormProblem] = []
        var status = 200
        if let since = moment(typed["since"] ?? "") {
            var until = form.text("until"), token = form.text("paginationToken")
            do {
                repeat {
                    let page = try await context.api.send(.POST, "/v1/apps/\(app.id)/app-store/replay",
                                                          ReplayNotificationsRequest(environment: typed["environment"], since: since, until: until,
                                                                                     paginationToken: token), as: NotificationReplayPage.self)
                    outcome.add(page)
                    // Later pages ask for the span the first one fixed.
                    (until, token) = (page.until, page.paginationToken)
                } while token != nil && outcome.pages < pagesPerPress
            } catch let error as ConsoleAPIError where [400, 409, 502].contains(error.status) {
                problems = [FormProblem(error, fields: fields)]
                status = error.status
            }
        } else {
            problems = [FormProblem(fieldId: "since", message: "since: must be a UTC day (YYYY-MM-DD) or an ISO 8601 time")]
            status = 400
        }
        var page = try await AppPages.detailPage(context, app: app, typed: AppPages.values(of: app), problems: [],
                                                 replay: (typed, problems, outcome.pages > 0 ? outcome : nil))
        page.status = status
        page.problems = problems
        return .page(page)
    }

    /// A day is its start, UTC; an ISO 8601 time as it is.
    static func moment(_ text: String) -> String? {
        if let start = ISOTime.dayStart(text) { return Timestamp.iso(start) }
        return ISOTime.milliseconds(text) != nil ? text : nil
    }

    /// The problem shown beside a control: its message without the field it names first.
    static func inline(_ problems: [FormProblem], _ field: String) -> String? {
        problems.first { $0.fieldId == field }.map { $0.message.hasPrefix(field + ": ") ? String($0.message.dropFirst(field.count + 2)) : $0.message }
    }
}
