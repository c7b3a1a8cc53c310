import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayJSON
import RunwayKit
import RunwayStore

/// App Store Server Notifications v2, straight from Apple or forwarded (HMAC-signed) by the app owner's server:
/// verified to the configured Apple root, processed once per notification UUID, and posted to the ledger in the same
/// transaction that records the UUID.
struct NotificationHandlers: Sendable {
    static let paymentTypes: Set<String> = ["SUBSCRIBED", "DID_RENEW", "OFFER_REDEEMED", "ONE_TIME_CHARGE"]
    static let reversalTypes: Set<String> = ["REFUND", "REVOKE"]
    static let maxSkewSeconds: Int64 = 300

    let services: ServerServices

    func receive(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        try .json(try await counted(request.body, surfaceId: try context.parameter("surfaceId")))
    }

    func forward(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let surfaceId = try context.parameter("surfaceId")
        try checkForwardingSignature(request, surfaceId: surfaceId)
        return try .json(try await counted(request.body, surfaceId: surfaceId))
    }

    /// `sha256=<hex HMAC-SHA256 of "<timestamp>." + body>` under the surface's secret, within 300 s of now.
    func checkForwardingSignature(_ request: HTTPRequest, surfaceId: String) throws {
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
        let id: String
        let app: App
        let environment: AppStoreVerifier.Environment
        var test: Bool { environment != .production }
    }

    /// Processes a notification and counts it by the status it got.
    func counted(_ body: [UInt8], surfaceId: String) async throws -> AppStoreNotificationResult {
        let result = try await process(body, surfaceId: surfaceId)
        services.metrics.increment("linkrunway_app_store_notifications_total", labels: [("status", result.status)])
        return result
    }

    func process(_ body: [UInt8], surfaceId: String) async throws -> AppStoreNotificationResult {
        guard let row = try await services.store.read({ db in try AffiliateQueries.surface(db, id: surfaceId) }),
              let app = try await services.links.app(id: try row.string("app_id")) else {
            throw RequestError.notFound("no App Store surface \(surfaceId)")
        }
        let surface = Surface(id: surfaceId, app: app, environment: try row.string("environment") == "production" ? .production : .sandbox)
        guard let verifier = services.appStoreVerifier else {
            throw AffiliatesError.appStoreUnconfigured
        }
        let request: AppStoreNotificationRequest
        do {
            request = try StrictJSONDecoder().decode(AppStoreNotificationRequest.self, from: body)
        } catch {
            throw AffiliatesError.appStoreInvalid("the body must be {\"signedPayload\": \"<JWS>\"}: \(error)")
        }
        let notification: AppStoreNotification
        switch verifier.verifyNotification(request.signedPayload, bundleId: app.bundleId, appAppleId: app.appStoreId.flatMap { Int64($0) },
                                           environment: surface.environment, now: services.clock.now()) {
        case .success(let (decoded, _)):
            notification = decoded
        case .failure(.invalidEnvironment(let why)) where surface.environment == .production:
            // A sandbox purchase reached a production app: expected while testing, never money.
            return try await record(surfaceId: surfaceId, uuidFrom: request.signedPayload, status: "ignored_non_production", detail: why)
        case .failure(let failure):
            throw AffiliatesError.appStoreInvalid("\(failure.status): \(failure)")
        }
        var transaction: AppStoreTransaction?
        if Self.paymentTypes.contains(notification.notificationType) || Self.reversalTypes.contains(notification.notificationType)
            || notification.notificationType == "REFUND_REVERSED" {
            guard let signed = notification.signedTransactionInfo else {
                throw AffiliatesError.appStoreInvalid("a \(notification.notificationType) notification needs signedTransactionInfo")
            }
            switch verifier.verifyTransaction(signed, bundleId: app.bundleId, environment: surface.environment, now: services.clock.now()) {
            case .success(let decoded) where decoded.transactionId != nil: transaction = decoded
            case .success: throw AffiliatesError.appStoreInvalid("the transaction has no transactionId")
            case .failure(let failure):
                throw AffiliatesError.appStoreInvalid("signedTransactionInfo \(failure.status): \(failure)")
            }
        }
        let now = services.clock.nowMilliseconds()
        let handled = transaction
        return try await services.store.write { db in
            try Self.apply(db, notification: notification, transaction: handled, surface: surface, now: now)
        }
    }

    /// Records a notification that needs no ledger work (and is not verified as the surface's).
    func record(surfaceId: String, uuidFrom jws: String, status: String, detail: String) async throws -> AppStoreNotificationResult {
        let payload = (try? CompactJWS.parse(jws))?.payload
        let uuid = payload?["notificationUUID"]?.stringValue ?? "unknown"
        let type = payload?["notificationType"]?.stringValue ?? "UNKNOWN"
        let now = services.clock.nowMilliseconds()
        let first = try await services.store.write { db in
            try AffiliateQueries.recordNotification(db, surfaceId: surfaceId, uuid: String(uuid.prefix(64)), type: String(type.prefix(64)),
                                                    status: status, now: now)
        }
        return AppStoreNotificationResult(status: first ? status : "duplicate", notificationUUID: uuid, notificationType: type)
    }

    /// Claims the UUID, then posts what the notification means, all in one transaction.
    static func apply(_ db: any SQLExecutor, notification: AppStoreNotification, transaction: AppStoreTransaction?, surface: Surface,
                      now: Int64) throws -> AppStoreNotificationResult {
        let uuid = notification.notificationUUID, type = notification.notificationType
        var result = AppStoreNotificationResult(status: "ignored", notificationUUID: uuid, notificationType: type)
        guard try AffiliateQueries.claimNotification(db, surfaceId: surface.id, uuid: uuid, type: type, subtype: notification.subtype,
                                                     transactionId: transaction?.transactionId, now: now) else {
            result.status = "duplicate"
            return result
        }
        if let transaction, let transactionId = transaction.transactionId {
            // The token the app set at purchase, minted by a bind of this app.
            let binding = try transaction.appAccountToken.flatMap { token in
                try AffiliateQueries.tokenBinding(db, token: token, appId: surface.app.id)
            }
            if let binding, let token = transaction.appAccountToken {
                // Every notification of one purchase carries its token: writers on other connections or servers wait
                // here for each other, so what they decide from the commissions already stored (the first payment, a
                // duration's start) is decided in turn. One commission per transaction is the unique index's.
                try AffiliateQueries.lockToken(db, token: token, appId: surface.app.id)
                let programId = try binding.string("program_id"), affiliateId = try binding.string("affiliate_id")
                let original = transaction.originalTransactionId ?? transactionId
                if paymentTypes.contains(type) {
                    result = try accrue(db, transaction: transaction, transactionId: transactionId, original: original, token: token,
                                        affiliateId: affiliateId, programId: programId, rule: try CommissionRules.decode(try binding.string("commission")),
                                        holdDays: Int(try binding.int("hold_days")), surface: surface, uuid: uuid, now: now, result: result)
                } else if reversalTypes.contains(type) {
                    let clawed = try Ledger.clawBack(db, programId: programId, transactionId: transactionId, notificationUUID: uuid, now: now)
                    result.status = "ok"
                    if let (currency, amount) = clawed.first { (result.currency, result.amount) = (currency, -amount) }
                } else if type == "REFUND_REVERSED" {
                    result.status = "ok"
                    if let (currency, amount) = try Ledger.reaccrue(db, programId: programId, transactionId: transactionId,
                                                                    holdDays: Int(try binding.int("hold_days")), notificationUUID: uuid, now: now) {
                        (result.currency, result.amount) = (currency, amount)
                    }
                }
            } else {
                result.status = "unattributed"
            }
        }
        try AffiliateQueries.setNotificationStatus(db, surfaceId: surface.id, uuid: uuid, status: result.status)
        return result
    }

    static func accrue(_ db: any SQLExecutor, transaction: AppStoreTransaction, transactionId: String, original: String, token: String,
                       affiliateId: String, programId: String, rule: CommissionRule, holdDays: Int, surface: Surface, uuid: String, now: Int64,
                       result: AppStoreNotificationResult) throws -> AppStoreNotificationResult {
        var result = result
        if transaction.isFreeTrial {
            result.status = "trial"
            return result
        }
        // One commission per transaction, however many notifications mention it.
        if try AffiliateQueries.hasCommission(db, programId: programId, transactionId: transactionId) {
            result.status = "duplicate"
            return result
        }
        let purchaseDate = transaction.purchaseDate ?? now
        guard try CommissionRules.earns(rule, db, programId: programId, originalTransactionId: original, purchaseDate: purchaseDate),
              let price = transaction.price, let currency = transaction.currency, price > 0 else {
            result.status = "ok"
            result.amount = 0
            return result
        }
        let (amount, commissionCurrency) = CommissionRules.amount(rule, price: price, currency: currency)
        guard try Ledger.accrue(db, Ledger.Commission(workspaceId: surface.app.workspaceId, affiliateId: affiliateId, programId: programId, token: token,
                                                      transactionId: transactionId, originalTransactionId: original, purchaseDate: purchaseDate,
                                                      currency: commissionCurrency, amount: amount, holdDays: holdDays, test: surface.test),
                                notificationUUID: uuid, now: now) else {
            result.status = "duplicate"
            return result
        }
        result.status = "ok"
        result.amount = amount
        result.currency = commissionCurrency
        return result
    }
}
