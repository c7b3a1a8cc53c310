import AppleFormats
import LinkRunwayAPI
import RunwayKit
import RunwayStore

/// The SQL of the affiliate tables that the routes run (the ledger's own is in `Ledger`, the commission rules' in
/// `CommissionRules`).
enum AffiliateQueries {
    static func insertAffiliate(_ db: any SQLExecutor, _ affiliate: Affiliate, now: Int64) throws {
        try db.execute("""
            INSERT INTO affiliates (id, workspace_id, name, external_id, created_at)
            VALUES (\(affiliate.id), \(affiliate.workspaceId), \(affiliate.name), \(affiliate.externalId), \(now))
            """)
    }

    static func affiliate(_ db: any SQLExecutor, id: String) throws -> Affiliate? {
        try db.first("SELECT \(raw: AffiliateRows.AffiliateRow.columns) FROM affiliates WHERE id = \(id)", as: AffiliateRows.AffiliateRow.self)?.wire
    }

    /// Locks the affiliate's row until the transaction ends.
    static func lockAffiliate(_ db: any SQLExecutor, id: String) throws {
        try db.execute("UPDATE affiliates SET name = name WHERE id = \(id)")
    }

    static func insertProgram(_ db: any SQLExecutor, _ program: AffiliateProgram, encodedCommission: String, now: Int64) throws {
        try db.execute("""
            INSERT INTO affiliate_programs (id, workspace_id, app_id, name, commission, hold_days, offer_code, deferred_minutes, consumer_stores_only,
                                            created_at)
            VALUES (\(program.id), \(program.workspaceId), \(program.appId), \(program.name), \(encodedCommission), \(Int64(program.holdDays)),
                    \(program.offerCode), \(Int64(program.deferredMinutes)), \(program.consumerStoresOnly), \(now))
            """)
    }

    static func program(_ db: any SQLExecutor, id: String) throws -> AffiliateProgram? {
        try db.first("SELECT \(raw: AffiliateRows.ProgramRow.columns) FROM affiliate_programs WHERE id = \(id)", as: AffiliateRows.ProgramRow.self)?.wire()
    }

    /// The affiliate's codes, oldest first.
    static func codes(_ db: any SQLExecutor, affiliateId: String) throws -> [AffiliateCode] {
        try db.query("SELECT code, affiliate_id, program_id, created_at FROM affiliate_codes WHERE affiliate_id = \(affiliateId) ORDER BY created_at, code",
                     as: AffiliateRows.CodeRow.self).map(\.wire)
    }

    static func insertCode(_ db: any SQLExecutor, workspaceId: WorkspaceId, code: String, affiliateId: AffiliateId, programId: ProgramId,
                           now: Int64) throws {
        try db.execute("""
            INSERT INTO affiliate_codes (workspace_id, code, affiliate_id, program_id, created_at)
            VALUES (\(workspaceId), \(code), \(affiliateId), \(programId), \(now))
            """)
    }

    static func insertLink(_ db: any SQLExecutor, linkId: String, affiliateId: String, programId: String) throws {
        try db.execute("INSERT INTO affiliate_links (link_id, affiliate_id, program_id) VALUES (\(linkId), \(affiliateId), \(programId))")
    }

    // MARK: App Store surfaces and binds

    static func insertSurface(_ db: any SQLExecutor, id: SurfaceId, workspaceId: WorkspaceId, appId: AppId, environment: AppStoreVerifier.Environment,
                              now: Int64) throws {
        try db.execute("""
            INSERT INTO app_store_surfaces (id, workspace_id, app_id, environment, created_at)
            VALUES (\(id), \(workspaceId), \(appId), \(environment.surfaceName), \(now))
            """)
    }

    /// An app's surfaces, oldest first.
    static func surfaces(_ db: any SQLExecutor, appId: AppId) throws -> [AffiliateRows.Surface] {
        try db.query("SELECT id, app_id, environment, created_at FROM app_store_surfaces WHERE app_id = \(appId) ORDER BY created_at, id",
                     as: AffiliateRows.Surface.self)
    }

    /// The app of surface `id`, or nil when there is none.
    static func surfaceApp(_ db: any SQLExecutor, id: SurfaceId) throws -> AppId? {
        try db.first("SELECT app_id FROM app_store_surfaces WHERE id = \(id)", as: AffiliateRows.AppOf.self)?.appId
    }

    /// The app and environment of surface `id`.
    static func surface(_ db: any SQLExecutor, id: SurfaceId) throws -> AffiliateRows.Surface? {
        try db.first("SELECT id, app_id, environment, created_at FROM app_store_surfaces WHERE id = \(id)", as: AffiliateRows.Surface.self)
    }

    /// The affiliate, program, offer and app of an affiliate link.
    static func linkReferral(_ db: any SQLExecutor, linkId: String) throws -> AffiliateRows.Referral? {
        try db.first("""
            SELECT a.affiliate_id, a.program_id, p.offer_code, p.app_id FROM affiliate_links a JOIN affiliate_programs p ON p.id = a.program_id
            WHERE a.link_id = \(linkId)
            """, as: AffiliateRows.Referral.self)
    }

    /// The affiliate, program, offer and app of a code (upper case) of the workspace.
    static func codeReferral(_ db: any SQLExecutor, workspaceId: WorkspaceId, code: String) throws -> AffiliateRows.Referral? {
        try db.first("""
            SELECT c.affiliate_id, c.program_id, p.offer_code, p.app_id FROM affiliate_codes c JOIN affiliate_programs p ON p.id = c.program_id
            WHERE c.workspace_id = \(workspaceId) AND c.code = \(code)
            """, as: AffiliateRows.Referral.self)
    }

    /// The longest deferred-bind window of the app's programs, in minutes (0 when it has none).
    static func maxDeferredMinutes(_ db: any SQLExecutor, appId: AppId) throws -> Int64 {
        try db.first("SELECT MAX(deferred_minutes) AS m FROM affiliate_programs WHERE app_id = \(appId)", as: AffiliateRows.LongestWindow.self)?.m ?? 0
    }

    /// The affiliate clicks of iPhone and iPad browsers from one hashed address since `since`, newest first, that no
    /// other install took: neither matched to another install nor bound to one before.
    static func affiliateClicks(_ db: any SQLExecutor, workspaceId: WorkspaceId, appId: AppId, addressHash hash: String, since: Int64,
                                installId: InstallId?, claimant: String) throws -> [AffiliateRows.AffiliateClick] {
        try db.query("""
            SELECT c.token, c.created_at, a.affiliate_id, a.program_id, p.offer_code, p.deferred_minutes
            FROM clicks c JOIN affiliate_links a ON a.link_id = c.link_id JOIN affiliate_programs p ON p.id = a.program_id
            WHERE c.workspace_id = \(workspaceId) AND c.address_hash = \(hash) AND c.kind = 'click' AND c.platform = 'ios'
              AND p.app_id = \(appId) AND c.created_at >= \(since)
              AND (c.claimed = 0 OR (c.claimed_app_id = \(appId) AND c.claimed_install_id = \(installId?.rawValue ?? "")))
              AND NOT EXISTS (SELECT 1 FROM deferred_click_claims d WHERE d.token = c.token AND d.claimant <> \(claimant))
            ORDER BY c.created_at DESC LIMIT 8
            """, as: AffiliateRows.AffiliateClick.self)
    }

    /// The affiliate click the install was matched to, if its link is an affiliate link of one of the app's programs.
    static func matchedAffiliateClick(_ db: any SQLExecutor, appId: AppId, installId: InstallId) throws -> AffiliateRows.AffiliateClick? {
        try db.first("""
            SELECT c.token, c.created_at, a.affiliate_id, a.program_id, p.offer_code, p.deferred_minutes
            FROM installs i JOIN clicks c ON c.token = i.click_token JOIN affiliate_links a ON a.link_id = c.link_id
            JOIN affiliate_programs p ON p.id = a.program_id
            WHERE i.app_id = \(appId) AND i.install_id = \(installId) AND p.app_id = \(appId)
            """, as: AffiliateRows.AffiliateClick.self)
    }

    /// Takes `token` for one claimant (an install, or one anonymous bind): true when it is this claimant's now.
    static func claimDeferredClick(_ db: any SQLExecutor, token: String, appId: AppId, claimant: String, now: Int64) throws -> Bool {
        try db.execute("""
            INSERT INTO deferred_click_claims (token, app_id, claimant, claimed_at) VALUES (\(token), \(appId), \(claimant), \(now))
            ON CONFLICT (token) DO NOTHING
            """)
        return try db.first("SELECT claimant FROM deferred_click_claims WHERE token = \(token)", as: AffiliateRows.Claimant.self)?.claimant == claimant
    }

    /// The install's binds, oldest first.
    static func binds(_ db: any SQLExecutor, appId: AppId, installId: InstallId) throws -> [AffiliateRows.Bind] {
        try db.query("""
            SELECT token, affiliate_id, program_id, method, created_at FROM app_account_tokens
            WHERE app_id = \(appId) AND install_id = \(installId) ORDER BY created_at
            """, as: AffiliateRows.Bind.self)
    }

    /// Unties the install's binds from it and from their clicks (the binds stay, as the affiliates' record): how many.
    static func unlinkBinds(_ db: any SQLExecutor, appId: AppId, installId: InstallId) throws -> Int {
        try db.execute("""
            UPDATE app_account_tokens SET install_id = NULL, click_token = NULL WHERE app_id = \(appId) AND install_id = \(installId)
            """)
    }

    /// Gives the claimant's deferred click claims to nobody anyone can name: how many.
    static func forgetDeferredClaims(_ db: any SQLExecutor, appId: AppId, claimant: String) throws -> Int {
        try db.execute("""
            UPDATE deferred_click_claims SET claimant = 'forgotten' WHERE app_id = \(appId) AND claimant = \(claimant)
            """)
    }

    /// Deletes the deferred click claims made before `before`: how many.
    @discardableResult
    static func deleteDeferredClaims(_ db: any SQLExecutor, before: Int64) throws -> Int {
        try db.execute("DELETE FROM deferred_click_claims WHERE claimed_at < \(before)")
    }

    static func insertToken(_ db: any SQLExecutor, token: BindToken, app: App, affiliateId: AffiliateId, programId: ProgramId, method: String,
                            clickToken: String?, installId: InstallId?, attested: Bool, now: Int64) throws {
        try db.execute("""
            INSERT INTO app_account_tokens (token, workspace_id, app_id, affiliate_id, program_id, method, click_token, install_id, attested, created_at)
            VALUES (\(token), \(app.workspaceId), \(app.id), \(affiliateId), \(programId), \(method), \(clickToken), \(installId), \(attested), \(now))
            """)
    }

    // MARK: App Store notifications

    /// A page of the app's notifications, as `NotificationList` narrows and orders them.
    static func notifications(_ db: any SQLExecutor, appId: AppId, filter: SQL, order: SQL, limit: Int) throws -> [AffiliateRows.Notification] {
        try db.query("""
            SELECT \(raw: AffiliateRows.Notification.columns) FROM app_store_notifications n JOIN app_store_surfaces s ON s.id = n.surface_id
            WHERE s.app_id = \(appId) AND n.status <> 'processing'\(filter)\(order) LIMIT \(limit)
            """, as: AffiliateRows.Notification.self)
    }

    /// Records a notification that needs no ledger work, with the values it carries as Apple sent them: false when the
    /// surface had it already.
    static func recordNotification(_ db: any SQLExecutor, surfaceId: SurfaceId, notification n: AppStoreNotification, status: AppStoreNotificationStatus, reason: String?,
                                   now: Int64) throws -> Bool {
        try db.execute("""
            INSERT INTO app_store_notifications (surface_id, notification_uuid, notification_type, subtype, status, reason, received_at, environment,
                                                 token_type)
            VALUES (\(surfaceId), \(clip(n.notificationUUID)), \(clip(n.notificationType.rawValue)), \(clip(n.subtype)), \(status.rawValue), \(reason), \(now),
                    \(clip(n.environment)), \(clip(n.tokenType)))
            ON CONFLICT (surface_id, notification_uuid) DO NOTHING
            """) == 1
    }

    /// Claims a notification's UUID as `processing`, with every value its signed parts enumerate as Apple sent it (the
    /// offer, revocation, billing plan, seats, product type, storefront, store, token type) and the app transaction it
    /// belongs to: false when the surface had it already. `private` keeps out what identifies a customer whose
    /// consent was rescinded.
    static func claimNotification(_ db: any SQLExecutor, surfaceId: SurfaceId, checked: NotificationVerification.Checked, private: Bool,
                                  now: Int64) throws -> Bool {
        let n = checked.notification, t = `private` ? nil : checked.transaction
        return try db.execute("""
            INSERT INTO app_store_notifications (surface_id, notification_uuid, notification_type, subtype, status, transaction_id, received_at,
                                                 app_transaction_id, offer_type, offer_discount_type, offer_period, revocation_type,
                                                 revocation_percentage, billing_plan_type, quantity, in_app_ownership_type,
                                                 previous_original_transaction_id, environment, transaction_type, revocation_reason,
                                                 transaction_reason, storefront, store_type, token_type)
            VALUES (\(surfaceId), \(clip(n.notificationUUID)), \(clip(n.notificationType.rawValue)), \(clip(n.subtype)), 'processing', \(t?.transactionId),
                    \(now), \(`private` ? nil : checked.appTransactionId), \(t?.offerType.map(Int64.init)), \(clip(t?.offerDiscountType)),
                    \(clip(t?.offerPeriod)), \(clip(t?.revocationType)), \(t?.revocationPercentage), \(clip(t?.billingPlanType)), \(t?.quantity),
                    \(clip(t?.inAppOwnershipType)), \(clip(t?.previousOriginalTransactionId?.rawValue)), \(clip(n.environment)), \(clip(t?.type)),
                    \(clip(t?.revocationReason)), \(clip(t?.transactionReason)), \(clip(t?.storefront)),
                    \(clip(`private` ? nil : checked.appTransaction?.storeType)), \(clip(n.tokenType)))
            ON CONFLICT (surface_id, notification_uuid) DO NOTHING
            """) == 1
    }

    /// At most 64 characters of a value Apple sent, as stored.
    static func clip(_ text: String?) -> String? { text.map { String($0.prefix(64)) } }

    static func setNotificationStatus(_ db: any SQLExecutor, surfaceId: SurfaceId, uuid: String, status: AppStoreNotificationStatus, reason: String?) throws {
        try db.execute("""
            UPDATE app_store_notifications SET status = \(status.rawValue), reason = \(reason) WHERE surface_id = \(surfaceId) AND notification_uuid = \(uuid)
            """)
    }

    /// The token, affiliate, program, commission rule, holding period and store rule an appAccountToken of the app was
    /// minted for.
    static func tokenBinding(_ db: any SQLExecutor, token: BindToken, appId: AppId) throws -> AffiliateRows.Binding? {
        try db.first("""
            SELECT \(raw: AffiliateRows.Binding.columns) FROM app_account_tokens t
            JOIN affiliate_programs p ON p.id = t.program_id WHERE t.token = \(token) AND t.app_id = \(appId)
            """, as: AffiliateRows.Binding.self)
    }

    /// Locks the token's row until the transaction ends.
    static func lockToken(_ db: any SQLExecutor, token: BindToken, appId: AppId) throws {
        try db.execute("UPDATE app_account_tokens SET method = method WHERE token = \(token) AND app_id = \(appId)")
    }

    /// Records that the subscription now known by `original` was `previous` before it migrated.
    static func recordMigration(_ db: any SQLExecutor, appId: AppId, original: TransactionId, previous: TransactionId, now: Int64) throws {
        try db.execute("""
            INSERT INTO app_store_subscription_migrations (app_id, original_transaction_id, previous_original_transaction_id, recorded_at)
            VALUES (\(appId), \(original), \(previous), \(now)) ON CONFLICT (app_id, original_transaction_id) DO NOTHING
            """)
    }

    /// The binding of a subscription from the commissions of its earlier payments: under its original transaction id,
    /// or under the ids it had before it migrated (a few steps back at most).
    static func subscriptionBinding(_ db: any SQLExecutor, original: TransactionId, previous: TransactionId?, appId: AppId) throws
        -> AffiliateRows.Binding? {
        var id: TransactionId? = original, seen: Set<TransactionId> = [], next = previous
        while let current = id, seen.count < 5, seen.insert(current).inserted {
            if let token = try db.first("""
                SELECT app_account_token FROM commissions WHERE original_transaction_id = \(current)
                AND program_id IN (SELECT id FROM affiliate_programs WHERE app_id = \(appId))
                AND app_account_token <> \(ConsentRescission.unlinkedToken) ORDER BY created_at LIMIT 1
                """, as: AffiliateRows.BoundToken.self)?.appAccountToken, let binding = try tokenBinding(db, token: token, appId: appId) {
                return binding
            }
            let recorded = try db.first("""
                SELECT previous_original_transaction_id FROM app_store_subscription_migrations
                WHERE app_id = \(appId) AND original_transaction_id = \(current)
                """, as: AffiliateRows.PreviousOriginal.self)?.previousOriginalTransactionId
            id = next ?? recorded
            next = nil
        }
        return nil
    }

    /// Whether the program has a commission on the transaction already.
    static func hasCommission(_ db: any SQLExecutor, programId: ProgramId, transactionId: TransactionId) throws -> Bool {
        try db.first("SELECT 1 AS one FROM commissions WHERE program_id = \(programId) AND transaction_id = \(transactionId) LIMIT 1") != nil
    }

    // MARK: Ledger reads

    /// A page of the affiliate's postings, oldest first.
    static func postings(_ db: any SQLExecutor, affiliateId: AffiliateId, limit: Int, cursor: String?) throws -> [LedgerPosting] {
        try Ledger.postings(db, filter: " AND p.affiliate_id = \(affiliateId)", limit: limit, cursor: cursor)
    }

    static func posting(_ db: any SQLExecutor, id: String) throws -> LedgerPosting {
        try Ledger.postings(db, filter: " AND p.id = \(id)", limit: 1, cursor: nil)[0]
    }

    /// What each affiliate of the workspace has pending, payable and paid, per currency, with its live commissions.
    static func payouts(_ db: any SQLExecutor, workspaceId: WorkspaceId, currency: String?) throws -> PayoutReport {
        let filter: SQL = currency.map { " AND p.currency = \($0)" } ?? ""
        var rows: [String: PayoutRow] = [:]
        for row in try db.query("""
            SELECT p.affiliate_id, a.name, a.external_id, p.currency, e.account, SUM(e.amount) AS total
            FROM ledger_postings p JOIN ledger_entries e ON e.posting_id = p.id JOIN affiliates a ON a.id = p.affiliate_id
            WHERE p.workspace_id = \(workspaceId) AND p.test = 0\(filter)
            GROUP BY p.affiliate_id, a.name, a.external_id, p.currency, e.account
            """, as: AffiliateRows.PayoutTotal.self) {
            let key = row.affiliateId + "|" + row.currency
            let fresh = PayoutRow(affiliateId: row.affiliateId, name: row.name, externalId: row.externalId, currency: row.currency,
                                  pending: 0, payable: 0, paid: 0, commissions: 0)
            var entry = rows[key] ?? fresh
            let total = row.total
            switch row.account {
            case .pending: entry.pending = -total
            case .payable: entry.payable = -total
            case .payouts: entry.paid = -total
            case .expense: break
            }
            rows[key] = entry
        }
        for row in try db.query("""
            SELECT affiliate_id, currency, COUNT(*) AS n FROM commissions WHERE workspace_id = \(workspaceId) AND test = 0 AND status IN ('pending', 'payable')
            GROUP BY affiliate_id, currency
            """, as: AffiliateRows.LiveCommissions.self) {
            rows[row.affiliateId + "|" + row.currency]?.commissions = row.n
        }
        return PayoutReport(rows: rows.values.sorted { ($0.name, $0.currency) < ($1.name, $1.currency) })
    }
}
