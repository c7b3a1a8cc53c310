import AppleFormats
import Foundation
import RunwayKit
import RunwayStore

/// Where each subscription came from, kept as its App Store notifications arrive so that a realtime retention request,
/// which names only the original transaction, is answered with one read: the bind its appAccountToken was minted at
/// (an affiliate), else the install that proved its app transaction, with the install's link, campaign and source.
/// What the subscriber did since (auto-renew turned off or on, a renewal, an expiry) is kept too, for the report.
enum SubscriptionAcquisitions {
    /// Notes what a verified notification says of its subscription, in the notification's transaction. What was known
    /// first stays; what was unknown is filled in when a later notification knows it.
    static func record(_ db: any SQLExecutor, appId: AppId, environment: AppStoreVerifier.Environment, type: AppStoreNotificationType, subtype: String?,
                       transaction: AppStoreTransaction, appTransactionId: AppTransactionId?, now: Int64) throws {
        guard let original = transaction.originalTransactionId.map({ String($0.rawValue.prefix(64)) }), !original.isEmpty else { return }
        var acquisition = SubscriptionAcquisition.unknown
        var token: String?, programId: String?, installId: InstallId?
        if let appAccountToken = transaction.appAccountToken, let bind = try RetentionMessagingQueries.bind(db, token: appAccountToken, appId: appId) {
            token = bind.token
            programId = bind.programId
            installId = bind.installId
            acquisition.source = "affiliate"
            acquisition.affiliateId = bind.affiliateId
        }
        if installId == nil, let id = appTransactionId {
            // Owners are kept under Apple's spelling of the environment.
            let apple = environment.rawValue
            installId = try AppTransactionQueries.owner(db, appId: appId, environment: apple, appTransactionId: id.rawValue)
            // A purchase made without the bind's token is the oldest bind's of its install, as its commission is.
            if let installId, let bind = try RetentionMessagingQueries.oldestBind(db, appId: appId, installId: installId) {
                token = bind.token
                programId = bind.programId
                acquisition.source = "affiliate"
                acquisition.affiliateId = bind.affiliateId
            }
        }
        if let installId, let install = try RetentionMessagingQueries.installSource(db, appId: appId, installId: installId) {
            acquisition.linkId = install.linkId
            acquisition.campaign = install.campaign
            if acquisition.source == "unknown" { acquisition.source = install.ruleSource }
        }
        // A migrated subscription keeps where it came from under its earlier id.
        if acquisition.source == "unknown", let previous = transaction.previousOriginalTransactionId.map({ TransactionId(rawValue: String($0.rawValue.prefix(64))) }),
           let earlier = try Self.acquisition(db, appId: appId, environment: environment, originalTransactionId: previous) {
            acquisition = earlier
        }
        let renewal = outcome(type: type, subtype: subtype)
        try RetentionMessagingQueries.upsertSubscription(db, appId: appId, environment: environment, original: original,
                                                         productId: transaction.productId.map { String($0.prefix(200)) }, token: token,
                                                         acquisition: acquisition, programId: programId, installId: installId, renewal: renewal, now: now)
    }

    /// What a notification says the subscriber did
    /// (https://developer.apple.com/documentation/appstoreservernotifications/notificationtype).
    enum Renewal { case autoRenewOff, autoRenewOn, renewed, expired }

    static func outcome(type: AppStoreNotificationType, subtype: String?) -> Renewal? {
        switch (type, subtype) {
        case (.didChangeRenewalStatus, "AUTO_RENEW_DISABLED"): return .autoRenewOff
        case (.didChangeRenewalStatus, "AUTO_RENEW_ENABLED"): return .autoRenewOn
        case (.didRenew, _): return .renewed
        case (.expired, _): return .expired
        default: return nil
        }
    }

    /// The acquisition of a subscription, or nil when no notification of it was seen.
    static func acquisition(_ db: any SQLExecutor, appId: AppId, environment: AppStoreVerifier.Environment, originalTransactionId: TransactionId) throws -> SubscriptionAcquisition? {
        try RetentionMessagingQueries.acquisition(db, appId: appId, environment: environment, originalTransactionId: originalTransactionId)?.value
    }
}
