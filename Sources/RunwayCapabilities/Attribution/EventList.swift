import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// `GET /v1/events`: the workspace's events, newest received first, narrowed by app, install, type, source or whether
/// their install was simulated.
enum EventList {
    static let query = [
        QueryParameterDoc("workspaceId", "The workspace (admin keys)."), QueryParameterDoc("appId", "Only this app."),
        QueryParameterDoc("installId", "Only this install's events."), QueryParameterDoc("type", "Only this type, e.g. PURCHASE."),
        QueryParameterDoc("source", "Only events attributed to this source: link, apple_ads, ad:<network>, organic or returning."),
        QueryParameterDoc("simulated", "true: only events of simulated installs; false: only real ones; absent: both."),
        QueryParameterDoc("limit", "1 to 200 (default 50)."), QueryParameterDoc("cursor", "nextCursor of the previous page."),
    ]
    static let order = NewestFirst(time: "e.received_at", app: "e.app_id", id: "e.event_id")

    static func page(_ request: HTTPRequest, principal: Principal, store: any Store) async throws -> Page<RecentEvent> {
        let page = try PageRequest(request)
        // The workspace filter names workspace_id alone: in this query only events have one.
        var filter = try await principal.workspaceFilter(request, in: store) + NewestFirst.equal(request, [("appId", "e.app_id"), ("installId", "e.install_id"), ("type", "e.type"), ("source", "e.source")])
        if let simulated = try NewestFirst.flag(request, "simulated") { filter = filter + (simulated ? " AND " : " AND NOT ") + AttributionQueries.simulatedInstall }
        let conditions = filter + (try order.after(page.cursor))
        let events = try await store.read { db in
            try AttributionQueries.listedEvents(db, conditions: conditions, order: order, limit: page.limit + 1).map { ($0.wire, $0.receivedAt) }
        }
        let shown = events.prefix(page.limit)
        return Page(items: shown.map(\.0), nextCursor: events.count > page.limit
            ? shown.last.map { NewestFirst.cursor(time: $0.1, app: $0.0.appId, id: $0.0.eventId) } : nil)
    }
}

extension AttributionHandlers {
    func listEvents(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        try .json(try await EventList.page(request, principal: try context.principal(), store: services.store))
    }
}
