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

    static let columns = """
        n.surface_id, n.notification_uuid, n.notification_type, n.subtype, n.status, n.reason, n.received_at, n.environment, n.transaction_id,
        n.app_transaction_id, n.transaction_type, n.transaction_reason, n.storefront, n.offer_type, n.offer_discount_type, n.offer_period,
        n.in_app_ownership_type, n.quantity, n.revocation_type, n.revocation_reason, n.revocation_percentage, n.billing_plan_type,
        n.previous_original_transaction_id, n.store_type, n.token_type
        """

    static func page(_ request: HTTPRequest, appId: String, store: any Store) async throws -> Page<AppStoreNotificationRecord> {
        let page = try PageRequest(request)
        let filter = NewestFirst.equal(request, [("status", "n.status"), ("notificationType", "n.notification_type")]) + (try order.after(page.cursor))
        let rows = try await store.read { db in
            try db.query("""
                SELECT \(raw: columns) FROM app_store_notifications n JOIN app_store_surfaces s ON s.id = n.surface_id
                WHERE s.app_id = \(appId) AND n.status <> 'processing'\(filter)\(order.order) LIMIT \(page.limit + 1)
                """).map { row in (record: try record(row), at: try row.int("received_at")) }
        }
        let shown = rows.prefix(page.limit)
        let next = rows.count > page.limit ? shown.last.map { NewestFirst.cursor(time: $0.at, app: $0.record.surfaceId, id: $0.record.notificationUUID) } : nil
        return Page(items: shown.map(\.record), nextCursor: next)
    }

    static func record(_ row: SQLRow) throws -> AppStoreNotificationRecord {
        AppStoreNotificationRecord(
            surfaceId: try row.string("surface_id"), notificationUUID: try row.string("notification_uuid"),
            notificationType: try row.string("notification_type"), subtype: try row.optionalString("subtype"), status: try row.string("status"),
            reason: try row.optionalString("reason"), receivedAt: Timestamp.iso(try row.int("received_at")),
            environment: try row.optionalString("environment"), transactionId: try row.optionalString("transaction_id"),
            appTransactionId: try row.optionalString("app_transaction_id"), transactionType: try row.optionalString("transaction_type"),
            transactionReason: try row.optionalString("transaction_reason"), storefront: try row.optionalString("storefront"),
            offerType: try row.optionalInt("offer_type"), offerDiscountType: try row.optionalString("offer_discount_type"),
            offerPeriod: try row.optionalString("offer_period"), inAppOwnershipType: try row.optionalString("in_app_ownership_type"),
            quantity: try row.optionalInt("quantity"), revocationType: try row.optionalString("revocation_type"),
            revocationReason: try row.optionalString("revocation_reason"), revocationPercentage: try row.optionalInt("revocation_percentage"),
            billingPlanType: try row.optionalString("billing_plan_type"),
            previousOriginalTransactionId: try row.optionalString("previous_original_transaction_id"), storeType: try row.optionalString("store_type"),
            tokenType: try row.optionalString("token_type"))
    }
}

extension BindHandlers {
    func listNotifications(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let app = try await TenancyQueries.managedApp(context, services, try context.principal())
        return try .json(try await NotificationList.page(request, appId: app.id, store: services.store))
    }
}
