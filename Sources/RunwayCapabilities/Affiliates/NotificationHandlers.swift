import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayJSON
import RunwayKit
import RunwayStore

/// App Store Server Notifications v2, straight from Apple or forwarded (HMAC-signed) by the app owner's server:
/// verified to the configured Apple root (`NotificationVerification`), processed once per notification UUID, and
/// posted to the ledger in the same transaction that records the UUID.
struct NotificationHandlers: Sendable {
    /// The types the server acts on, each of which needs its signed transaction.
    static let transactionTypes = AppStoreNotificationType.payments.union(AppStoreNotificationType.reversals).union([.refundReversed])
    static let maxSkewSeconds: Int64 = 300
    /// The reason a payment is ignored under a program that pays for consumer stores only.
    static let nonConsumerStore = "non_consumer_store"

    let services: ServerServices

    func receive(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        try .json(try await counted(request.body, surfaceId: SurfaceId(try context.parameter("surfaceId"))))
    }

    func forward(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let surfaceId = SurfaceId(try context.parameter("surfaceId"))
        try checkForwardingSignature(request, surfaceId: surfaceId)
        return try .json(try await counted(request.body, surfaceId: surfaceId))
    }

    /// `sha256=<hex HMAC-SHA256 of "<timestamp>." + body>` under the surface's secret, within 300 s of now.
    func checkForwardingSignature(_ request: HTTPRequest, surfaceId: SurfaceId) throws {
        let secret = BindHandlers.forwardingSecret(surfaceId: surfaceId, services.secrets)
        switch TimestampedHMAC.verify(timestamp: request.headers["x-ea-timestamp"], signature: request.headers["x-ea-signature"],
                                      body: request.body, secret: Array(secret.utf8), now: Int64(services.clock.now().timeIntervalSince1970),
                                      maxSkewSeconds: Self.maxSkewSeconds) {
        case .success: return
        case .failure(.timestamp):
            throw AffiliatesError.invalidSignature("x-ea-timestamp is missing or more than 300 s from now")
        case .failure(.malformed):
            throw AffiliatesError.invalidSignature("x-ea-signature must be sha256=<hex>")
        case .failure(.mismatch):
            throw AffiliatesError.invalidSignature("x-ea-signature does not match this surface's secret")
        }
    }

    struct Surface {
        let id: SurfaceId
        let app: App
        let environment: AppStoreVerifier.Environment
        var test: Bool { environment != .production }
        var appId: AppId { AppId(app.id) }
        var workspaceId: WorkspaceId { WorkspaceId(app.workspaceId) }
    }

    /// Processes a notification and counts it by the status it got.
    func counted(_ body: [UInt8], surfaceId: SurfaceId) async throws -> AppStoreNotificationResult {
        let result = try await process(body, surfaceId: surfaceId)
        services.metrics.increment("linkrunway_app_store_notifications_total", labels: [("status", result.status.rawValue)])
        return result
    }

    func process(_ body: [UInt8], surfaceId: SurfaceId) async throws -> AppStoreNotificationResult {
        guard let stored = try await services.store.read({ db in try AffiliateQueries.surface(db, id: surfaceId) }),
              let environment = stored.appStoreEnvironment, let app = try await services.apps.app(id: stored.appId.rawValue) else {
            throw RequestError.notFound("no App Store surface \(surfaceId)")
        }
        let surface = Surface(id: surfaceId, app: app, environment: environment)
        guard let verifier = services.appStoreVerifier else {
            throw AffiliatesError.appStoreUnconfigured
        }
        let signedPayload = try NotificationVerification.signedPayload(body)
        let now = services.clock.nowMilliseconds()
        switch try NotificationVerification(verifier: verifier, surface: surface, now: services.clock.now()).check(signedPayload) {
        case .record(let notification, let status, let reason):
            let first = try await services.store.write { db in
                try AffiliateQueries.recordNotification(db, surfaceId: surfaceId, notification: notification, status: status, reason: reason, now: now)
            }
            guard first else { return Self.duplicate(notification) }
            return AppStoreNotificationResult(status: status, notificationUUID: notification.notificationUUID,
                                              notificationType: notification.notificationType.rawValue, reason: reason)
        case .process(let checked):
            let (result, proved) = try await services.store.write { db in
                // Apple sends a production app's notifications only to the URL its developer set: proof of its App Store id.
                let proved = try surface.environment == .production && AppStoreIdentity.prove(db, app: surface.app, proof: .notification, now: now).changed
                return (try Self.apply(db, checked, surface: surface, now: now), proved)
            }
            if proved, let appStoreId = app.appStoreId { services.apps.forget(appStoreId: appStoreId) }
            return result
        }
    }

    /// The answer to a notification whose UUID the surface has had: nothing is done again. (A payment whose
    /// transaction already has its commission is a duplicate too, decided by `CommissionPosting.accrue`.)
    static func duplicate(_ notification: AppStoreNotification) -> AppStoreNotificationResult {
        AppStoreNotificationResult(status: .duplicate, notificationUUID: notification.notificationUUID,
                                   notificationType: notification.notificationType.rawValue)
    }

    /// Claims the UUID, then does what the notification means, all in one transaction. Notifications about an app
    /// transaction whose consent was rescinded are recorded without it and not processed.
    static func apply(_ db: any SQLExecutor, _ checked: NotificationVerification.Checked, surface: Surface, now: Int64) throws -> AppStoreNotificationResult {
        let notification = checked.notification
        let uuid = notification.notificationUUID, type = notification.notificationType
        var result = AppStoreNotificationResult(status: .ignored, notificationUUID: uuid, notificationType: type.rawValue)
        let rescinded = try checked.appTransactionId.map { try ConsentRescission.isRescinded(db, appId: surface.appId, appTransactionId: $0) } ?? false
        guard try AffiliateQueries.claimNotification(db, surfaceId: surface.id, checked: checked, private: rescinded, now: now) else {
            return duplicate(notification)
        }
        // A migrated subscription (MIGRATION; the changelog spells it MIGRATE) names the id it had before: its later
        // payments find their referrer through it.
        if !rescinded, let transaction = checked.transaction, let previous = transaction.previousOriginalTransactionId,
           let original = transaction.originalTransactionId, previous != original {
            try AffiliateQueries.recordMigration(db, appId: surface.appId, original: TransactionId(rawValue: String(original.rawValue.prefix(64))),
                                                 previous: TransactionId(rawValue: String(previous.rawValue.prefix(64))), now: now)
        }
        // Where an auto-renewable subscription came from, for retention messages chosen by it.
        if !rescinded, let transaction = checked.transaction, transaction.type == "Auto-Renewable Subscription" {
            try SubscriptionAcquisitions.record(db, appId: surface.appId, environment: surface.environment,
                                                type: type, subtype: notification.subtype, transaction: transaction,
                                                appTransactionId: checked.appTransactionId, now: now)
        }
        if type == .rescindConsent, let appTransactionId = checked.appTransaction?.appTransactionId {
            try ConsentRescission.apply(db, appId: surface.appId, appTransactionId: appTransactionId, now: now)
            result.status = .consentRescinded
        } else if rescinded {
            result.status = .consentRescinded
        } else if transactionTypes.contains(type), let transaction = checked.transaction, let transactionId = transaction.transactionId {
            let purchase = CommissionPosting.Purchase(type: type, transaction: transaction, transactionId: transactionId, surface: surface,
                                                      notificationUUID: uuid, now: now)
            try CommissionPosting.post(db, purchase).apply(to: &result)
        }
        try AffiliateQueries.setNotificationStatus(db, surfaceId: surface.id, uuid: AffiliateQueries.clip(uuid) ?? uuid, status: result.status,
                                                   reason: result.reason)
        return result
    }
}
