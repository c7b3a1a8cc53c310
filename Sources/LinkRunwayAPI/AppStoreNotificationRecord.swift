/// One App Store notification an app's surfaces received, newest first in `GET /v1/apps/{appId}/app-store/notifications`:
/// what the server answered, and every value Apple enumerates exactly as Apple sent it, so a value Apple adds later is
/// seen here the day it arrives.
public struct AppStoreNotificationRecord: Codable, Sendable, Equatable {
    public var surfaceId: String
    public var notificationUUID: String
    public var notificationType: String
    public var subtype: String?
    /// What the server answered (`AppStoreNotificationStatus`); `processing` never shows, it commits with it.
    public var status: String
    public var reason: String?
    public var receivedAt: String
    /// The notification's environment, as sent.
    public var environment: String?
    public var transactionId: String?
    public var appTransactionId: String?
    /// The transaction's `type` (the kind of product), as sent.
    public var transactionType: String?
    public var transactionReason: String?
    public var storefront: String?
    public var offerType: Int64?
    public var offerDiscountType: String?
    public var offerPeriod: String?
    public var inAppOwnershipType: String?
    public var quantity: Int64?
    public var revocationType: String?
    public var revocationReason: String?
    /// Thousandths of a percent of the transaction refunded or revoked.
    public var revocationPercentage: Int64?
    public var billingPlanType: String?
    public var previousOriginalTransactionId: String?
    /// The app transaction's `storeType` (`RESCIND_CONSENT`), as sent.
    public var storeType: String?
    /// An external purchase token's `tokenType` (`EXTERNAL_PURCHASE_TOKEN`), as sent.
    public var tokenType: String?

    public init(surfaceId: String, notificationUUID: String, notificationType: String, subtype: String? = nil, status: String, reason: String? = nil,
                receivedAt: String, environment: String? = nil, transactionId: String? = nil, appTransactionId: String? = nil,
                transactionType: String? = nil, transactionReason: String? = nil, storefront: String? = nil, offerType: Int64? = nil,
                offerDiscountType: String? = nil, offerPeriod: String? = nil, inAppOwnershipType: String? = nil, quantity: Int64? = nil,
                revocationType: String? = nil, revocationReason: String? = nil, revocationPercentage: Int64? = nil, billingPlanType: String? = nil,
                previousOriginalTransactionId: String? = nil, storeType: String? = nil, tokenType: String? = nil) {
        self.surfaceId = surfaceId
        self.notificationUUID = notificationUUID
        self.notificationType = notificationType
        self.subtype = subtype
        self.status = status
        self.reason = reason
        self.receivedAt = receivedAt
        self.environment = environment
        self.transactionId = transactionId
        self.appTransactionId = appTransactionId
        self.transactionType = transactionType
        self.transactionReason = transactionReason
        self.storefront = storefront
        self.offerType = offerType
        self.offerDiscountType = offerDiscountType
        self.offerPeriod = offerPeriod
        self.inAppOwnershipType = inAppOwnershipType
        self.quantity = quantity
        self.revocationType = revocationType
        self.revocationReason = revocationReason
        self.revocationPercentage = revocationPercentage
        self.billingPlanType = billingPlanType
        self.previousOriginalTransactionId = previousOriginalTransactionId
        self.storeType = storeType
        self.tokenType = tokenType
    }
}

extension AppStoreNotificationRecord: DescribedWireType {
    public static let summary: String? = "An App Store notification as received: the answer given and Apple's values as sent."
    public static let notes: [String: FieldNote] = [
        "surfaceId": .id("The surface it reached."), "notificationUUID": FieldNote("Apple's UUID."), "notificationType": FieldNote("Apple's type, as sent."),
        "subtype": FieldNote("Apple's subtype, as sent."), "status": .oneOf(AppStoreNotificationStatus.wireValues, "What the server answered."),
        "reason": .oneOf(AppStoreNotificationResult.reasons, "Why it was ignored, when its type does not say it."), "receivedAt": .timestamp,
        "environment": FieldNote("Apple's environment, as sent."), "transactionId": FieldNote("Apple's transaction."),
        "appTransactionId": FieldNote("Apple's app transaction (none once its consent was rescinded)."),
        "transactionType": FieldNote("The transaction's type, as sent."), "transactionReason": FieldNote("As sent."), "storefront": FieldNote("As sent."),
        "offerType": FieldNote("As sent."), "offerDiscountType": FieldNote("As sent."), "offerPeriod": FieldNote("As sent."),
        "inAppOwnershipType": FieldNote("As sent."), "quantity": FieldNote("Seats or products, as sent."), "revocationType": FieldNote("As sent."),
        "revocationReason": FieldNote("As sent."), "revocationPercentage": FieldNote("Thousandths of a percent, as sent."),
        "billingPlanType": FieldNote("As sent."), "previousOriginalTransactionId": FieldNote("As sent."),
        "storeType": FieldNote("The app transaction's store, as sent."), "tokenType": FieldNote("The external purchase token's type, as sent."),
    ]
}
