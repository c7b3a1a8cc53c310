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
    static let expense = "commission_expense"
    static let pending = "affiliate_pending"
    static let payable = "affiliate_payable"
    static let payouts = "payouts"

    struct Posting {
        var workspaceId: String
        var affiliateId: String
        var programId: String?
        var commissionId: String?
        var kind: String
        var currency: String
        var test: Bool
        var notificationUUID: String?
        var transactionId: String?
        var reference: String?
    }

    /// Writes a posting; refuses one that does not balance.
    @discardableResult
    static func post(_ db: any SQLExecutor, _ posting: Posting, entries: [(account: String, amount: Int64)], now: Int64) throws -> String {
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
        let workspaceId: String
        let affiliateId: String
        let programId: String
        let token: String
        let transactionId: String
        let originalTransactionId: String
        let purchaseDate: Int64
        let currency: String
        let amount: Int64
        let holdDays: Int
        let test: Bool
    }

    /// Records the commission and its accrual, unless the program already has one for the transaction (the unique index
    /// `commissions_one_per_transaction` decides, so of two writers at the same instant one accrues); false then.
    static func accrue(_ db: any SQLExecutor, _ commission: Commission, notificationUUID: String, now: Int64) throws -> Bool {
        let id = Identifier.make("com")
        guard try db.execute("""
            INSERT INTO commissions (id, workspace_id, affiliate_id, program_id, app_account_token, transaction_id, original_transaction_id,
                                     purchase_date, currency, amount, status, payable_at, test, created_at)
            VALUES (\(id), \(commission.workspaceId), \(commission.affiliateId), \(commission.programId), \(commission.token),
                    \(commission.transactionId), \(commission.originalTransactionId), \(commission.purchaseDate), \(commission.currency),
                    \(commission.amount), 'pending', \(now + Int64(commission.holdDays) * 86_400_000), \(commission.test), \(now))
            ON CONFLICT (program_id, transaction_id) WHERE status <> 'duplicate' DO NOTHING
            """) == 1 else { return false }
        guard commission.amount > 0 else { return true }
        try post(db, Posting(workspaceId: commission.workspaceId, affiliateId: commission.affiliateId, programId: commission.programId,
                             commissionId: id, kind: "accrual", currency: commission.currency, test: commission.test, notificationUUID: notificationUUID,
                             transactionId: commission.transactionId),
                 entries: [(expense, commission.amount), (pending, -commission.amount)], now: now)
        return true
    }

    /// A refund Apple reversed: the transaction's reversed commission accrues again with a new holding period. Returns its
    /// currency and amount, or nil when it is not reversed (never accrued, or already revived by another writer).
    static func reaccrue(_ db: any SQLExecutor, programId: String, transactionId: String, holdDays: Int, notificationUUID: String,
                         now: Int64) throws -> (currency: String, amount: Int64)? {
        guard let row = try db.first("""
            SELECT id, workspace_id, affiliate_id, currency, amount, test FROM commissions
            WHERE program_id = \(programId) AND transaction_id = \(transactionId) AND status = 'reversed'
            """) else { return nil }
        let id = try row.string("id"), amount = try row.int("amount"), currency = try row.string("currency")
        guard try db.execute("""
            UPDATE commissions SET status = 'pending', payable_at = \(now + Int64(holdDays) * 86_400_000) WHERE id = \(id) AND status = 'reversed'
            """) == 1 else { return nil }
        if amount > 0 {
            try post(db, Posting(workspaceId: try row.string("workspace_id"), affiliateId: try row.string("affiliate_id"), programId: programId,
                                 commissionId: id, kind: "reaccrual", currency: currency, test: try row.bool("test"),
                                 notificationUUID: notificationUUID, transactionId: transactionId),
                     entries: [(expense, amount), (pending, -amount)], now: now)
        }
        return (currency, amount)
    }

    /// Reverses every live commission of a transaction (pending ones from pending, payable ones from payable, which
    /// may go below zero when it was already paid). Returns the total clawed back per currency.
    static func clawBack(_ db: any SQLExecutor, programId: String, transactionId: String, notificationUUID: String, now: Int64) throws -> [String: Int64] {
        var total: [String: Int64] = [:]
        for row in try db.query("""
            SELECT id, workspace_id, affiliate_id, currency, amount, status, test FROM commissions
            WHERE program_id = \(programId) AND transaction_id = \(transactionId) AND status IN ('pending', 'payable')
            """) {
            let id = try row.string("id"), amount = try row.int("amount"), currency = try row.string("currency")
            guard let status = try reverse(db, commission: id, seen: try row.string("status")) else { continue }
            let from = status == "pending" ? pending : payable
            if amount > 0 {
                try post(db, Posting(workspaceId: try row.string("workspace_id"), affiliateId: try row.string("affiliate_id"), programId: programId,
                                     commissionId: id, kind: "clawback", currency: currency, test: try row.bool("test"),
                                     notificationUUID: notificationUUID, transactionId: transactionId),
                         entries: [(from, amount), (expense, -amount)], now: now)
            }
            total[currency, default: 0] += amount
        }
        return total
    }

    /// Marks a live commission reversed and returns the status it had. A writer that moved it meanwhile (a release from
    /// pending to payable, committed while this one waited for the row) is followed: the status is read again and the
    /// reversal retried, so a refund is never skipped. Nil when it is no longer live.
    static func reverse(_ db: any SQLExecutor, commission id: String, seen: String) throws -> String? {
        var status = seen
        for _ in 0..<3 {
            guard status == "pending" || status == "payable" else { return nil }
            if try db.execute("UPDATE commissions SET status = 'reversed' WHERE id = \(id) AND status = \(status)") == 1 { return status }
            guard let current = try db.first("SELECT status FROM commissions WHERE id = \(id)") else { return nil }
            status = try current.string("status")
        }
        throw StoreError.conflict("commission \(id) kept changing while it was reversed")
    }

    /// Moves commissions whose holding period is over from pending to payable.
    @discardableResult
    static func releaseDue(_ db: any SQLExecutor, workspaceId: String? = nil, now: Int64) throws -> Int {
        let scope: SQL = workspaceId.map { " AND workspace_id = \($0)" } ?? ""
        var released = 0
        for row in try db.query("""
            SELECT id, workspace_id, affiliate_id, program_id, transaction_id, currency, amount, test FROM commissions
            WHERE status = 'pending' AND payable_at <= \(now)\(scope) ORDER BY payable_at LIMIT 1000
            """) {
            let id = try row.string("id"), amount = try row.int("amount")
            guard try db.execute("UPDATE commissions SET status = 'payable' WHERE id = \(id) AND status = 'pending'") == 1 else { continue }
            if amount > 0 {
                try post(db, Posting(workspaceId: try row.string("workspace_id"), affiliateId: try row.string("affiliate_id"),
                                     programId: try row.string("program_id"), commissionId: id, kind: "release", currency: try row.string("currency"),
                                     test: try row.bool("test"), transactionId: try row.string("transaction_id")),
                         entries: [(pending, amount), (payable, -amount)], now: now)
            }
            released += 1
        }
        return released
    }

    /// Balances per currency and mode (live or test).
    static func balances(_ db: any SQLExecutor, affiliateId: String) throws -> [CurrencyBalance] {
        var balances: [String: CurrencyBalance] = [:]
        for row in try db.query("""
            SELECT p.currency, p.test, e.account, SUM(e.amount) AS total FROM ledger_postings p JOIN ledger_entries e ON e.posting_id = p.id
            WHERE p.affiliate_id = \(affiliateId) GROUP BY p.currency, p.test, e.account
            """) {
            let currency = try row.string("currency"), test = try row.bool("test")
            let key = currency + (test ? "|test" : "")
            var balance = balances[key] ?? CurrencyBalance(currency: currency, pending: 0, payable: 0, paid: 0, test: test)
            let total = try row.int("total")
            switch try row.string("account") {
            case pending: balance.pending = -total
            case payable: balance.payable = -total
            case payouts: balance.paid = -total
            default: break
            }
            balances[key] = balance
        }
        return balances.values.sorted { ($0.test ? 1 : 0, $0.currency) < ($1.test ? 1 : 0, $1.currency) }
    }

    static func postings(_ db: any SQLExecutor, filter: SQL, limit: Int, cursor: String?) throws -> [LedgerPosting] {
        let after: SQL = cursor.map { " AND (created_at, id) > (SELECT created_at, id FROM ledger_postings WHERE id = \($0))" } ?? ""
        let rows = try db.query("""
            SELECT id, kind, affiliate_id, program_id, currency, test, notification_uuid, transaction_id, reference, created_at
            FROM ledger_postings WHERE 1 = 1\(filter)\(after) ORDER BY created_at, id LIMIT \(limit)
            """)
        return try rows.map { row in
            let id = try row.string("id")
            let entries = try db.query("SELECT account, amount FROM ledger_entries WHERE posting_id = \(id) ORDER BY line").map {
                LedgerEntry(account: try $0.string("account"), amount: try $0.int("amount"))
            }
            return LedgerPosting(id: id, kind: try row.string("kind"), affiliateId: try row.string("affiliate_id"),
                                 programId: try row.optionalString("program_id"), currency: try row.string("currency"), test: try row.bool("test"),
                                 notificationUUID: try row.optionalString("notification_uuid"), transactionId: try row.optionalString("transaction_id"),
                                 reference: try row.optionalString("reference"), createdAt: Timestamp.iso(try row.int("created_at")), entries: entries)
        }
    }
}
