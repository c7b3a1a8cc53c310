import Foundation
import LinkRunwayAPI
import RunwayCapabilities
import RunwayHTTP
import RunwayKit

/// The workspace's keys: created (the secret shown once, on the page that made it) and revoked.
enum KeyPages {
    static func list(_ context: ConsoleContext) async throws -> ConsoleResult {
        .page(try await page(context, created: nil, error: nil))
    }

    static func page(_ context: ConsoleContext, created: CreatedKey?, error: ConsoleAPIError?) async throws -> ConsolePage {
        let keys = try await context.api.all("/v1/keys", query: [("workspaceId", context.workspace.id)], as: APIKey.self)
        let apps = try await context.apps()
        let names = Dictionary(apps.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        // Who made each key: a console user by their email, a key by its name.
        let users = try await context.api.all("/v1/users", query: [("workspaceId", context.workspace.id)], as: ConsoleUser.self)
        let makers = Dictionary(users.map { ($0.id, $0.email) } + keys.map { ($0.id, "key “\($0.name)”") }, uniquingKeysWith: { a, _ in a })
        let f = context.format
        let secret: Markup = created.map { created in
            """
            <div class="card" role="status"><h2>Copy this key now</h2>
            <p>It is shown only on this page; LinkRunway keeps only its hash.</p>
            <p class="secret">\(created.secret)</p></div>
            """
        } ?? ""
        let rows: [[Markup]] = keys.filter { $0.workspaceId == context.workspace.id }.map { key in
            let action: Markup = key.revokedAt == nil ? """
                <form method="post" action="/console/keys/\(key.id)/revoke" class="inline">\(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)">
                <button type="submit" class="danger" aria-label="Revoke \(key.name)">Revoke</button></form>
                """ : "revoked \(f.time(key.revokedAt))"
            let maker = key.createdBy.map { makers[$0] ?? "a removed user or another workspace's key" } ?? "first start"
            return ["\(key.name)", "\(key.kind.rawValue)", "<code>\(key.displayPrefix)…</code>", "\(key.appId.flatMap { names[$0] } ?? "–")",
                    "\(maker)", "\(f.time(key.createdAt))", action]
        }
        let list: Markup = rows.isEmpty ? ConsoleLayout.empty("No keys in this workspace yet. Create a publishable key for the app and a server key for your backend below.")
            : ConsoleLayout.table(["name", "kind", "starts with", "app", "made by", "created", ConsoleLayout.actions], rows, caption: "Keys of this workspace")
        let form: Markup = """
            <form method="post" action="/console/keys" class="card">
            <h2>New key</h2>
            \(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)">
            <label for="kind">Kind</label>
            <select id="kind" name="kind"><option value="publishable">publishable: for one app, safe to ship in it</option><option value="server">server: for your backend, this workspace</option></select>
            <label for="app">App (publishable keys)</label>\(ConsolePages.appSelect(apps, selected: nil, allowAll: false))
            \(ConsoleForms.field("name", "Name, to recognise it by", value: nil, error: error))
            <button type="submit">Create key</button>
            </form>
            """
        return ConsolePage(title: "Keys", body: secret + list + form, status: error == nil ? 200 : 400,
                           problems: error.map { [FormProblem($0, fields: ["kind": nil, "name": nil, "app": "appId"])] } ?? [])
    }

    static func create(_ context: ConsoleContext) async throws -> ConsoleResult {
        let form = context.form
        guard let kind = KeyKind(rawValue: form["kind"] ?? ""), kind != .admin else {
            return .page(try await page(context, created: nil, error: ConsoleAPIError(status: 400, code: ErrorCode.invalidField,
                                                                                      message: "choose publishable or server", field: "kind")))
        }
        let request = CreateKeyRequest(kind: kind, name: form.text("name"), workspaceId: kind == .server ? context.workspace.id : nil,
                                       appId: kind == .publishable ? form.text("app") : nil)
        do {
            let created = try await context.api.send(.POST, "/v1/keys", request, as: CreatedKey.self)
            var page = try await page(context, created: created, error: nil)
            page.status = 201
            return .page(page)
        } catch let error as ConsoleAPIError where error.status == 400 || error.status == 403 {
            return .page(try await page(context, created: nil, error: error))
        }
    }

    static func revoke(_ context: ConsoleContext) async throws -> ConsoleResult {
        let key = try await context.api.send(.POST, "/v1/keys/\(context.parameter("id"))/revoke", EmptyRequest(), as: APIKey.self)
        return .redirect(context.link("/console/keys", [("notice", "Revoked \(key.name).")]))
    }

    struct EmptyRequest: Codable {}
}

/// One install: how it was attributed (rules, candidates, winner) and what it did since.
enum InstallPage {
    static func show(_ context: ConsoleContext) async throws -> ConsoleResult {
        let id = context.request.queryValue("id")?.trimmingCharacters(in: .whitespaces) ?? ""
        let search: Markup = """
            <form method="get" class="inline filter"><input type="hidden" name="ws" value="\(context.workspace.id)">
            <label for="id">Install id</label> <input id="id" name="id" value="\(id)" autocomplete="off"> <button type="submit">Look up</button></form>
            """
        guard !id.isEmpty else {
            return .page(ConsolePage(title: "Installs", body: search + (try await InstallListPage.body(context))))
        }
        let export: InstallExport
        do {
            export = try await context.api.get("/v1/installs/\(id)/export", as: InstallExport.self)
            // An admin reaches every workspace; the page shows only the one chosen.
            let apps = Set(try await context.apps().map(\.id))
            if let app = export.attribution?.match.appId ?? export.events.first.map({ _ in "" }), !apps.contains(app) {
                throw ConsoleAPIError(status: 404, code: ErrorCode.notFound, message: "not in this workspace", field: nil)
            }
        } catch let error as ConsoleAPIError where error.status == 404 || error.status == 403 || error.status == 400 {
            return .page(ConsolePage(title: "Installs", body: search + ConsoleLayout.empty("No install \(id) in this workspace."), status: 404))
        }
        let f = context.format
        var body = search
        if let explanation = export.attribution {
            let match = explanation.match
            body = body + """
                <div class="card"><h2>Attribution</h2>
                <p><strong>\(match.method)</strong> (confidence \(String(format: "%.2f", match.confidence))), source \(match.source)\(match.linkId.map { ", link \($0)" } ?? "")\(match.campaign.map { ", campaign \($0)" } ?? ""), matched \(f.time(match.matchedAt))\(explanation.simulated ? " (simulated)" : "").</p>
                <ul>\(Markup.join(explanation.rules.map { "<li>\($0)</li>" }))</ul></div>
                """
            body = body + (explanation.candidates.isEmpty ? "<p class=\"hint\">No candidates were found.</p>" : ConsoleLayout.table(
                ["method", "link or impression", "age", "taken", "why"], explanation.candidates.map { candidate in
                    ["\(candidate.method)", "\(candidate.linkId ?? candidate.impressionId ?? "–")", "\(f.number(candidate.ageSeconds)) s",
                     "\(candidate.eligible ? "yes" : "no")", "\(candidate.reason)"]
                }, caption: "Candidates"))
        }
        body = body + "<h2>Events</h2>" + (export.events.isEmpty ? "<p class=\"hint\">No events yet.</p>" : ConsoleLayout.table(
            ["when", "type", "name", "amount", "attested"], export.events.map { event in
                ["\(f.time(event.occurredAt))", "\(event.type)", "\(event.name ?? "–")",
                 "\(event.amount.map { f.money($0, event.currency ?? "USD") } ?? "–")", "\(event.attested ? "yes" : "no")"]
            }, caption: "Events, oldest first"))
        body = body + "<h2>Link visits</h2>" + (export.visits.isEmpty ? "<p class=\"hint\">None.</p>" : ConsoleLayout.table(
            ["when", "kind", "link", "platform"], export.visits.map { visit in
                ["\(f.time(visit.createdAt))", "\(visit.kind)", "\(visit.linkId)", "\(visit.platform) \(visit.osVersion ?? "")"]
            }, caption: "Link visits"))
        return .page(ConsolePage(title: "Install \(id)", body: body))
    }
}
