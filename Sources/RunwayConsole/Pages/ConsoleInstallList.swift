import Foundation
import LinkRunwayAPI
import RunwayKit

/// Recent installs and events of the workspace, newest first, narrowed by app, source and whether they were
/// simulated; each install links to its attribution.
enum InstallListPage {
    static let sources: [(String, String)] = [("", "any source"), ("link", "a link"), ("apple_ads", "Apple Ads"), ("organic", "organic"),
                                              ("returning", "returning")]
    static let kinds: [(String, String)] = [("", "real and simulated"), ("false", "real only"), ("true", "simulated only")]

    static func body(_ context: ConsoleContext) async throws -> Markup {
        let apps = try await context.apps()
        let query = context.request
        let app = query.queryValue("app").flatMap { $0.isEmpty ? nil : $0 }
        let source = query.queryValue("source").flatMap { $0.isEmpty ? nil : $0 }
        let simulated = query.queryValue("simulated").flatMap { $0.isEmpty ? nil : $0 }
        let page = try await context.api.get("/v1/installs", query: [
            ("workspaceId", context.workspace.id), ("appId", app), ("source", source), ("simulated", simulated), ("limit", "50"),
            ("cursor", query.queryValue("cursor")),
        ], as: Page<InstallSummary>.self)
        let names = Dictionary(apps.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        let f = context.format
        let filter = ConsolePages.appFilter(context, apps: apps, selected: app, extra: """
             <label for="source">From</label> \(select("source", sources, selected: source))
             <label for="simulated">Installs</label> \(select("simulated", kinds, selected: simulated))
            """)
        let list: Markup = page.items.isEmpty ? ConsoleLayout.empty("No installs match.", "<p>Installs appear when the app calls the SDK's first launch, or with <code>linkrunway simulate install</code>.</p>")
            : ConsoleLayout.table(["install", "app", "matched", "method", "source", "link or campaign", "kind"], page.items.map { install in
                ["<a href=\"\(context.link("/console/installs", [("id", install.installId)]))\">\(install.installId)</a>",
                 "\(names[install.appId] ?? install.appId)", "\(f.time(install.matchedAt))", "\(install.method)", "\(install.source)",
                 "\(install.linkId ?? install.campaign ?? install.appleAdsCampaignId.map { "Apple Ads \($0)" } ?? "–")",
                 install.simulated ? "<span class=\"tag\">simulated</span>" : "real"]
            }, caption: "Installs, newest first")
        let more: Markup = page.nextCursor.map { cursor in
            "<p><a href=\"\(context.link("/console/installs", [("app", app), ("source", source), ("simulated", simulated), ("cursor", cursor)]))\">Older installs</a></p>"
        } ?? ""
        return filter + list + more + (try await events(context, app: app, source: source, simulated: simulated, names: names))
    }

    static func events(_ context: ConsoleContext, app: String?, source: String?, simulated: String?, names: [String: String]) async throws -> Markup {
        let page = try await context.api.get("/v1/events", query: [
            ("workspaceId", context.workspace.id), ("appId", app), ("source", source), ("simulated", simulated), ("limit", "25"),
            ("cursor", context.request.queryValue("eventCursor")),
        ], as: Page<RecentEvent>.self)
        let f = context.format
        let list: Markup = page.items.isEmpty ? "<p class=\"hint\">No events match.</p>"
            : ConsoleLayout.table(["received", "install", "app", "type", "amount", "source", "kind"], page.items.map { event in
                ["\(f.time(event.receivedAt))", "<a href=\"\(context.link("/console/installs", [("id", event.installId)]))\">\(event.installId)</a>",
                 "\(names[event.appId] ?? event.appId)", "\(event.type)\(event.name.map { " (\($0))" } ?? "")",
                 "\(event.amount.map { f.money($0, event.currency ?? "USD") } ?? "–")", "\(event.source)",
                 event.simulated ? "<span class=\"tag\">simulated</span>" : "real"]
            }, caption: "Events, newest first")
        let more: Markup = page.nextCursor.map { cursor in
            "<p><a href=\"\(context.link("/console/installs", [("app", app), ("source", source), ("simulated", simulated), ("eventCursor", cursor)]))\">Older events</a></p>"
        } ?? ""
        return "<h2>Recent events</h2>" + list + more
    }

    private static func select(_ name: String, _ choices: [(String, String)], selected: String?) -> Markup {
        let options = Markup.join(choices.map { value, label in
            let mark: Markup = value == (selected ?? "") ? " selected" : ""
            return "<option value=\"\(value)\"\(mark)>\(label)</option>"
        })
        return "<select id=\"\(name)\" name=\"\(name)\">\(options)</select>"
    }
}
