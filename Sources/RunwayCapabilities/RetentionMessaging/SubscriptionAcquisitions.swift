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
        var token: String?, programId: String?, installId: String?
        if let appAccountToken = transaction.appAccountToken, let bind = try db.first("""
            SELECT token, affiliate_id, program_id, install_id FROM app_account_tokens WHERE token = \(appAccountToken) AND app_id = \(appId)
            """, as: RetentionRows.Bind.self) {
            token = bind.token
            programId = bind.programId
            installId = bind.installId
            acquisition.source = "affiliate"
            acquisition.affiliateId = bind.affiliateId
        }
        if installId == nil, let id = appTransactionId {
            // Owners are kept under Apple's spelling of the environment.
            let apple = environment.rawValue
            installId = try db.first("""
                SELECT install_id FROM app_transaction_owners WHERE app_id = \(appId) AND environment = \(apple) AND app_transaction_id = \(id)
                """, as: RetentionRows.Owner.self)?.installId
            // A purchase made without the bind's token is the oldest bind's of its install, as its commission is.
            if let installId, let bind = try db.first("""
                SELECT token, affiliate_id, program_id FROM app_account_tokens WHERE app_id = \(appId) AND install_id = \(installId)
                ORDER BY created_at, token LIMIT 1
                """, as: RetentionRows.Bind.self) {
                token = bind.token
                programId = bind.programId
                acquisition.source = "affiliate"
                acquisition.affiliateId = bind.affiliateId
            }
        }
        if let installId, let install = try db.first("""
            SELECT link_id, campaign, source, apple_ads_campaign_id FROM installs WHERE app_id = \(appId) AND install_id = \(installId)
            """, as: RetentionRows.InstallSource.self) {
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
        try db.execute("""
            INSERT INTO app_store_subscriptions (app_id, environment, original_transaction_id, product_id, app_account_token, affiliate_id,
                                                 program_id, install_id, link_id, campaign, source, auto_renew_off_at, auto_renew_on_at,
                                                 renewed_at, expired_at, updated_at)
            VALUES (\(appId), \(environment.surfaceName), \(original), \(transaction.productId.map { String($0.prefix(200)) }), \(token),
                    \(acquisition.affiliateId), \(programId), \(installId), \(acquisition.linkId), \(acquisition.campaign), \(acquisition.source),
                    \(renewal == .autoRenewOff ? now : nil), \(renewal == .autoRenewOn ? now : nil), \(renewal == .renewed ? now : nil),
                    \(renewal == .expired ? now : nil), \(now))
            ON CONFLICT (app_id, environment, original_transaction_id) DO UPDATE SET
                product_id = COALESCE(excluded.product_id, app_store_subscriptions.product_id),
                app_account_token = COALESCE(app_store_subscriptions.app_account_token, excluded.app_account_token),
                affiliate_id = COALESCE(app_store_subscriptions.affiliate_id, excluded.affiliate_id),
                program_id = COALESCE(app_store_subscriptions.program_id, excluded.program_id),
                install_id = COALESCE(app_store_subscriptions.install_id, excluded.install_id),
                link_id = COALESCE(app_store_subscriptions.link_id, excluded.link_id),
                campaign = COALESCE(app_store_subscriptions.campaign, excluded.campaign),
                source = CASE WHEN app_store_subscriptions.source = 'unknown' THEN excluded.source ELSE app_store_subscriptions.source END,
                auto_renew_off_at = COALESCE(excluded.auto_renew_off_at, app_store_subscriptions.auto_renew_off_at),
                auto_renew_on_at = COALESCE(excluded.auto_renew_on_at, app_store_subscriptions.auto_renew_on_at),
                renewed_at = COALESCE(excluded.renewed_at, app_store_subscriptions.renewed_at),
                expired_at = COALESCE(excluded.expired_at, app_store_subscriptions.expired_at),
                updated_at = excluded.updated_at
            """)
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
        guard let row = try db.first("""
            SELECT source, affiliate_id, campaign, link_id FROM app_store_subscriptions
            WHERE app_id = \(appId) AND environment = \(environment.surfaceName) AND original_transaction_id = \(originalTransactionId)
            """, as: RetentionRows.Acquisition.self) else { return nil }
        return row.value
    }
}
