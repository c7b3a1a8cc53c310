import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayKit
import RunwayStore

/// The SQL of retention messaging.
enum RetentionMessagingQueries {
    // MARK: Rules

    static func configuration(_ db: any SQLExecutor, appId: AppId) throws -> RetentionConfiguration {
        var configuration = RetentionConfiguration.empty
        if let rules = try ruleSet(db, appId: appId) { configuration.rules = rules }
        for row in try db.query("SELECT environment, message_id, state FROM retention_messages WHERE app_id = \(appId) AND listed = 1",
                                as: RetentionRows.ListedState.self) {
            guard let state = row.state else { continue }
            configuration.states[row.environment, default: [:]][row.messageId] = state
        }
        return configuration
    }

    static func ruleSet(_ db: any SQLExecutor, appId: AppId) throws -> RetentionRuleSet? {
        guard let row = try db.first("SELECT rules, updated_at FROM retention_rule_sets WHERE app_id = \(appId)", as: RetentionRows.RuleSet.self) else {
            return nil
        }
        guard var rules = try? JSONDecoder().decode(RetentionRuleSet.self, from: Data(row.rules.utf8)) else {
            throw StoreError.corrupt("an app's retention rules are not readable")
        }
        rules.updatedAt = Timestamp.iso(row.updatedAt)
        return rules
    }

    static func setRuleSet(_ db: any SQLExecutor, appId: AppId, rules: RetentionRuleSet, now: Int64) throws {
        var stored = rules
        stored.updatedAt = nil
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let text = String(decoding: try encoder.encode(stored), as: UTF8.self)
        try db.execute("""
            INSERT INTO retention_rule_sets (app_id, rules, updated_at) VALUES (\(appId), \(text), \(now))
            ON CONFLICT (app_id) DO UPDATE SET rules = excluded.rules, updated_at = excluded.updated_at
            """)
    }

    // MARK: Messages

    static func insertMessage(_ db: any SQLExecutor, appId: AppId, environment: AppStoreVerifier.Environment, request: CreateRetentionMessageRequest, messageId: String,
                              now: Int64) throws {
        try db.execute("""
            INSERT INTO retention_messages (app_id, environment, message_id, header, body, image_id, alt_text, state, listed, created_at)
            VALUES (\(appId), \(environment.surfaceName), \(messageId), \(request.header), \(request.body), \(request.imageId?.lowercased()), \(request.altText),
                    NULL, 0, \(now))
            ON CONFLICT (app_id, environment, message_id) DO UPDATE SET header = excluded.header, body = excluded.body,
                image_id = excluded.image_id, alt_text = excluded.alt_text
            """)
    }

    /// Records Apple's list: the states of the messages it has; those it no longer has are marked unlisted.
    static func recordList(_ db: any SQLExecutor, appId: AppId, environment: AppStoreVerifier.Environment, listed: [(id: String, state: String)], now: Int64) throws {
        try db.execute("UPDATE retention_messages SET listed = 0 WHERE app_id = \(appId) AND environment = \(environment.surfaceName)")
        for item in listed {
            try db.execute("""
                INSERT INTO retention_messages (app_id, environment, message_id, state, listed, created_at)
                VALUES (\(appId), \(environment.surfaceName), \(item.id), \(item.state), 1, \(now))
                ON CONFLICT (app_id, environment, message_id) DO UPDATE SET state = excluded.state, listed = 1
                """)
        }
    }

    static func messages(_ db: any SQLExecutor, appId: AppId, environment: AppStoreVerifier.Environment) throws -> [RetentionMessage] {
        try db.query("""
            SELECT message_id, environment, header, body, image_id, alt_text, state, listed, created_at FROM retention_messages
            WHERE app_id = \(appId) AND environment = \(environment.surfaceName) ORDER BY listed DESC, created_at, message_id
            """, as: RetentionRows.Message.self).map(\.wire)
    }

    static func deleteMessage(_ db: any SQLExecutor, appId: AppId, environment: AppStoreVerifier.Environment, messageId: String) throws {
        try db.execute("DELETE FROM retention_messages WHERE app_id = \(appId) AND environment = \(environment.surfaceName) AND message_id = \(messageId)")
    }

    // MARK: Requests

    struct Answered: Sendable {
        var appId: AppId
        var environment: AppStoreVerifier.Environment
        var request: String
        var originalTransactionId: String
        var productId: String
        var locale: String
        var source: String
        var decision: RetentionDecision
        var late: Bool
        var elapsedMicros: Int64
        var at: Int64
    }

    /// Records an answered request once; a request Apple sends again (the same identifier) is not counted twice.
    static func recordRequest(_ db: any SQLExecutor, _ a: Answered) throws {
        try db.execute("""
            INSERT INTO retention_requests (app_id, environment, request_id, original_transaction_id, product_id, locale, source, rule, message_id,
                                            late, elapsed_micros, requested_at)
            VALUES (\(a.appId), \(a.environment.surfaceName), \(a.request), \(a.originalTransactionId), \(a.productId), \(a.locale), \(a.source),
                    \(a.decision.rule), \(a.decision.answer?.messageId), \(a.late), \(a.elapsedMicros), \(a.at))
            ON CONFLICT (app_id, environment, request_id) DO NOTHING
            """)
    }

    /// Per rule and message: how many requests it answered, how many of them late, and what the subscribers did after
    /// (cancelled: auto-renew turned off and not on again since, or expired; stayed: renewed; undecided: neither yet).
    static func report(_ db: any SQLExecutor, appId: AppId, from: Int64, to: Int64) throws -> [RetentionMessageReportRow] {
        let cancelled = """
            COALESCE(s.expired_at, 0) > r.requested_at
            OR (COALESCE(s.auto_renew_off_at, 0) > r.requested_at AND COALESCE(s.auto_renew_on_at, 0) < s.auto_renew_off_at)
            """
        return try db.query("""
            SELECT r.rule, r.message_id, r.environment, COUNT(*) AS shown, SUM(r.late) AS late,
                   SUM(CASE WHEN \(raw: cancelled) THEN 1 ELSE 0 END) AS cancelled,
                   SUM(CASE WHEN COALESCE(s.renewed_at, 0) > r.requested_at AND NOT (\(raw: cancelled)) THEN 1 ELSE 0 END) AS stayed
            FROM retention_requests r
            LEFT JOIN app_store_subscriptions s ON s.app_id = r.app_id AND s.environment = r.environment
                 AND s.original_transaction_id = r.original_transaction_id
            WHERE r.app_id = \(appId) AND r.requested_at >= \(from) AND r.requested_at <= \(to)
            GROUP BY r.rule, r.message_id, r.environment
            ORDER BY r.environment, shown DESC, r.rule
            """, as: RetentionRows.ReportLine.self).map(\.wire)
    }

    // MARK: Subscriptions

    /// The bind minted as `token` for the app.
    static func bind(_ db: any SQLExecutor, token: String, appId: AppId) throws -> RetentionRows.Bind? {
        try db.first("""
            SELECT token, affiliate_id, program_id, install_id FROM app_account_tokens WHERE token = \(token) AND app_id = \(appId)
            """, as: RetentionRows.Bind.self)
    }

    /// The install's oldest bind.
    static func oldestBind(_ db: any SQLExecutor, appId: AppId, installId: InstallId) throws -> RetentionRows.Bind? {
        try db.first("""
            SELECT token, affiliate_id, program_id FROM app_account_tokens WHERE app_id = \(appId) AND install_id = \(installId)
            ORDER BY created_at, token LIMIT 1
            """, as: RetentionRows.Bind.self)
    }

    /// What the install says of where it came from.
    static func installSource(_ db: any SQLExecutor, appId: AppId, installId: InstallId) throws -> RetentionRows.InstallSource? {
        try db.first("""
            SELECT link_id, campaign, source, apple_ads_campaign_id FROM installs WHERE app_id = \(appId) AND install_id = \(installId)
            """, as: RetentionRows.InstallSource.self)
    }

    /// Records the subscription's acquisition and what its subscriber did: what was known first stays, what was unknown
    /// is filled in, and the latest of each outcome is kept.
    static func upsertSubscription(_ db: any SQLExecutor, appId: AppId, environment: AppStoreVerifier.Environment, original: String, productId: String?,
                                   token: String?, acquisition: SubscriptionAcquisition, programId: String?, installId: InstallId?,
                                   renewal: SubscriptionAcquisitions.Renewal?, now: Int64) throws {
        try db.execute("""
            INSERT INTO app_store_subscriptions (app_id, environment, original_transaction_id, product_id, app_account_token, affiliate_id,
                                                 program_id, install_id, link_id, campaign, source, auto_renew_off_at, auto_renew_on_at,
                                                 renewed_at, expired_at, updated_at)
            VALUES (\(appId), \(environment.surfaceName), \(original), \(productId), \(token),
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

    /// Where the subscription came from, as recorded.
    static func acquisition(_ db: any SQLExecutor, appId: AppId, environment: AppStoreVerifier.Environment, originalTransactionId: TransactionId) throws
        -> RetentionRows.Acquisition? {
        try db.first("""
            SELECT source, affiliate_id, campaign, link_id FROM app_store_subscriptions
            WHERE app_id = \(appId) AND environment = \(environment.surfaceName) AND original_transaction_id = \(originalTransactionId)
            """, as: RetentionRows.Acquisition.self)
    }

    /// Unties the install's subscriptions from it (they keep where they came from): how many.
    static func unlinkSubscriptions(_ db: any SQLExecutor, appId: AppId, installId: InstallId) throws -> Int {
        try db.execute("""
            UPDATE app_store_subscriptions SET install_id = NULL WHERE app_id = \(appId) AND install_id = \(installId)
            """)
    }

    /// Deletes the realtime requests made before `before`: how many.
    @discardableResult
    static func deleteRequests(_ db: any SQLExecutor, before: Int64) throws -> Int {
        try db.execute("DELETE FROM retention_requests WHERE requested_at < \(before)")
    }
}
