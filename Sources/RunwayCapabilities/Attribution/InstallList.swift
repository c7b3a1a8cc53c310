import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// `GET /v1/installs`: the workspace's installs, newest first, narrowed by app, source, link, campaign or simulation.
enum InstallList {
    static let query = [
        QueryParameterDoc("workspaceId", "The workspace (admin keys)."), QueryParameterDoc("appId", "Only this app."),
        QueryParameterDoc("source", "Only this source: link, ad:<network>, organic or returning."),
        QueryParameterDoc("linkId", "Only installs attributed to this link."), QueryParameterDoc("campaign", "Only this campaign."),
        QueryParameterDoc("simulated", "true: only simulated installs; false: only real ones; absent: both."),
        QueryParameterDoc("limit", "1 to 200 (default 50)."), QueryParameterDoc("cursor", "nextCursor of the previous page."),
    ]

    static let order = NewestFirst(time: "matched_at", app: "app_id", id: "install_id")

    static func page(_ request: HTTPRequest, principal: Principal, store: any Store) async throws -> Page<InstallSummary> {
        let page = try PageRequest(request)
        var filter = try await principal.workspaceFilter(request, in: store)
            + NewestFirst.equal(request, [("appId", "app_id"), ("source", "source"), ("linkId", "link_id"), ("campaign", "campaign")])
        if let simulated = try NewestFirst.flag(request, "simulated") { filter = filter + " AND simulated = \(simulated)" }
        let conditions = filter + (try order.after(page.cursor))
        let records = try await store.read { db in try AttributionQueries.listedInstalls(db, conditions: conditions, order: order, limit: page.limit + 1) }
        let shown = records.prefix(page.limit)
        return Page(items: shown.map(\.summary),
                    nextCursor: records.count > page.limit ? shown.last.map { NewestFirst.cursor(time: $0.matchedAt, app: $0.appId, id: $0.installId) } : nil)
    }
}

extension InstallRecord {
    var summary: InstallSummary {
        InstallSummary(installId: installId, appId: appId, platform: platform, method: method, source: source, linkId: linkId, campaign: campaign,
                       channel: channel, appleAdsCampaignId: appleAdsCampaignId, simulated: simulated, matchedAt: Timestamp.iso(matchedAt))
    }
}

extension AttributionHandlers {
    func listInstalls(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        try .json(try await InstallList.page(request, principal: try context.principal(), store: services.store))
    }
}
