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
        try LedgerQueries.insertPosting(db, id: id, posting, now: now)
        for (line, entry) in entries.enumerated() {
            try LedgerQueries.insertEntry(db, postingId: id, line: line, account: entry.account, amount: entry.amount)
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
        guard try LedgerQueries.insertCommission(db, id: id, commission, payableAt: now + Int64(commission.holdDays) * 86_400_000, now: now)
        else { return false }
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
        guard let row = try LedgerQueries.clawedBackCommission(db, programId: programId, transactionId: transactionId) else { return nil }
        let id = row.id, currency = row.currency, status = row.status
        let returned = row.clawedBack
        let revived: CommissionStatus = status == .reversed ? .pending : status
        let payableAt = status == .reversed ? now + Int64(holdDays) * 86_400_000 : row.payableAt
        guard try LedgerQueries.revive(db, id: id, as: revived, payableAt: payableAt, seen: status, clawedBack: returned) else { return nil }
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
        for row in try LedgerQueries.liveCommissions(db, programId: programId, transactionId: transactionId) {
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
            if try LedgerQueries.setClawedBack(db, id: id, status: all ? .reversed : status, clawedBack: max(target, clawed), seen: (status, clawed)) {
                return (status, max(0, target - clawed))
            }
            guard let current = try LedgerQueries.commissionState(db, id: id) else { return nil }
            (status, clawed) = (current.status, current.clawedBack)
        }
        throw StoreError.conflict("commission \(id) kept changing while it was reversed")
    }

    /// Moves commissions whose holding period is over from pending to payable: what is left of each once a prorated
    /// refund took its share. One clawed back meanwhile by another writer waits for the next pass.
    @discardableResult
    static func releaseDue(_ db: any SQLExecutor, workspaceId: WorkspaceId? = nil, now: Int64) throws -> Int {
        var released = 0
        for row in try LedgerQueries.dueCommissions(db, workspaceId: workspaceId, now: now) {
            let id = row.id, clawed = row.clawedBack, amount = row.amount - clawed
            guard try LedgerQueries.release(db, id: id, clawedBack: clawed) else { continue }
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
        for row in try LedgerQueries.accountTotals(db, affiliateId: affiliateId) {
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

    /// Postings with their entries, oldest first, narrowed by `filter` and after the posting `cursor`.
    static func postings(_ db: any SQLExecutor, filter: SQL, limit: Int, cursor: String?) throws -> [LedgerPosting] {
        try LedgerQueries.postings(db, filter: filter, limit: limit, cursor: cursor).map { row in
            row.wire(entries: try LedgerQueries.entries(db, postingId: row.id).map(\.wire))
        }
    }
}
