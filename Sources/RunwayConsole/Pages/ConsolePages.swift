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
        ConsoleRoute(method: .GET, pattern: "/console/links/qr-logos", handler: QRLogoPage.show),
        ConsoleRoute(method: .POST, pattern: "/console/links/qr-logos", handler: QRLogoPage.upload),
        ConsoleRoute(method: .POST, pattern: "/console/links/qr-logos/{id}/delete", handler: QRLogoPage.remove),
        ConsoleRoute(method: .GET, pattern: "/console/links/{id}", handler: ConsoleLinkPages.show),
        ConsoleRoute(method: .POST, pattern: "/console/links/{id}", handler: ConsoleLinkPages.update),
        ConsoleRoute(method: .GET, pattern: "/console/links/{id}/stats.csv", handler: ConsoleLinkPages.statsCSV),
        ConsoleRoute(method: .GET, pattern: "/console/links/{id}/qr.svg", handler: ConsoleLinkPages.qrSVG),
        ConsoleRoute(method: .GET, pattern: "/console/links/{id}/qr.png", handler: ConsoleLinkPages.qrPNG),
        ConsoleRoute(method: .GET, pattern: "/console/schema", handler: SchemaPage.show),
        ConsoleRoute(method: .POST, pattern: "/console/schema", handler: SchemaPage.save),
        ConsoleRoute(method: .GET, pattern: "/console/retention", handler: RetentionPage.show),
        ConsoleRoute(method: .POST, pattern: "/console/retention", handler: RetentionPage.save),
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

    /// The funnel report of the shown workspace over the last 30 days (simulated installs only when `includeSimulated`).
    static func funnel(_ context: ConsoleContext, groupBy: String, app: String?, includeSimulated: Bool = false) async throws -> FunnelReport {
        let now = context.services.clock.nowMilliseconds()
        return try await funnel(context, groupBy: groupBy, app: app, from: now - 30 * 86_400_000, to: now + 1, includeSimulated: includeSimulated)
    }

    /// The funnel report from `from` up to `to` (milliseconds, `to` excluded); `consumerOnly` leaves out installs from
    /// education or enterprise stores only.
    static func funnel(_ context: ConsoleContext, groupBy: String, app: String?, from: Int64, to: Int64,
                       includeSimulated: Bool = false, consumerOnly: Bool = false) async throws -> FunnelReport {
        try await context.api.get("/v1/reports/funnel", query: [
            ("workspaceId", context.workspace.id), ("groupBy", groupBy), ("appId", app),
            ("from", Timestamp.iso(from)), ("to", Timestamp.iso(to)), ("includeSimulated", includeSimulated ? "true" : nil),
            ("stores", consumerOnly ? "consumer" : nil),
        ], as: FunnelReport.self)
    }

    /// Revenue per currency, formatted and joined.
    static func revenue(_ amounts: [String: Int64], _ format: ConsoleFormat) -> String {
        amounts.isEmpty ? "–" : amounts.sorted { $0.key < $1.key }.map { format.money($0.value, $0.key) }.joined(separator: ", ")
    }
}

extension Markup {
    static func + (left: Markup, right: Markup) -> Markup { Markup(raw: left.html + right.html) }
}
