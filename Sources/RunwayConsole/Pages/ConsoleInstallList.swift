import Foundation
import LinkRunwayAPI
import RunwayKit

/// Recent installs of the workspace, newest first, narrowed by app, source and whether they were simulated; each
/// links to its attribution.
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
        return filter + list + more
    }

    private static func select(_ name: String, _ choices: [(String, String)], selected: String?) -> Markup {
        let options = Markup.join(choices.map { value, label in
            let mark: Markup = value == (selected ?? "") ? " selected" : ""
            return "<option value=\"\(value)\"\(mark)>\(label)</option>"
        })
        return "<select id=\"\(name)\" name=\"\(name)\">\(options)</select>"
    }
}
