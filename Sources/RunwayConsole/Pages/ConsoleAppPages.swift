import Foundation
import LinkRunwayAPI
import RunwayKit

/// The workspace's apps: listed, registered and edited (identity, attribution windows, App Attest policy); each app's
/// page also replays the App Store notifications the server missed (`AppStoreReplayForm`).
enum AppPages {
    /// Form controls and the API fields their errors come back under.
    static let fields: [String: String?] = [
        "name": nil, "teamId": nil, "bundleId": nil, "appStoreId": nil, "probabilisticMinutes": "attribution.probabilisticMinutes",
        "viewThroughHours": "attribution.viewThroughHours", "clickWindowDays": "attribution.clickWindowDays", "policy": "attestation.policy",
    ]
    static let numbers = ["probabilisticMinutes", "viewThroughHours", "clickWindowDays"]

    static func list(_ context: ConsoleContext) async throws -> ConsoleResult {
        .page(try await listPage(context, typed: [:], problems: []))
    }

    static func listPage(_ context: ConsoleContext, typed: [String: String], problems: [FormProblem]) async throws -> ConsolePage {
        let apps = try await context.apps()
        let list: Markup = apps.isEmpty ? ConsoleLayout.empty("No apps yet. Register the first one below; links, keys and reports are per app.")
            : ConsoleLayout.table(["app", "bundle id", "team", "App Store id", "probabilistic matching", "App Attest"], apps.map { app in
                ["<a href=\"\(context.link("/console/apps/\(app.id)"))\">\(app.name)</a>", "\(app.bundleId)", "\(app.teamId)", appStoreIdCell(app),
                 "\(app.attribution.probabilisticMinutes == 0 ? "off" : "\(app.attribution.probabilisticMinutes) minutes")", "\(app.attestation.policy)"]
            }, caption: "Apps of this workspace")
        let form = self.form(context, action: "/console/apps", heading: "New app", button: "Register app", typed: typed, problems: problems)
        return ConsolePage(title: "Apps", body: form + list, status: problems.isEmpty ? 200 : 400, problems: problems)
    }

    static func create(_ context: ConsoleContext) async throws -> ConsoleResult {
        let typed = typedValues(context.form)
        var problems = numberProblems(typed)
        if problems.isEmpty {
            let request = CreateAppRequest(workspaceId: context.workspace.id, name: typed["name"] ?? "", teamId: typed["teamId"] ?? "",
                                           bundleId: typed["bundleId"] ?? "", appStoreId: text(typed["appStoreId"]),
                                           attribution: attribution(typed), attestation: AttestationSettings(policy: typed["policy"] ?? "off"))
            do {
                let app = try await context.api.send(.POST, "/v1/apps", request, as: App.self)
                return .redirect(context.link("/console/apps/\(app.id)", [("notice", "Registered \(app.name).")]))
            } catch let error as ConsoleAPIError where error.status == 400 || error.status == 409 {
                problems = [FormProblem(error, fields: fields)]
            }
        }
        return .page(try await listPage(context, typed: typed, problems: problems))
    }

    static func show(_ context: ConsoleContext) async throws -> ConsoleResult {
        let app = try await self.app(context)
        return .page(try await detailPage(context, app: app, typed: values(of: app), problems: []))
    }

    /// The app's page: what a press of Replay did (first), its facts, the edit form, and the App Store replay card.
    static func detailPage(_ context: ConsoleContext, app: App, typed: [String: String], problems: [FormProblem],
                           replay: (typed: [String: String], problems: [FormProblem], outcome: NotificationReplayTotals?) = ([:], [], nil))
        async throws -> ConsolePage {
        let form = self.form(context, action: "/console/apps/\(app.id)", heading: "Edit", button: "Save", typed: typed, problems: problems)
        let facts: Markup = """
            <div class="card"><dl><dt>Id</dt><dd><code>\(app.id)</code></dd><dt>Registered</dt><dd>\(context.format.time(app.createdAt))</dd>\(routingFact(app))</dl></div>
            """
        let replayCard = try await AppStoreReplayForm.card(context, app: app, typed: replay.typed, problems: replay.problems)
        let replayed = replay.outcome.map { AppStoreReplayForm.result(context, app: app, $0) } ?? ""
        return ConsolePage(title: app.name, body: replayed + facts + form + replayCard + "<p><a href=\"\(context.link("/console/apps"))\">All apps</a></p>",
                           status: problems.isEmpty ? 200 : 400, problems: problems)
    }

    static func update(_ context: ConsoleContext) async throws -> ConsoleResult {
        let app = try await self.app(context)
        let typed = typedValues(context.form)
        var problems = numberProblems(typed)
        if problems.isEmpty {
            let change = UpdateAppRequest(name: typed["name"], teamId: typed["teamId"], bundleId: typed["bundleId"], appStoreId: text(typed["appStoreId"]),
                                          attribution: attribution(typed), attestation: AttestationSettings(policy: typed["policy"] ?? "off",
                                                                                                             environments: app.attestation.environments))
            do {
                _ = try await context.api.send(.PATCH, "/v1/apps/\(app.id)", change, as: App.self)
                return .redirect(context.link("/console/apps/\(app.id)", [("notice", "Saved.")]))
            } catch let error as ConsoleAPIError where error.status == 400 || error.status == 409 {
                problems = [FormProblem(error, fields: fields)]
            }
        }
        return .page(try await detailPage(context, app: app, typed: typed, problems: problems))
    }

    /// The App Store id, and a word when its postbacks do not come here.
    static func appStoreIdCell(_ app: App) -> Markup {
        guard let id = app.appStoreId else { return "–" }
        switch app.appStoreIdRouting {
        case "another_app": return "\(id) (another app receives its postbacks)"
        case "awaiting_proof": return "\(id) (not proven yet)"
        default: return "\(id)"
        }
    }

    /// Where the App Store id's postbacks go, said on the app's page.
    static func routingFact(_ app: App) -> Markup {
        guard let id = app.appStoreId else { return "" }
        let sentence: String
        switch app.appStoreIdRouting {
        case "this_app": sentence = "Postbacks for App Store id \(id) come to this app."
        case "another_app":
            sentence = "Another app proved App Store id \(id) and receives its postbacks. If this app is the one published under it, "
                + "prove it with an App Store notification to this app's URL, or change the id."
        default:
            sentence = "Postbacks for App Store id \(id) are kept until the app proves it: an App Store notification to this app's URL, "
                + "or a signed app transaction from the SDK."
        }
        return "<dt>App Store id</dt><dd id=\"app-store-id-routing\">\(sentence)</dd>"
    }

    /// The app named in the path, when it is the shown workspace's.
    static func app(_ context: ConsoleContext) async throws -> App {
        let app = try await context.api.get("/v1/apps/\(context.parameter("id"))", as: App.self)
        guard app.workspaceId == context.workspace.id else {
            throw ConsoleAPIError(status: 404, code: ErrorCode.notFound, message: "not in this workspace", field: nil)
        }
        return app
    }

    static func form(_ context: ConsoleContext, action: String, heading: String, button: String, typed: [String: String],
                     problems: [FormProblem]) -> Markup {
        func field(_ name: String, _ label: String, type: String = "text", hint: String? = nil, required: Bool = false) -> Markup {
            ConsoleForms.input(name, label, value: typed[name], problem: problems.first { $0.fieldId == name }.map(\.message), type: type, hint: hint,
                               required: required)
        }
        let policies = Markup.join([("off", "off: tokens are ignored"), ("optional", "optional: attested traffic is marked"),
                                    ("required", "required: unattested traffic is kept out of attribution")].map { value, label in
            let mark: Markup = typed["policy"] == value ? " selected" : ""
            return "<option value=\"\(value)\"\(mark)>\(label)</option>"
        })
        return """
            <form method="post" action="\(action)" class="card" novalidate>
            <h2>\(heading)</h2>
            \(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)">
            \(field("name", "Name", required: true))
            \(field("teamId", "Apple team id", hint: "10 characters, from the developer account", required: true))
            \(field("bundleId", "Bundle id", hint: "e.g. com.example.app", required: true))
            \(field("appStoreId", "App Store id (optional until the app is published)"))
            \(field("probabilisticMinutes", "Probabilistic matching window in minutes", hint: "0 turns it off"))
            \(field("viewThroughHours", "View-through window in hours", hint: "0 turns it off"))
            \(field("clickWindowDays", "Days a click stays usable for a referrer match"))
            <label for="policy">App Attest</label><select id="policy" name="policy">\(policies)</select>
            <button type="submit">\(button)</button>
            </form>
            """
    }

    static func values(of app: App) -> [String: String] {
        ["name": app.name, "teamId": app.teamId, "bundleId": app.bundleId, "appStoreId": app.appStoreId ?? "",
         "probabilisticMinutes": String(app.attribution.probabilisticMinutes), "viewThroughHours": String(app.attribution.viewThroughHours),
         "clickWindowDays": String(app.attribution.clickWindowDays), "policy": app.attestation.policy]
    }

    static func typedValues(_ form: FormFields) -> [String: String] {
        Dictionary(uniqueKeysWithValues: fields.keys.map { ($0, (form[$0] ?? "").trimmingCharacters(in: .whitespaces)) })
    }

    /// A problem for every window that is not a whole number (all at once).
    static func numberProblems(_ typed: [String: String]) -> [FormProblem] {
        numbers.filter { name in typed[name].map { !$0.isEmpty && Int($0) == nil } ?? false }
            .map { FormProblem(fieldId: $0, message: "\($0): must be a whole number") }
    }

    static func attribution(_ typed: [String: String]) -> AttributionSettingsUpdate {
        AttributionSettingsUpdate(probabilisticMinutes: typed["probabilisticMinutes"].flatMap { Int($0) },
                                  viewThroughHours: typed["viewThroughHours"].flatMap { Int($0) },
                                  clickWindowDays: typed["clickWindowDays"].flatMap { Int($0) })
    }

    static func text(_ value: String?) -> String? { value?.isEmpty == false ? value : nil }
}
