import Foundation
import LinkRunwayAPI
import RunwayCapabilities
import RunwayHTTP
import RunwayKit

/// Links with their clicks and installs, searched and paged, created and edited in forms with every field a link
/// has, with their QR codes.
enum ConsoleLinkPages {
    static func list(_ context: ConsoleContext) async throws -> ConsoleResult {
        .page(try await listPage(context, values: [:], problems: []))
    }

    /// The raw values a form sent, to show again beside its problems.
    static func typed(_ form: FormFields) -> [String: String] {
        Dictionary(uniqueKeysWithValues: (Array(LinkForm.fields.keys) + ["interstitial", "passQuery", "inAppBrowserPage", "enabled"]).map { ($0, form[$0] ?? "") })
            .merging(LinkRoutingForm.typed(form)) { $1 }
    }

    static func listPage(_ context: ConsoleContext, values: [String: String], problems: [FormProblem]) async throws -> ConsolePage {
        let request = context.request
        let search = request.queryValue("q")?.trimmingCharacters(in: .whitespaces) ?? ""
        let state = request.queryValue("state") ?? ""
        let page = try await context.api.get("/v1/links", query: [
            ("workspaceId", context.workspace.id), ("q", search.isEmpty ? nil : search), ("enabled", ["true", "false"].contains(state) ? state : nil),
            ("limit", "25"), ("cursor", request.queryValue("cursor")),
        ], as: Page<Link>.self)
        let stats = Dictionary(try await ConsolePages.funnel(context, groupBy: "link", app: nil).rows.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        let apps = try await context.apps()
        let domains = try await context.api.all("/v1/domains", query: [("workspaceId", context.workspace.id)], as: LinkDomain.self)
        let f = context.format
        let links: Markup
        if page.items.isEmpty {
            links = ConsoleLayout.empty(search.isEmpty && state.isEmpty ? "No links yet. Create the first one above; its clicks and installs will show here."
                                                                         : "No links match.")
        } else {
            links = ConsoleLayout.table(["link", "opens in the app at", "campaign", "state", "clicks (30 days)", "installs (30 days)", "previews and bots (30 days)"],
                                        page.items.map { link in
                let state = !link.enabled ? "disabled" : link.expiresAt.map { "expires \(f.time($0))" } ?? "live"
                return ["<a href=\"\(context.link("/console/links/\(link.id)"))\">\(link.url)</a>", "\(link.appPath ?? "–")",
                        "\(link.campaign ?? "–")", "\(state)", "\(f.number(stats[link.id]?.clicks ?? 0))", "\(f.number(stats[link.id]?.installs ?? 0))",
                        "\(f.number((stats[link.id]?.previews ?? 0) + (stats[link.id]?.bots ?? 0)))"]
            }, caption: search.isEmpty ? "Links, oldest first" : "Links matching “\(search)”, oldest first", numericFrom: 4)
        }
        let next: Markup = page.nextCursor.map { cursor in
            "<p><a href=\"\(context.link("/console/links", [("q", search.isEmpty ? nil : search), ("state", state.isEmpty ? nil : state), ("cursor", cursor)]))\">Next links</a></p>"
        } ?? ""
        let more: Markup = next + "<p><a href=\"\(context.link("/console/links/import"))\">Import links from a CSV file</a></p>"
        let states = Markup.join([("", "any state"), ("true", "live"), ("false", "disabled")].map { value, label in
            "<option value=\"\(value)\"\(value == state ? Markup(" selected") : "")>\(label)</option>"
        })
        let searchForm: Markup = """
            <form method="get" action="/console/links" class="inline filter" role="search"><input type="hidden" name="ws" value="\(context.workspace.id)">
            <label for="q">Search</label> <input id="q" name="q" type="search" value="\(search)" placeholder="path, campaign or channel">
            <label for="state">State</label> <select id="state" name="state">\(states)</select> <button type="submit">Search</button></form>
            """
        let domainOptions = Markup.join(domains.map { domain in
            "<option\(values["domain"] == domain.hostname ? Markup(" selected") : "")>\(domain.hostname)</option>"
        })
        let form: Markup = """
            <form method="post" action="/console/links" class="card" novalidate>
            <h2>New link</h2>
            \(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)">
            <div class="fields">
            <div class="field"><label for="domain">Domain</label><select id="domain" name="domain">\(domainOptions)</select></div>
            <div class="field"><label for="app">App it opens</label>\(ConsolePages.appSelect(apps, selected: values["app"], allowAll: false))</div>
            \(ConsoleForms.input("path", "Path (empty: 8 generated characters)", value: values["path"], problem: problems.first { $0.fieldId == "path" }?.message))
            </div>
            \(LinkForm.controls(values, problems: problems, zone: context.format.zoneName))
            <button type="submit">Create link</button>
            </form>
            """
        return ConsolePage(title: "Links", body: form + searchForm + links + more, status: problems.isEmpty ? 200 : 400, problems: problems)
    }

    static func create(_ context: ConsoleContext) async throws -> ConsoleResult {
        let form = context.form
        var (fields, problems) = LinkForm.read(form, format: context.format)
        if problems.isEmpty {
            var request = CreateLinkRequest()
            request.workspaceId = context.workspace.id
            request.appId = form.text("app")
            request.domain = form.text("domain")
            request.path = form.text("path")
            request.appPath = fields.appPath
            request.campaign = fields.campaign
            request.channel = fields.channel
            request.feature = fields.feature
            request.destinations = fields.destinations
            request.preview = fields.preview
            request.metadata = fields.metadata
            request.expiresAt = fields.expiresAt
            request.interstitial = fields.interstitial
            request.passQuery = fields.passQuery
            request.inAppBrowserPage = fields.inAppBrowserPage
            let routing = fields.routing
            request.rules = routing.rules.isEmpty ? nil : routing.rules
            request.variants = routing.variants.isEmpty ? nil : routing.variants
            request.startsAt = routing.startsAt
            request.clickLimit = routing.clickLimit
            request.fallbacks = routing.fallbacks == LinkFallbacks() ? nil : routing.fallbacks
            request.utm = routing.utm == LinkUTM() ? nil : routing.utm
            do {
                let link = try await context.api.send(.POST, "/v1/links", request, as: Link.self)
                return .redirect(context.link("/console/links/\(link.id)", [("notice", "Link created: \(link.url)")]))
            } catch let error as ConsoleAPIError where error.status == 400 || error.status == 409 || error.status == 422 {
                problems = [fields.problem(error)]
            }
        }
        return .page(try await listPage(context, values: typed(form), problems: problems))
    }

    static func show(_ context: ConsoleContext) async throws -> ConsoleResult {
        let link = try await self.link(context)
        var values = LinkForm.values(of: link, format: context.format)
        values["enabled"] = link.enabled ? "on" : "off"
        return .page(try await detailPage(context, link: link, values: values, problems: []))
    }

    static func link(_ context: ConsoleContext) async throws -> Link {
        let link = try await context.api.get("/v1/links/\(context.parameter("id"))", as: Link.self)
        guard link.workspaceId == context.workspace.id else {
            throw ConsoleAPIError(status: 404, code: ErrorCode.notFound, message: "not in this workspace", field: nil)
        }
        return link
    }

    static func detailPage(_ context: ConsoleContext, link: Link, values: [String: String], problems: [FormProblem]) async throws -> ConsolePage {
        let (analytics, rangeProblems) = try await LinkStatsPanel.render(context, link: link)
        let logos = try await context.api.all("/v1/qr-logos", query: [("workspaceId", context.workspace.id)], as: QRLogo.self)
        let qrProblems = try await QRPanel.problems(context, link: link)
        let f = context.format
        let enabled = values["enabled"] != "off"
        let body: Markup = """
            <p><a href="\(link.url)">\(link.url)</a></p>
            \(analytics)
            <div class="columns">
            <div class="card">
            <dl>
            <dt>Created</dt><dd>\(f.time(link.createdAt))</dd>
            <dt>State</dt><dd>\(link.enabled ? "live" : "disabled")</dd>
            </dl>
            </div>
            \(QRPanel.render(context, link: link, logos: logos, problems: qrProblems))
            </div>
            <form method="post" action="/console/links/\(link.id)" class="card" novalidate>
            <h2>Edit</h2>
            \(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)">
            \(LinkForm.controls(values, problems: problems, zone: context.format.zoneName))
            <label for="enabled">State</label>
            <select id="enabled" name="enabled"><option value="on"\(enabled ? Markup(" selected") : "")>live</option><option value="off"\(enabled ? "" : Markup(" selected"))>disabled (answers 404)</option></select>
            <button type="submit">Save</button>
            </form>
            <p><a href="\(context.link("/console/links"))">All links</a></p>
            """
        let all = qrProblems + rangeProblems + problems
        return ConsolePage(title: "Link /\(link.path)", body: body, status: all.isEmpty ? 200 : 400, problems: all)
    }

    static func update(_ context: ConsoleContext) async throws -> ConsoleResult {
        let form = context.form
        let link = try await self.link(context)
        var (fields, problems) = LinkForm.read(form, format: context.format)
        if problems.isEmpty {
            var change = UpdateLinkRequest()
            change.appPath = fields.appPath
            change.campaign = fields.campaign
            change.channel = fields.channel
            change.feature = fields.feature
            change.destinations = fields.destinations
            change.preview = fields.preview ?? LinkPreview()
            change.metadata = fields.metadata ?? [:]
            change.expiresAt = fields.expiresAt
            change.interstitial = fields.interstitial
            change.passQuery = fields.passQuery
            change.inAppBrowserPage = fields.inAppBrowserPage
            change.enabled = form["enabled"] != "off"
            // The form is the whole routing: what it leaves empty is removed (a start, like an expiry, is only moved).
            let routing = fields.routing
            change.rules = routing.rules
            change.variants = routing.variants
            change.startsAt = routing.startsAt
            change.clickLimit = routing.clickLimit ?? 0
            change.fallbacks = routing.fallbacks
            change.utm = routing.utm
            do {
                _ = try await context.api.send(.PATCH, "/v1/links/\(link.id)", change, as: Link.self)
                return .redirect(context.link("/console/links/\(link.id)", [("notice", "Saved.")]))
            } catch let error as ConsoleAPIError where error.status == 400 || error.status == 422 {
                problems = [fields.problem(error)]
            }
        }
        return .page(try await detailPage(context, link: link, values: typed(form), problems: problems))
    }

    /// The QR code as the API draws it (`qr.svg` or `qr.png`), with the options of the page's QR form.
    static func qr(_ context: ConsoleContext, format: String) async throws -> ConsoleResult {
        let link = try await self.link(context)
        var response = try await context.api.raw(.GET, "/v1/links/\(link.id)/qr.\(format)", query: QRPanel.chosen(context.request))
        response.headers.set("Cache-Control", "private, max-age=300")
        return .response(response)
    }

    /// The link's figures as CSV, as the API gives them for the range of the page's form.
    static func statsCSV(_ context: ConsoleContext) async throws -> ConsoleResult {
        let link = try await self.link(context)
        let request = context.request
        return .response(try await context.api.raw(.GET, "/v1/links/\(link.id)/stats", query: [
            ("from", request.queryValue("from")), ("to", request.queryValue("to")), ("includeSimulated", request.queryValue("includeSimulated")),
        ], accept: "text/csv"))
    }

    static func qrSVG(_ context: ConsoleContext) async throws -> ConsoleResult { try await qr(context, format: "svg") }
    static func qrPNG(_ context: ConsoleContext) async throws -> ConsoleResult { try await qr(context, format: "png") }
}
