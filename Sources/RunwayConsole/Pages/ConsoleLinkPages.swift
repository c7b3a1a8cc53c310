import Foundation
import LinkRunwayAPI
import RunwayCapabilities
import RunwayHTTP
import RunwayKit

/// Links with their clicks and installs, created and edited in forms, with their QR codes.
enum ConsoleLinkPages {
    /// The link forms' controls and the API fields their errors come back under.
    static let formFields: [String: String?] = ["domain": nil, "app": "appId", "path": nil, "appPath": nil, "web": "destinations.web",
                                                "campaign": nil, "channel": nil]

    static func list(_ context: ConsoleContext) async throws -> ConsoleResult {
        .page(try await listPage(context, values: FormFields([]), error: nil))
    }

    static func listPage(_ context: ConsoleContext, values: FormFields, error: ConsoleAPIError?) async throws -> ConsolePage {
        let page = try await context.api.get("/v1/links", query: [("workspaceId", context.workspace.id), ("limit", "100"),
                                                                 ("cursor", context.request.queryValue("cursor"))], as: Page<Link>.self)
        let stats = Dictionary(try await ConsolePages.funnel(context, groupBy: "link", app: nil).rows.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        let apps = try await context.apps()
        let domains = try await context.api.all("/v1/domains", query: [("workspaceId", context.workspace.id)], as: LinkDomain.self)
        let f = context.format
        let links: Markup
        if page.items.isEmpty {
            links = ConsoleLayout.empty("No links yet. Create the first one below; its clicks and installs will show here.")
        } else {
            links = ConsoleLayout.table(["link", "opens in the app at", "campaign", "state", "clicks (30 days)", "installs (30 days)"],
                                        page.items.reversed().map { link in
                let state = !link.enabled ? "disabled" : link.expiresAt.map { "expires \(f.time($0))" } ?? "live"
                return ["<a href=\"\(context.link("/console/links/\(link.id)"))\">\(link.url)</a>", "\(link.appPath ?? "–")",
                        "\(link.campaign ?? "–")", "\(state)", "\(f.number(stats[link.id]?.clicks ?? 0))", "\(f.number(stats[link.id]?.installs ?? 0))"]
            }, caption: "Links, newest first", numericFrom: 4)
        }
        let more: Markup = page.nextCursor.map { "<p><a href=\"\(context.link("/console/links", [("cursor", $0)]))\">Older links</a></p>" } ?? ""
        let domainOptions = Markup.join(domains.map { domain in
            let mark: Markup = values["domain"] == domain.hostname ? " selected" : ""
            return "<option\(mark)>\(domain.hostname)</option>"
        })
        let form: Markup = """
            <form method="post" action="/console/links" class="card" novalidate>
            <h2>New link</h2>
            \(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)">
            <label for="domain">Domain</label><select id="domain" name="domain">\(domainOptions)</select>
            <label for="app">App it opens</label>\(ConsolePages.appSelect(apps, selected: values["app"], allowAll: false))
            \(ConsoleForms.field("path", "Path (empty: 8 generated characters)", value: values["path"], error: error))
            \(ConsoleForms.field("appPath", "Where the app goes, e.g. /promo/summer", value: values["appPath"], error: error))
            \(ConsoleForms.field("web", "Page for desktops and everything else (https://…)", value: values["web"], error: error, errorField: "destinations.web", type: "url"))
            \(ConsoleForms.field("campaign", "Campaign", value: values["campaign"], error: error))
            \(ConsoleForms.field("channel", "Channel", value: values["channel"], error: error))
            <button type="submit">Create link</button>
            </form>
            """
        return ConsolePage(title: "Links", body: links + more + form, status: error == nil ? 200 : 400,
                           problems: error.map { [FormProblem($0, fields: formFields)] } ?? [])
    }

    static func create(_ context: ConsoleContext) async throws -> ConsoleResult {
        let form = context.form
        var request = CreateLinkRequest()
        request.workspaceId = context.workspace.id
        request.appId = form.text("app")
        request.domain = form.text("domain")
        request.path = form.text("path")
        request.appPath = form.text("appPath")
        request.campaign = form.text("campaign")
        request.channel = form.text("channel")
        if let web = form.text("web") { request.destinations = LinkDestinations(web: web) }
        do {
            let link = try await context.api.send(.POST, "/v1/links", request, as: Link.self)
            return .redirect(context.link("/console/links/\(link.id)", [("notice", "Link created: \(link.url)")]))
        } catch let error as ConsoleAPIError where error.status == 400 || error.status == 409 {
            return .page(try await listPage(context, values: form, error: error))
        }
    }

    static func show(_ context: ConsoleContext) async throws -> ConsoleResult {
        .page(try await detailPage(context, values: nil, error: nil))
    }

    static func detailPage(_ context: ConsoleContext, values: FormFields?, error: ConsoleAPIError?) async throws -> ConsolePage {
        let link = try await context.api.get("/v1/links/\(context.parameter("id"))", as: Link.self)
        guard link.workspaceId == context.workspace.id else {
            throw ConsoleAPIError(status: 404, code: ErrorCode.notFound, message: "not in this workspace", field: nil)
        }
        let stats = try await ConsolePages.funnel(context, groupBy: "link", app: nil).rows.first { $0.key == link.id }
        let f = context.format
        func value(_ name: String, _ current: String?) -> String? { values?[name] ?? current }
        let enabled = values.map { $0["enabled"] == "on" } ?? link.enabled
        let body: Markup = """
            <div class="columns">
            <div class="card">
            <p><a href="\(link.url)">\(link.url)</a></p>
            <dl>
            <dt>Clicks, last 30 days</dt><dd>\(f.number(stats?.clicks ?? 0))</dd>
            <dt>Installs, last 30 days</dt><dd>\(f.number(stats?.installs ?? 0))</dd>
            <dt>Opens, last 30 days</dt><dd>\(f.number(stats?.opens ?? 0))</dd>
            <dt>Created</dt><dd>\(f.time(link.createdAt))</dd>
            <dt>State</dt><dd>\(link.enabled ? "live" : "disabled")</dd>
            </dl>
            </div>
            <div class="card qr"><img src="\(context.link("/console/links/\(link.id)/qr.svg"))" alt="QR code for \(link.url)">
            <p><a href="\(context.link("/console/links/\(link.id)/qr.svg"))" download="\(link.path).svg">Download the QR code (SVG)</a></p></div>
            </div>
            <form method="post" action="/console/links/\(link.id)" class="card" novalidate>
            <h2>Edit</h2>
            \(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)">
            \(ConsoleForms.field("appPath", "Where the app goes", value: value("appPath", link.appPath), error: error))
            \(ConsoleForms.field("web", "Page for desktops and everything else (https://…)", value: value("web", link.destinations.web), error: error, errorField: "destinations.web", type: "url"))
            \(ConsoleForms.field("campaign", "Campaign", value: value("campaign", link.campaign), error: error))
            \(ConsoleForms.field("channel", "Channel", value: value("channel", link.channel), error: error))
            <label for="enabled">State</label>
            <select id="enabled" name="enabled"><option value="on"\(enabled ? Markup(" selected") : "")>live</option><option value="off"\(enabled ? "" : Markup(" selected"))>disabled (answers 404)</option></select>
            <button type="submit">Save</button>
            </form>
            <p><a href="\(context.link("/console/links"))">All links</a></p>
            """
        return ConsolePage(title: "Link /\(link.path)", body: body, status: error == nil ? 200 : 400,
                           problems: error.map { [FormProblem($0, fields: formFields)] } ?? [])
    }

    static func update(_ context: ConsoleContext) async throws -> ConsoleResult {
        let form = context.form
        let link = try await context.api.get("/v1/links/\(context.parameter("id"))", as: Link.self)
        var change = UpdateLinkRequest()
        change.appPath = form.text("appPath")
        change.campaign = form.text("campaign")
        change.channel = form.text("channel")
        change.enabled = form["enabled"] != "off"
        var destinations = link.destinations
        destinations.web = form.text("web")
        change.destinations = destinations
        do {
            _ = try await context.api.send(.PATCH, "/v1/links/\(link.id)", change, as: Link.self)
            return .redirect(context.link("/console/links/\(link.id)", [("notice", "Saved.")]))
        } catch let error as ConsoleAPIError where error.status == 400 {
            return .page(try await detailPage(context, values: form, error: error))
        }
    }

    /// The QR code, as the API draws it.
    static func qr(_ context: ConsoleContext) async throws -> ConsoleResult {
        var response = try await context.api.raw(.GET, "/v1/links/\(context.parameter("id"))/qr.svg")
        response.headers.set("Cache-Control", "private, max-age=300")
        return .response(response)
    }
}
