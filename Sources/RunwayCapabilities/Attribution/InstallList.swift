import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// `GET /v1/installs`: the workspace's installs, newest first, narrowed by app, source, link, campaign or simulation.
/// The cursor is the last install's time, app and id, so pages stay stable while installs arrive.
enum InstallList {
    static let query = [
        QueryParameterDoc("workspaceId", "The workspace (admin keys)."), QueryParameterDoc("appId", "Only this app."),
        QueryParameterDoc("source", "Only this source: link, ad:<network>, organic or returning."),
        QueryParameterDoc("linkId", "Only installs attributed to this link."), QueryParameterDoc("campaign", "Only this campaign."),
        QueryParameterDoc("simulated", "true: only simulated installs; false: only real ones; absent: both."),
        QueryParameterDoc("limit", "1 to 200 (default 50)."), QueryParameterDoc("cursor", "nextCursor of the previous page."),
    ]

    static func page(_ request: HTTPRequest, principal: Principal, store: any Store) async throws -> Page<InstallSummary> {
        let page = try PageRequest(request)
        var filter = try await principal.workspaceFilter(request, in: store)
        for (parameter, column) in [("appId", "app_id"), ("source", "source"), ("linkId", "link_id"), ("campaign", "campaign")] {
            if let value = request.queryValue(parameter) { filter = filter + " AND \(raw: column) = \(value)" }
        }
        if let value = request.queryValue("simulated") {
            guard let simulated = Bool(value) else {
                throw HTTPError.badRequest(ErrorCode.invalidQuery, "simulated must be true or false", field: "simulated")
            }
            filter = filter + " AND simulated = \(simulated)"
        }
        if let cursor = page.cursor {
            let parts = cursor.split(separator: "~", maxSplits: 2).map(String.init)
            guard parts.count == 3, let matchedAt = Int64(parts[0]) else {
                throw HTTPError.badRequest(ErrorCode.invalidQuery, "cursor is not one this list gave", field: "cursor")
            }
            filter = filter + " AND (matched_at < \(matchedAt) OR (matched_at = \(matchedAt) AND (app_id < \(parts[1]) OR (app_id = \(parts[1]) AND install_id < \(parts[2])))))"
        }
        let conditions = filter
        let records = try await store.read { db in
            try db.query("""
                SELECT \(raw: InstallRecord.columns) FROM installs WHERE 1 = 1\(conditions)
                ORDER BY matched_at DESC, app_id DESC, install_id DESC LIMIT \(page.limit + 1)
                """).map(InstallRecord.init(row:))
        }
        let shown = records.prefix(page.limit)
        return Page(items: shown.map(\.summary),
                    nextCursor: records.count > page.limit ? shown.last.map { "\($0.matchedAt)~\($0.appId)~\($0.installId)" } : nil)
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
