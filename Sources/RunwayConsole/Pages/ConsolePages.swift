import Foundation
import LinkRunwayAPI
import RunwayCapabilities
import RunwayHTTP
import RunwayKit

/// Every page of the console, by method and path.
enum ConsolePages {
    static let routes: [ConsoleRoute] = [
        ConsoleRoute(method: .GET, pattern: "/console", handler: OverviewPage.show),
        ConsoleRoute(method: .GET, pattern: "/console/apps", handler: AppPages.list),
        ConsoleRoute(method: .POST, pattern: "/console/apps", handler: AppPages.create),
        ConsoleRoute(method: .GET, pattern: "/console/apps/{id}", handler: AppPages.show),
        ConsoleRoute(method: .POST, pattern: "/console/apps/{id}", handler: AppPages.update),
        ConsoleRoute(method: .POST, pattern: "/console/apps/{id}/app-store/replay", handler: AppStoreReplayForm.replay),
        ConsoleRoute(method: .GET, pattern: "/console/links", handler: ConsoleLinkPages.list),
        ConsoleRoute(method: .POST, pattern: "/console/links", handler: ConsoleLinkPages.create),
        ConsoleRoute(method: .GET, pattern: "/console/links/import", handler: ConsoleLinkImportPage.show),
        ConsoleRoute(method: .POST, pattern: "/console/links/import", handler: ConsoleLinkImportPage.run),
        ConsoleRoute(method: .GET, pattern: "/console/links/{id}", handler: ConsoleLinkPages.show),
        ConsoleRoute(method: .POST, pattern: "/console/links/{id}", handler: ConsoleLinkPages.update),
        ConsoleRoute(method: .GET, pattern: "/console/links/{id}/qr.svg", handler: ConsoleLinkPages.qr),
        ConsoleRoute(method: .GET, pattern: "/console/schema", handler: SchemaPage.show),
        ConsoleRoute(method: .POST, pattern: "/console/schema", handler: SchemaPage.save),
        ConsoleRoute(method: .GET, pattern: "/console/postbacks", handler: ReportPages.postbacks),
        ConsoleRoute(method: .GET, pattern: "/console/info-plist", handler: InfoPlistPage.show),
        ConsoleRoute(method: .POST, pattern: "/console/info-plist", handler: InfoPlistPage.check),
        ConsoleRoute(method: .GET, pattern: "/console/apple-ads", handler: ReportPages.appleAds),
        ConsoleRoute(method: .GET, pattern: "/console/affiliates", handler: AffiliatePages.list),
        ConsoleRoute(method: .POST, pattern: "/console/affiliates", handler: AffiliatePages.create),
        ConsoleRoute(method: .POST, pattern: "/console/affiliate-programs", handler: ProgramForm.create),
        ConsoleRoute(method: .GET, pattern: "/console/affiliates/{id}", handler: AffiliatePages.show),
        ConsoleRoute(method: .POST, pattern: "/console/affiliates/{id}/payouts", handler: AffiliatePages.recordPayout),
        ConsoleRoute(method: .POST, pattern: "/console/affiliates/{id}/codes", handler: AffiliatePages.giveCode),
        ConsoleRoute(method: .GET, pattern: "/console/payouts.csv", handler: AffiliatePages.payoutsCSV),
        ConsoleRoute(method: .GET, pattern: "/console/webhooks", handler: WebhookPages.list),
        ConsoleRoute(method: .POST, pattern: "/console/webhooks", handler: WebhookPages.create),
        ConsoleRoute(method: .GET, pattern: "/console/webhooks/{id}", handler: WebhookPages.show),
        ConsoleRoute(method: .POST, pattern: "/console/webhooks/{id}/delete", handler: WebhookPages.remove),
        ConsoleRoute(method: .POST, pattern: "/console/webhooks/{id}/test", handler: WebhookPages.sendTest),
        ConsoleRoute(method: .POST, pattern: "/console/webhooks/{id}/deliveries/{delivery}/redeliver", handler: WebhookPages.redeliver),
        ConsoleRoute(method: .GET, pattern: "/console/ad-networks", handler: AdNetworkPages.list),
        ConsoleRoute(method: .POST, pattern: "/console/ad-networks", handler: AdNetworkPages.create),
        ConsoleRoute(method: .GET, pattern: "/console/users", handler: UserPages.list),
        ConsoleRoute(method: .POST, pattern: "/console/users", handler: UserPages.create),
        ConsoleRoute(method: .POST, pattern: "/console/users/{id}/delete", handler: UserPages.remove),
        ConsoleRoute(method: .GET, pattern: "/console/keys", handler: KeyPages.list),
        ConsoleRoute(method: .POST, pattern: "/console/keys", handler: KeyPages.create),
        ConsoleRoute(method: .POST, pattern: "/console/keys/{id}/revoke", handler: KeyPages.revoke),
        ConsoleRoute(method: .GET, pattern: "/console/installs", handler: InstallPage.show),
    ]

    /// A `<select>` of the workspace's apps (with "All apps" first when `allowAll`).
    static func appSelect(_ apps: [App], selected: String?, allowAll: Bool, name: String = "app") -> Markup {
        let all: Markup = allowAll ? "<option value=\"\">All apps</option>" : ""
        let options = Markup.join(apps.map { app in
            let mark: Markup = app.id == selected ? " selected" : ""
            return "<option value=\"\(app.id)\"\(mark)>\(app.name) (\(app.bundleId))</option>"
        })
        return "<select id=\"\(name)\" name=\"\(name)\">\(all)\(options)</select>"
    }

    /// A GET form that narrows a page to one app.
    static func appFilter(_ context: ConsoleContext, apps: [App], selected: String?, allowAll: Bool = true, extra: Markup = "") -> Markup {
        """
        <form method="get" class="inline filter"><input type="hidden" name="ws" value="\(context.workspace.id)">
        <label for="app">App</label> \(appSelect(apps, selected: selected, allowAll: allowAll))\(extra) <button type="submit">Show</button></form>
        """
    }

    /// The funnel report of the shown workspace (simulated installs only when `includeSimulated`).
    static func funnel(_ context: ConsoleContext, groupBy: String, app: String?, days: Int = 30, includeSimulated: Bool = false) async throws -> FunnelReport {
        let now = context.services.clock.nowMilliseconds()
        return try await context.api.get("/v1/reports/funnel", query: [
            ("workspaceId", context.workspace.id), ("groupBy", groupBy), ("appId", app),
            ("from", Timestamp.iso(now - Int64(days) * 86_400_000)), ("to", Timestamp.iso(now + 1)),
            ("includeSimulated", includeSimulated ? "true" : nil),
        ], as: FunnelReport.self)
    }

    /// Revenue per currency, formatted and joined.
    static func revenue(_ amounts: [String: Int64], _ format: ConsoleFormat) -> String {
        amounts.isEmpty ? "–" : amounts.sorted { $0.key < $1.key }.map { format.money($0.value, $0.key) }.joined(separator: ", ")
    }
}

/// Clicks → installs → events → revenue, per day, for the last 30 days.
enum OverviewPage {
    static func show(_ context: ConsoleContext) async throws -> ConsoleResult {
        let apps = try await context.apps()
        let app = context.request.queryValue("app").flatMap { $0.isEmpty ? nil : $0 }
        let simulated = context.request.queryValue("simulated") == "on"
        let report = try await ConsolePages.funnel(context, groupBy: "day", app: app, includeSimulated: simulated)
        let now = context.services.clock.nowMilliseconds()
        let days = (0..<30).reversed().map { String(Timestamp.iso(now - Int64($0) * 86_400_000).prefix(10)) }
        let rows = Dictionary(report.rows.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        let clicks = days.map { Double(rows[$0]?.clicks ?? 0) }
        let installs = days.map { Double(rows[$0]?.installs ?? 0) }
        let events = days.map { Double(rows[$0]?.events.values.reduce(0, +) ?? 0) }
        var revenue: [String: Int64] = [:]
        for row in report.rows { for (currency, amount) in row.revenue { revenue[currency, default: 0] += amount } }
        let f = context.format
        let tiles: Markup = """
            <div class="tiles">
            <div class="tile"><div class="value">\(f.number(Int(clicks.reduce(0, +))))</div><div class="label">clicks</div></div>
            <div class="tile"><div class="value">\(f.number(Int(installs.reduce(0, +))))</div><div class="label">installs</div></div>
            <div class="tile"><div class="value">\(f.number(Int(events.reduce(0, +))))</div><div class="label">events</div></div>
            <div class="tile"><div class="value">\(ConsolePages.revenue(revenue, f))</div><div class="label">revenue</div></div>
            </div>
            """
        let content: Markup
        if clicks.allSatisfy({ $0 == 0 }) && installs.allSatisfy({ $0 == 0 }) && events.allSatisfy({ $0 == 0 }) {
            content = ConsoleLayout.empty(apps.isEmpty
                ? "No apps yet. Register one on the Apps page (or with linkrunway app create), then create a link for it."
                : "Nothing in the last 30 days yet.",
                "<p><a href=\"\(context.link("/console/links"))\">Create a link</a> and share it: its clicks, the installs they bring and the events after them show here.</p>")
        } else {
            let table = ConsoleLayout.table(["day", "clicks", "installs", "events", "revenue"], days.reversed().compactMap { day in
                guard let row = rows[day] else { return nil }
                return ["\(day)", "\(f.number(row.clicks))", "\(f.number(row.installs))", "\(f.number(row.events.values.reduce(0, +)))",
                        "\(ConsolePages.revenue(row.revenue, f))"]
            }, caption: "Days with activity (UTC)", numericFrom: 1)
            content = ConsoleChart.lines(labels: days, series: [("Clicks", "clicks", clicks), ("Installs", "installs", installs), ("Events", "events", events)],
                                          title: "Clicks, installs and events per day, last 30 days") + table
        }
        return .page(ConsolePage(title: "Overview", body: """
            \(ConsolePages.appFilter(context, apps: apps, selected: app, extra: """
                 <label class="check"><input type="checkbox" name="simulated"\(simulated ? Markup(" checked") : "")> include simulated installs</label>
                """))
            <p class="hint">The last 30 days, by UTC day\(simulated ? ", simulated installs included" : "; simulated installs left out").</p>
            \(tiles)
            \(content)
            """))
    }
}

extension Markup {
    static func + (left: Markup, right: Markup) -> Markup { Markup(raw: left.html + right.html) }
}
