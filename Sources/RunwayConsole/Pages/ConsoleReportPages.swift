import Foundation
import LinkRunwayAPI
import RunwayCapabilities
import RunwayHTTP
import RunwayKit

/// SKAdNetwork and AdAttributionKit postbacks, and Apple Ads campaigns, ad groups and keywords.
enum ReportPages {
    static let postbackGroupings: [(String, String)] = [("network", "ad network"), ("campaign", "campaign"), ("window", "window"),
                                                        ("tier", "crowd anonymity tier"), ("placement", "Apple Ads placement"), ("framework", "framework"),
                                                        ("day", "day")]

    static func postbacks(_ context: ConsoleContext) async throws -> ConsoleResult {
        let apps = try await context.apps()
        let app = context.request.queryValue("app").flatMap { $0.isEmpty ? nil : $0 }
        let groupBy = context.request.queryValue("groupBy").flatMap { asked in postbackGroupings.map(\.0).contains(asked) ? asked : nil } ?? "network"
        let report = try await context.api.get("/v1/reports/postbacks", query: [("workspaceId", context.workspace.id), ("groupBy", groupBy), ("appId", app)],
                                               as: PostbackReport.self)
        let invalid = try await context.api.get("/v1/postbacks", query: [("workspaceId", context.workspace.id), ("status", "invalid"), ("appId", app),
                                                                        ("limit", "50")], as: Page<StoredPostback>.self)
        let f = context.format
        let heading = postbackGroupings.first { $0.0 == groupBy }?.1 ?? groupBy
        let choices = Markup.join(postbackGroupings.map { value, label in
            let mark: Markup = value == groupBy ? " selected" : ""
            return "<option value=\"\(value)\"\(mark)>\(label)</option>"
        })
        let filter = ConsolePages.appFilter(context, apps: apps, selected: app,
                                            extra: " <label for=\"groupBy\">By</label> <select id=\"groupBy\" name=\"groupBy\">\(choices)</select>")
        let aggregate: Markup = report.rows.isEmpty
            ? ConsoleLayout.empty("No postbacks in the last 30 days.",
                                  "<p>Apple sends copies of winning postbacks to <code>/.well-known/skadnetwork/report-attribution/</code> and <code>/.well-known/appattribution/report-attribution/</code> on the domain in your app's Info.plist (see the getting-started guide). They arrive a day or more after a conversion window ends.</p>")
            : ConsoleLayout.table(["\(heading)", "postbacks", "installs", "redownloads", "re-engagements",
                                   "not winning", "value withheld", "fine values", "coarse only", "invalid", "duplicates"],
                                  report.rows.map { row in
                ["\(row.displayKey)", "\(f.number(row.postbacks))", "\(f.number(row.installs))", "\(f.number(row.redownloads))", "\(f.number(row.reengagements))",
                 "\(f.number(row.nonWinning))", "\(f.number(row.withheld))", "\(f.number(row.fineValues))", "\(f.number(row.coarseValues))",
                 "\(f.number(row.invalid))", "\(f.number(row.duplicates))"]
            }, caption: "Last 30 days", numericFrom: 1)
        // Apple leaves these out below the postback data tier that allows them: by tier, the share shows how much of the
        // crowd anonymity hides; by network or campaign, whose postbacks arrive with the least.
        let missing: Markup = report.rows.isEmpty ? "" : "<h2>Fields Apple withheld</h2>" + ConsoleLayout.table(
            ["\(heading)", "postbacks", "country code", "marketplace", "source identifier digits", "publisher"],
            report.rows.map { row in
                let fields = row.missingFields
                return ["\(row.key)", "\(f.number(row.postbacks))", "\(fields.countryCode.summary)", "\(fields.marketplaceIdentifier.summary)",
                        "\(fields.sourceIdentifierDigits.summary)", "\(fields.publisher.summary)"]
            }, caption: "Verified postbacks lacking each field (share, count of those whose format has it)", numericFrom: 1)
        let rejected: Markup = invalid.items.isEmpty
            ? "<p class=\"hint\">No invalid postbacks.</p>"
            : ConsoleLayout.table(["received", "framework", "reason", "detail", "ad network"], invalid.items.map { postback in
                ["\(f.time(postback.receivedAt))", "\(postback.framework)", "\(postback.reason ?? "–")", "\(postback.detail ?? "")", "\(postback.adNetworkId ?? "–")"]
            }, caption: "Invalid postbacks, newest first (kept as received, never counted)")
        return .page(ConsolePage(title: "Postbacks", body: filter + aggregate + missing + "<h2>Invalid</h2>" + rejected))
    }

    /// The funnel report's key for rows without a value of the grouping.
    static let ungrouped = "(none)"

    /// Only what Apple Ads claims attributed: installs and their events by Apple's campaign, ad group and keyword ids.
    static func appleAds(_ context: ConsoleContext) async throws -> ConsoleResult {
        let apps = try await context.apps()
        let app = context.request.queryValue("app").flatMap { $0.isEmpty ? nil : $0 }
        let f = context.format
        var sections: [Markup] = []
        var any = false
        for (groupBy, title) in [("appleAdsCampaign", "Campaigns"), ("appleAdsAdGroup", "Ad groups"), ("appleAdsKeyword", "Keywords")] {
            // Installs and events without Apple Ads ids (attributed by a link, or organic) group under "(none)": not Apple's.
            let rows = try await ConsolePages.funnel(context, groupBy: groupBy, app: app).rows
                .filter { $0.key != ungrouped && $0.installs + $0.events.values.reduce(0, +) > 0 }
            any = any || !rows.isEmpty
            sections.append("<h2>\(title)</h2>" + (rows.isEmpty ? "<p class=\"hint\">None.</p>" : ConsoleLayout.table(
                ["id", "installs", "events", "revenue"],
                rows.map { ["\($0.key)", "\(f.number($0.installs))", "\(f.number($0.events.values.reduce(0, +)))", "\(ConsolePages.revenue($0.revenue, f))"] },
                caption: "\(title) (Apple's ids), last 30 days", numericFrom: 1)))
        }
        let now = context.services.clock.nowMilliseconds()
        let claims = try await context.api.get("/v1/reports/apple-ads", query: [
            ("workspaceId", context.workspace.id), ("appId", app), ("from", Timestamp.iso(now - 30 * 86_400_000)), ("to", Timestamp.iso(now + 1)),
        ], as: AppleAdsReport.self).rows
        any = any || !claims.isEmpty
        if !claims.isEmpty {
            sections.insert("<h2>Claims</h2>" + ConsoleLayout.table(["what Apple answered", "claims"],
                                                                   claims.map { ["\($0.label)", "\(f.number($0.claims))"] },
                                                                   caption: "Apple Ads claims by what Apple answered", numericFrom: 1), at: 0)
        }
        let intro: Markup = any ? "<p class=\"hint\">Installs Apple's AdServices API attributed to Apple Ads in the last 30 days, with their later events, by the ids Apple gives.</p>"
            : ConsoleLayout.empty("No Apple Ads installs in the last 30 days.",
                                  "<p>The SDK sends the AdServices token once per install (<code>submitAdServicesToken()</code>); the server asks Apple and records campaign, ad group and keyword.</p>")
        return .page(ConsolePage(title: "Apple Ads", body: ConsolePages.appFilter(context, apps: apps, selected: app) + intro + Markup.join(sections)))
    }
}
