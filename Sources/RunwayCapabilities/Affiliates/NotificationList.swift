import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// `GET /v1/apps/{appId}/app-store/notifications`: the notifications the app's surfaces received, newest first, with
/// the answer each got and Apple's values as sent, narrowed by status or type.
enum NotificationList {
    static let query = [
        QueryParameterDoc("status", "Only notifications answered with this status."), QueryParameterDoc("notificationType", "Only this type, as Apple sent it."),
    ] + pageQuery

    static let order = NewestFirst(time: "n.received_at", app: "n.surface_id", id: "n.notification_uuid")

    static func page(_ request: HTTPRequest, appId: AppId, store: any Store) async throws -> Page<AppStoreNotificationRecord> {
        let page = try PageRequest(request)
        let filter = NewestFirst.equal(request, [("status", "n.status"), ("notificationType", "n.notification_type")]) + (try order.after(page.cursor))
        let rows = try await store.read { db in
            try AffiliateQueries.notifications(db, appId: appId, filter: filter, order: order.order, limit: page.limit + 1)
                .map { (record: $0.wire, at: $0.receivedAt) }
        }
        let shown = rows.prefix(page.limit)
        let next = rows.count > page.limit ? shown.last.map { NewestFirst.cursor(time: $0.at, app: $0.record.surfaceId, id: $0.record.notificationUUID) } : nil
        return Page(items: shown.map(\.record), nextCursor: next)
    }
}

extension BindHandlers {
    func listNotifications(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let app = try await TenancyQueries.managedApp(context, services, try context.principal())
        return try .json(try await NotificationList.page(request, appId: AppId(app.id), store: services.store))
    }
}
