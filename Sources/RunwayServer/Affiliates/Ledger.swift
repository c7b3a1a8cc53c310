import Foundation
import LinkRunwayAPI
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

    static func accrue(_ db: any SQLExecutor, _ commission: Commission, kind: String = "accrual", notificationUUID: String, now: Int64) throws {
        let id = Identifier.make("com")
        try db.execute("""
            INSERT INTO commissions (id, workspace_id, affiliate_id, program_id, app_account_token, transaction_id, original_transaction_id,
                                     purchase_date, currency, amount, status, payable_at, test, created_at)
            VALUES (\(id), \(commission.workspaceId), \(commission.affiliateId), \(commission.programId), \(commission.token),
                    \(commission.transactionId), \(commission.originalTransactionId), \(commission.purchaseDate), \(commission.currency),
                    \(commission.amount), 'pending', \(now + Int64(commission.holdDays) * 86_400_000), \(commission.test), \(now))
            """)
        guard commission.amount > 0 else { return }
        try post(db, Posting(workspaceId: commission.workspaceId, affiliateId: commission.affiliateId, programId: commission.programId,
                             commissionId: id, kind: kind, currency: commission.currency, test: commission.test, notificationUUID: notificationUUID,
                             transactionId: commission.transactionId),
                 entries: [(expense, commission.amount), (pending, -commission.amount)], now: now)
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
            let from = try row.string("status") == "pending" ? pending : payable
            guard try db.execute("UPDATE commissions SET status = 'reversed' WHERE id = \(id) AND status = \(try row.string("status"))") == 1 else { continue }
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
