import AppleFormats
import Foundation
@testable import RunwayCapabilities
@testable import RunwayConsole
@testable import RunwayKit
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

/// Migration 0015 resolves commissions stored twice for one transaction before the database starts refusing them.
@Suite("One commission per transaction: the migration")
struct CommissionMigrationTests {
    /// A commission row as an earlier version stored it, with its accrual (and its release or clawback) posted.
    static func plant(_ db: any SQLExecutor, id: String, transaction: String, status: String, amount: Int64, createdAt: Int64) throws {
        try db.execute("""
            INSERT INTO commissions (id, workspace_id, affiliate_id, program_id, app_account_token, transaction_id, original_transaction_id,
                                     purchase_date, currency, amount, status, payable_at, test, created_at)
            VALUES (\(id), 'ws_m', 'aff_m', 'prg_m', 'tok', \(transaction), 'orig', 0, 'USD', \(amount), \(status), 0, \(false), \(createdAt))
            """)
        func posting(_ kind: Ledger.PostingKind) -> Ledger.Posting {
            Ledger.Posting(workspaceId: WorkspaceId("ws_m"), affiliateId: AffiliateId(rawValue: "aff_m"), programId: ProgramId(rawValue: "prg_m"),
                           commissionId: CommissionId(rawValue: id), kind: kind, currency: "USD", test: false,
                           transactionId: TransactionId(rawValue: transaction))
        }
        try Ledger.post(db, posting(.accrual), entries: [(.expense, amount), (.pending, -amount)], now: createdAt)
        if status == "payable" { try Ledger.post(db, posting(.release), entries: [(.pending, amount), (.payable, -amount)], now: createdAt) }
        if status == "reversed" { try Ledger.post(db, posting(.clawback), entries: [(.pending, amount), (.expense, -amount)], now: createdAt) }
    }

    @Test("a second live commission is reversed from its account, older rows are marked, nothing is deleted, and the ledger balances",
          arguments: StoreBackend.all)
    func resolvesDuplicates(_ backend: StoreBackend) async throws {
        let location = try await backend.makeLocation()
        let store = try backend.open(location.url, nil)
        _ = try await store.migrate(Schema.migrations.filter { $0.id < "0015" })
        try await store.write { db in
            try Self.plant(db, id: "c1", transaction: "t1", status: "pending", amount: 100, createdAt: 1)
            try Self.plant(db, id: "c2", transaction: "t1", status: "pending", amount: 100, createdAt: 2)
            try Self.plant(db, id: "c3", transaction: "t2", status: "payable", amount: 50, createdAt: 1)
            try Self.plant(db, id: "c4", transaction: "t2", status: "payable", amount: 50, createdAt: 2)
            // A refund reversed, then re-accrued as a new row (as earlier versions did): the live row stays.
            try Self.plant(db, id: "c5", transaction: "t3", status: "reversed", amount: 70, createdAt: 1)
            try Self.plant(db, id: "c6", transaction: "t3", status: "pending", amount: 70, createdAt: 2)
            try Self.plant(db, id: "c7", transaction: "t4", status: "pending", amount: 10, createdAt: 1)
        }
        let applied = try await store.migrate(Schema.migrations)
        #expect(applied.contains("0015_one_commission_per_transaction"))
        let notes = try await Schema.notes(afterApplying: applied, store)
        #expect(notes.count == 1 && notes[0].hasPrefix("3 commissions") && notes[0].contains("2 of them were live"), "\(notes)")

        let (statuses, reversals, balances, unbalanced) = try await store.read { db in
            (Dictionary(uniqueKeysWithValues: try db.query("SELECT id, status FROM commissions").map { (try $0.string("id"), try $0.string("status")) }),
             try db.query("""
                SELECT p.commission_id, e.account, e.amount FROM ledger_postings p JOIN ledger_entries e ON e.posting_id = p.id
                WHERE p.kind = 'duplicate_reversal' ORDER BY p.commission_id, e.line
                """).map { "\(try $0.string("commission_id")) \(try $0.string("account")) \(try $0.int("amount"))" },
             try Ledger.balances(db, affiliateId: AffiliateId(rawValue: "aff_m")),
             try db.query("SELECT posting_id, SUM(amount) AS total FROM ledger_entries GROUP BY posting_id").filter { try $0.int("total") != 0 }.count)
        }
        #expect(statuses == ["c1": "pending", "c2": "duplicate", "c3": "payable", "c4": "duplicate", "c5": "duplicate", "c6": "pending", "c7": "pending"])
        #expect(reversals == ["c2 affiliate_pending 100", "c2 commission_expense -100", "c4 affiliate_payable 50", "c4 commission_expense -50"])
        #expect(balances.first?.pending == 180 && balances.first?.payable == 50, "\(balances)")
        #expect(unbalanced == 0)

        // From now on the database refuses a second commission on a transaction.
        let inserted = try await store.write { db in
            try db.execute("""
                INSERT INTO commissions (id, workspace_id, affiliate_id, program_id, app_account_token, transaction_id, original_transaction_id,
                                         purchase_date, currency, amount, status, payable_at, test, created_at)
                VALUES ('c8', 'ws_m', 'aff_m', 'prg_m', 'tok', 't1', 'orig', 0, 'USD', 100, 'pending', 0, \(false), 3)
                ON CONFLICT (program_id, transaction_id) WHERE status <> 'duplicate' DO NOTHING
                """)
        }
        #expect(inserted == 0)
        await store.close()
    }
}
