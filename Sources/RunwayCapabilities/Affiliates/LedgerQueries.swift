import AppleFormats
import RunwayKit
import RunwayStore

/// The SQL of the ledger's tables (`ledger_postings`, `ledger_entries`) and of the commissions it changes; what
/// balances and when is decided in `Ledger`.
enum LedgerQueries {
    // MARK: Postings

    static func insertPosting(_ db: any SQLExecutor, id: String, _ posting: Ledger.Posting, now: Int64) throws {
        try db.execute("""
            INSERT INTO ledger_postings (id, workspace_id, affiliate_id, program_id, commission_id, kind, currency, test, notification_uuid,
                                         transaction_id, reference, created_at)
            VALUES (\(id), \(posting.workspaceId), \(posting.affiliateId), \(posting.programId), \(posting.commissionId), \(posting.kind),
                    \(posting.currency), \(posting.test), \(posting.notificationUUID), \(posting.transactionId), \(posting.reference), \(now))
            """)
    }

    static func insertEntry(_ db: any SQLExecutor, postingId: String, line: Int, account: Ledger.Account, amount: Int64) throws {
        try db.execute("""
            INSERT INTO ledger_entries (posting_id, line, account, amount) VALUES (\(postingId), \(Int64(line)), \(account), \(amount))
            """)
    }

    /// Postings oldest first, with their commissions' commitments, narrowed by `filter` and after the posting `cursor`.
    static func postings(_ db: any SQLExecutor, filter: SQL, limit: Int, cursor: String?) throws -> [AffiliateRows.Posting] {
        let after: SQL = cursor.map { " AND (p.created_at, p.id) > (SELECT created_at, id FROM ledger_postings WHERE id = \($0))" } ?? ""
        return try db.query("""
            SELECT p.id, p.kind, p.affiliate_id, p.program_id, p.currency, p.test, p.notification_uuid, p.transaction_id, p.reference, p.created_at,
                   c.billing_plan_type, c.billing_period_number, c.total_billing_periods, c.committed_amount, c.commitment_expires_at
            FROM ledger_postings p LEFT JOIN commissions c ON c.id = p.commission_id AND p.kind = 'accrual'
            WHERE 1 = 1\(filter)\(after) ORDER BY p.created_at, p.id LIMIT \(limit)
            """, as: AffiliateRows.Posting.self)
    }

    /// A posting's entries in their order.
    static func entries(_ db: any SQLExecutor, postingId: String) throws -> [AffiliateRows.Entry] {
        try db.query("SELECT account, amount FROM ledger_entries WHERE posting_id = \(postingId) ORDER BY line", as: AffiliateRows.Entry.self)
    }

    /// Each account's total of the affiliate's postings, per currency and mode.
    static func accountTotals(_ db: any SQLExecutor, affiliateId: AffiliateId) throws -> [AffiliateRows.AccountTotal] {
        try db.query("""
            SELECT p.currency, p.test, e.account, SUM(e.amount) AS total FROM ledger_postings p JOIN ledger_entries e ON e.posting_id = p.id
            WHERE p.affiliate_id = \(affiliateId) GROUP BY p.currency, p.test, e.account
            """, as: AffiliateRows.AccountTotal.self)
    }

    // MARK: Commissions

    /// Inserts a pending commission, unless the program has a live one for the transaction (the unique index
    /// `commissions_one_per_transaction`): false then.
    static func insertCommission(_ db: any SQLExecutor, id: CommissionId, _ commission: Ledger.Commission, payableAt: Int64, now: Int64) throws -> Bool {
        try db.execute("""
            INSERT INTO commissions (id, workspace_id, affiliate_id, program_id, app_account_token, transaction_id, original_transaction_id,
                                     purchase_date, currency, amount, status, payable_at, test, created_at, app_transaction_id, billing_plan_type,
                                     billing_period_number, total_billing_periods, commitment_expires_at, committed_amount)
            VALUES (\(id), \(commission.workspaceId), \(commission.affiliateId), \(commission.programId), \(commission.token),
                    \(commission.transactionId), \(commission.originalTransactionId), \(commission.purchaseDate), \(commission.currency),
                    \(commission.amount), 'pending', \(payableAt), \(commission.test), \(now),
                    \(commission.appTransactionId), \(commission.billingPlanType), \(commission.commitment?.billingPeriodNumber.map(Int64.init)),
                    \(commission.commitment?.totalBillingPeriods.map(Int64.init)), \(commission.commitment?.commitmentExpiresDate),
                    \(commission.committedAmount))
            ON CONFLICT (program_id, transaction_id) WHERE status <> 'duplicate' DO NOTHING
            """) == 1
    }

    /// The program's commission on the transaction that a refund took something from: reversed, or live and partly
    /// clawed back.
    static func clawedBackCommission(_ db: any SQLExecutor, programId: ProgramId, transactionId: TransactionId) throws -> AffiliateRows.Commission? {
        try db.first("""
            SELECT \(raw: AffiliateRows.Commission.columns) FROM commissions
            WHERE program_id = \(programId) AND transaction_id = \(transactionId) AND (status = 'reversed' OR (status IN ('pending', 'payable') AND clawed_back > 0))
            """, as: AffiliateRows.Commission.self)
    }

    /// Gives a commission back all that was clawed back, as `revived`, if it is still as it was read: whether it was.
    static func revive(_ db: any SQLExecutor, id: CommissionId, as revived: Ledger.CommissionStatus, payableAt: Int64,
                       seen status: Ledger.CommissionStatus, clawedBack returned: Int64) throws -> Bool {
        try db.execute("""
            UPDATE commissions SET status = \(revived), clawed_back = 0, payable_at = \(payableAt)
            WHERE id = \(id) AND status = \(status) AND clawed_back = \(returned)
            """) == 1
    }

    /// The program's live (pending or payable) commissions on the transaction.
    static func liveCommissions(_ db: any SQLExecutor, programId: ProgramId, transactionId: TransactionId) throws -> [AffiliateRows.Commission] {
        try db.query("""
            SELECT \(raw: AffiliateRows.Commission.columns) FROM commissions
            WHERE program_id = \(programId) AND transaction_id = \(transactionId) AND status IN ('pending', 'payable')
            """, as: AffiliateRows.Commission.self)
    }

    /// Sets what is clawed back of a commission, and its status, if it is still as it was read: whether it was.
    static func setClawedBack(_ db: any SQLExecutor, id: CommissionId, status: Ledger.CommissionStatus, clawedBack: Int64,
                              seen: (status: Ledger.CommissionStatus, clawed: Int64)) throws -> Bool {
        try db.execute("""
            UPDATE commissions SET status = \(status), clawed_back = \(clawedBack)
            WHERE id = \(id) AND status = \(seen.status) AND clawed_back = \(seen.clawed)
            """) == 1
    }

    static func commissionState(_ db: any SQLExecutor, id: CommissionId) throws -> AffiliateRows.CommissionState? {
        try db.first("SELECT status, clawed_back FROM commissions WHERE id = \(id)", as: AffiliateRows.CommissionState.self)
    }

    /// Up to 1,000 pending commissions whose holding period is over, of one workspace or all, oldest due first.
    static func dueCommissions(_ db: any SQLExecutor, workspaceId: WorkspaceId?, now: Int64) throws -> [AffiliateRows.Commission] {
        let scope: SQL = workspaceId.map { " AND workspace_id = \($0)" } ?? ""
        return try db.query("""
            SELECT \(raw: AffiliateRows.Commission.columns) FROM commissions
            WHERE status = 'pending' AND payable_at <= \(now)\(scope) ORDER BY payable_at LIMIT 1000
            """, as: AffiliateRows.Commission.self)
    }

    /// Whether the program has a commission on any payment of the subscription.
    static func hasSubscriptionCommission(_ db: any SQLExecutor, programId: ProgramId, originalTransactionId: TransactionId) throws -> Bool {
        try db.first("SELECT 1 AS one FROM commissions WHERE program_id = \(programId) AND original_transaction_id = \(originalTransactionId) LIMIT 1") != nil
    }

    /// The date of the subscription's first payment the program has a commission on, if any.
    static func firstPaymentDate(_ db: any SQLExecutor, programId: ProgramId, originalTransactionId: TransactionId) throws -> Int64? {
        try db.first("""
            SELECT MIN(purchase_date) AS first FROM commissions WHERE program_id = \(programId) AND original_transaction_id = \(originalTransactionId)
            """, as: AffiliateRows.FirstPayment.self)?.first
    }

    /// Makes a pending commission payable if nothing was clawed back since it was read: whether it did.
    static func release(_ db: any SQLExecutor, id: CommissionId, clawedBack: Int64) throws -> Bool {
        try db.execute("UPDATE commissions SET status = 'payable' WHERE id = \(id) AND status = 'pending' AND clawed_back = \(clawedBack)") == 1
    }
}
