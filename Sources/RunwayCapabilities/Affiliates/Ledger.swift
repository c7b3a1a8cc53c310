import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayKit
import RunwayStore

/// The commission ledger: double entry in integer minor units. Every posting is a set of entries (debit positive,
/// credit negative) that sums to zero, written once and never changed. Accounts, per affiliate and currency:
/// `commission_expense` (what the program costs), `affiliate_pending` (earned, inside the holding period),
/// `affiliate_payable` (earned and due) and `payouts` (what was paid). Balances are the negated sums of the credit
/// accounts.
enum Ledger {
    /// Where a commission is: earned and held (`pending`), due (`payable`), taken back whole (`reversed`), or a second
    /// commission of one transaction kept for the record (`duplicate`, step 0015). Its raw value is the stored one.
    enum CommissionStatus: String, Decodable, SQLBindable {
        case pending, payable, reversed, duplicate

        /// Still earning: a refund takes from it, a release moves it.
        var isLive: Bool { self == .pending || self == .payable }
    }

    /// An account of an affiliate and currency. Its raw value is the stored one.
    enum Account: String, CaseIterable, Decodable, SQLBindable {
        case expense = "commission_expense"
        case pending = "affiliate_pending"
        case payable = "affiliate_payable"
        case payouts
    }

    /// What a posting records. Its raw value is the stored one.
    enum PostingKind: String, SQLBindable {
        case accrual, reaccrual, clawback, release, payout
    }

    struct Posting {
        var workspaceId: WorkspaceId
        var affiliateId: AffiliateId
        var programId: ProgramId?
        var commissionId: CommissionId?
        var kind: PostingKind
        var currency: String
        var test: Bool
        var notificationUUID: String?
        var transactionId: TransactionId?
        var reference: String?
    }

    /// Writes a posting; refuses one that does not balance.
    @discardableResult
    static func post(_ db: any SQLExecutor, _ posting: Posting, entries: [(account: Account, amount: Int64)], now: Int64) throws -> String {
        guard !entries.isEmpty, entries.reduce(Int64(0), { $0 + $1.amount }) == 0 else {
            throw StoreError.failed("a ledger posting must balance")
        }
        let id = Identifier.make("lp")
        try db.execute("""
            INSERT INTO ledger_postings (id, workspace_id, affiliate_id, program_id, commission_id, kind, currency, test, notification_uuid,
                                         transaction_id, reference, created_at)
            VALUES (\(id), \(posting.workspaceId), \(posting.affiliateId), \(posting.programId), \(posting.commissionId), \(posting.kind),
                    \(posting.currency), \(posting.test), \(posting.notificationUUID), \(posting.transactionId), \(posting.reference), \(now))
            """)
        for (line, entry) in entries.enumerated() {
            try db.execute("""
                INSERT INTO ledger_entries (posting_id, line, account, amount) VALUES (\(id), \(Int64(line)), \(entry.account), \(entry.amount))
                """)
        }
        return id
    }

    /// A commission row and its accrual: expense debited, the affiliate's pending balance credited.
    struct Commission {
        let workspaceId: WorkspaceId
        let affiliateId: AffiliateId
        let programId: ProgramId
        let token: BindToken
        let transactionId: TransactionId
        let originalTransactionId: TransactionId
        let purchaseDate: Int64
        let currency: String
        let amount: Int64
        let holdDays: Int
        let test: Bool
        /// The purchase's app transaction, when Apple sent it.
        var appTransactionId: AppTransactionId? = nil
        var billingPlanType: String? = nil
        /// A monthly plan's commitment, as Apple sent it, and what all of it earns under the program's rule.
        var commitment: AppStoreTransaction.Commitment? = nil
        var committedAmount: Int64? = nil
    }

    /// Records the commission and its accrual, unless the program already has one for the transaction (the unique index
    /// `commissions_one_per_transaction` decides, so of two writers at the same instant one accrues); false then.
    static func accrue(_ db: any SQLExecutor, _ commission: Commission, notificationUUID: String, now: Int64) throws -> Bool {
        let id = CommissionId(Identifier.make("com"))
        guard try db.execute("""
            INSERT INTO commissions (id, workspace_id, affiliate_id, program_id, app_account_token, transaction_id, original_transaction_id,
                                     purchase_date, currency, amount, status, payable_at, test, created_at, app_transaction_id, billing_plan_type,
                                     billing_period_number, total_billing_periods, commitment_expires_at, committed_amount)
            VALUES (\(id), \(commission.workspaceId), \(commission.affiliateId), \(commission.programId), \(commission.token),
                    \(commission.transactionId), \(commission.originalTransactionId), \(commission.purchaseDate), \(commission.currency),
                    \(commission.amount), 'pending', \(now + Int64(commission.holdDays) * 86_400_000), \(commission.test), \(now),
                    \(commission.appTransactionId), \(commission.billingPlanType), \(commission.commitment?.billingPeriodNumber.map(Int64.init)),
                    \(commission.commitment?.totalBillingPeriods.map(Int64.init)), \(commission.commitment?.commitmentExpiresDate),
                    \(commission.committedAmount))
            ON CONFLICT (program_id, transaction_id) WHERE status <> 'duplicate' DO NOTHING
            """) == 1 else { return false }
        guard commission.amount > 0 else { return true }
        try post(db, Posting(workspaceId: commission.workspaceId, affiliateId: commission.affiliateId, programId: commission.programId,
                             commissionId: id, kind: .accrual, currency: commission.currency, test: commission.test, notificationUUID: notificationUUID,
                             transactionId: commission.transactionId),
                 entries: [(.expense, commission.amount), (.pending, -commission.amount)], now: now)
        return true
    }

    /// A refund Apple reversed: what was clawed back from the transaction's commission accrues again. A reversed
    /// commission becomes pending with a new holding period; a live one partly clawed back (a prorated refund) gets
    /// the share back in the account it sits in. Returns its currency and the amount, or nil when nothing was taken
    /// back (never accrued, or already revived by another writer).
    static func reaccrue(_ db: any SQLExecutor, programId: ProgramId, transactionId: TransactionId, holdDays: Int, notificationUUID: String,
                         now: Int64) throws -> (currency: String, amount: Int64)? {
        guard let row = try db.first("""
            SELECT \(raw: AffiliateRows.Commission.columns) FROM commissions
            WHERE program_id = \(programId) AND transaction_id = \(transactionId) AND (status = 'reversed' OR (status IN ('pending', 'payable') AND clawed_back > 0))
            """, as: AffiliateRows.Commission.self) else { return nil }
        let id = row.id, currency = row.currency, status = row.status
        let returned = row.clawedBack
        let revived: CommissionStatus = status == .reversed ? .pending : status
        let payableAt = status == .reversed ? now + Int64(holdDays) * 86_400_000 : row.payableAt
        guard try db.execute("""
            UPDATE commissions SET status = \(revived), clawed_back = 0, payable_at = \(payableAt)
            WHERE id = \(id) AND status = \(status) AND clawed_back = \(returned)
            """) == 1 else { return nil }
        if returned > 0 {
            try post(db, Posting(workspaceId: row.workspaceId, affiliateId: row.affiliateId, programId: programId,
                                 commissionId: id, kind: .reaccrual, currency: currency, test: row.test,
                                 notificationUUID: notificationUUID, transactionId: transactionId),
                     entries: [(.expense, returned), (revived == .pending ? .pending : .payable, -returned)], now: now)
        }
        return (currency, returned)
    }

    /// Takes back `share` (thousandths of a percent, 100000 for all) of every live commission of a transaction:
    /// pending ones from pending, payable ones from payable, which may go below zero when it was already paid. A
    /// prorated share is rounded down to the minor unit, in the affiliate's favour; the share is of the whole
    /// commission, so a second notification with the same share takes nothing more, and a full refund after a
    /// prorated one takes the rest. Taking all of it reverses the commission. Returns what was taken per currency.
    static func clawBack(_ db: any SQLExecutor, programId: ProgramId, transactionId: TransactionId, share: Int64 = 100_000, notificationUUID: String,
                         now: Int64) throws -> [String: Int64] {
        var total: [String: Int64] = [:]
        for row in try db.query("""
            SELECT \(raw: AffiliateRows.Commission.columns) FROM commissions
            WHERE program_id = \(programId) AND transaction_id = \(transactionId) AND status IN ('pending', 'payable')
            """, as: AffiliateRows.Commission.self) {
            let id = row.id, amount = row.amount, currency = row.currency
            guard let (status, taken) = try takeBack(db, commission: id, amount: amount, share: share, seen: (row.status, row.clawedBack))
            else { continue }
            let from: Account = status == .pending ? .pending : .payable
            if taken > 0 {
                try post(db, Posting(workspaceId: row.workspaceId, affiliateId: row.affiliateId, programId: programId,
                                     commissionId: id, kind: .clawback, currency: currency, test: row.test,
                                     notificationUUID: notificationUUID, transactionId: transactionId),
                         entries: [(from, taken), (.expense, -taken)], now: now)
            }
            try Checked.add(taken, to: &total, at: currency)
        }
        return total
    }

    /// `share` thousandths of a percent of `amount`, rounded down (toward the affiliate keeping more).
    static func prorated(_ amount: Int64, share: Int64) -> Int64 {
        let (product, overflow) = amount.multipliedReportingOverflow(by: share)
        return overflow ? amount / 100_000 * share : product / 100_000
    }

    /// Records that `share` of a live commission is taken back and returns the status it had and how much more is
    /// taken now; all of it marks it reversed. A writer that changed it meanwhile (a release from pending to payable,
    /// another clawback, committed while this one waited for the row) is followed: the row is read again and the
    /// update retried, so a refund is never skipped. Nil when it is no longer live or nothing more is due.
    static func takeBack(_ db: any SQLExecutor, commission id: CommissionId, amount: Int64, share: Int64,
                         seen: (status: CommissionStatus, clawed: Int64)) throws -> (status: CommissionStatus, taken: Int64)? {
        var (status, clawed) = seen
        for _ in 0..<3 {
            guard status.isLive else { return nil }
            let target = share >= 100_000 ? amount : min(amount, prorated(amount, share: share))
            let all = target >= amount
            guard all || target > clawed else { return nil }
            if try db.execute("""
                UPDATE commissions SET status = \(all ? .reversed : status), clawed_back = \(max(target, clawed))
                WHERE id = \(id) AND status = \(status) AND clawed_back = \(clawed)
                """) == 1 {
                return (status, max(0, target - clawed))
            }
            guard let current = try db.first("SELECT status, clawed_back FROM commissions WHERE id = \(id)", as: AffiliateRows.CommissionState.self)
            else { return nil }
            (status, clawed) = (current.status, current.clawedBack)
        }
        throw StoreError.conflict("commission \(id) kept changing while it was reversed")
    }

    /// Moves commissions whose holding period is over from pending to payable: what is left of each once a prorated
    /// refund took its share. One clawed back meanwhile by another writer waits for the next pass.
    @discardableResult
    static func releaseDue(_ db: any SQLExecutor, workspaceId: WorkspaceId? = nil, now: Int64) throws -> Int {
        let scope: SQL = workspaceId.map { " AND workspace_id = \($0)" } ?? ""
        var released = 0
        for row in try db.query("""
            SELECT \(raw: AffiliateRows.Commission.columns) FROM commissions
            WHERE status = 'pending' AND payable_at <= \(now)\(scope) ORDER BY payable_at LIMIT 1000
            """, as: AffiliateRows.Commission.self) {
            let id = row.id, clawed = row.clawedBack, amount = row.amount - clawed
            guard try db.execute("UPDATE commissions SET status = 'payable' WHERE id = \(id) AND status = 'pending' AND clawed_back = \(clawed)") == 1 else { continue }
            if amount > 0 {
                try post(db, Posting(workspaceId: row.workspaceId, affiliateId: row.affiliateId, programId: row.programId, commissionId: id,
                                     kind: .release, currency: row.currency, test: row.test, transactionId: row.transactionId),
                         entries: [(.pending, amount), (.payable, -amount)], now: now)
            }
            released += 1
        }
        return released
    }

    /// Balances per currency and mode (live or test).
    static func balances(_ db: any SQLExecutor, affiliateId: AffiliateId) throws -> [CurrencyBalance] {
        var balances: [String: CurrencyBalance] = [:]
        for row in try db.query("""
            SELECT p.currency, p.test, e.account, SUM(e.amount) AS total FROM ledger_postings p JOIN ledger_entries e ON e.posting_id = p.id
            WHERE p.affiliate_id = \(affiliateId) GROUP BY p.currency, p.test, e.account
            """, as: AffiliateRows.AccountTotal.self) {
            let currency = row.currency, test = row.test
            let key = currency + (test ? "|test" : "")
            var balance = balances[key] ?? CurrencyBalance(currency: currency, pending: 0, payable: 0, paid: 0, test: test)
            let total = row.total
            switch row.account {
            case .pending: balance.pending = -total
            case .payable: balance.payable = -total
            case .payouts: balance.paid = -total
            case .expense: break
            }
            balances[key] = balance
        }
        return balances.values.sorted { ($0.test ? 1 : 0, $0.currency) < ($1.test ? 1 : 0, $1.currency) }
    }

    static func postings(_ db: any SQLExecutor, filter: SQL, limit: Int, cursor: String?) throws -> [LedgerPosting] {
        let after: SQL = cursor.map { " AND (p.created_at, p.id) > (SELECT created_at, id FROM ledger_postings WHERE id = \($0))" } ?? ""
        let rows = try db.query("""
            SELECT p.id, p.kind, p.affiliate_id, p.program_id, p.currency, p.test, p.notification_uuid, p.transaction_id, p.reference, p.created_at,
                   c.billing_plan_type, c.billing_period_number, c.total_billing_periods, c.committed_amount, c.commitment_expires_at
            FROM ledger_postings p LEFT JOIN commissions c ON c.id = p.commission_id AND p.kind = 'accrual'
            WHERE 1 = 1\(filter)\(after) ORDER BY p.created_at, p.id LIMIT \(limit)
            """, as: AffiliateRows.Posting.self)
        return try rows.map { row in
            let entries = try db.query("SELECT account, amount FROM ledger_entries WHERE posting_id = \(row.id) ORDER BY line", as: AffiliateRows.Entry.self)
            return row.wire(entries: entries.map(\.wire))
        }
    }
}
