import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
@testable import RunwayKit
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

@Suite("Ledger postings")
struct LedgerTests {
    @Test("a posting must balance: an unbalanced or empty one is refused and leaves nothing; a balanced one is kept line by line")
    func postingsBalance() async throws {
        let server = try await TestServer.start()
        let workspace = server.defaultWorkspace.id
        let affiliate = try await server.admin.post("/v1/affiliates", CreateAffiliateRequest(workspaceId: workspace, name: "Ledger"))
            .decoded(Affiliate.self, status: 201)
        let posting = Ledger.Posting(workspaceId: WorkspaceId(workspace), affiliateId: AffiliateId(rawValue: affiliate.id), programId: nil, commissionId: nil, kind: .release,
                                     currency: "EUR", test: false, notificationUUID: nil, transactionId: nil, reference: nil)
        func refused(_ entries: [(account: Ledger.Account, amount: Int64)]) async -> Bool {
            do {
                _ = try await server.store.write { db in try Ledger.post(db, posting, entries: entries, now: 1) }
                return false
            } catch StoreError.failed(let why) {
                return why.contains("balance")
            } catch {
                return false
            }
        }
        #expect(await refused([(.expense, 1000), (.payable, -999)]), "one minor unit short")
        #expect(await refused([(.expense, 1000), (.payable, -1000), (.payouts, 1)]), "one minor unit over")
        #expect(await refused([(.expense, 1000)]), "a single line")
        #expect(await refused([]), "no lines")
        let count = { try await server.store.read { db in try db.first("SELECT COUNT(*) AS n FROM ledger_entries")!.int("n") } }
        #expect(try await count() == 0, "a refused posting writes nothing")

        let id = try await server.store.write { db in
            try Ledger.post(db, posting, entries: [(.expense, 1000), (.payable, -400), (.pending, -600)], now: 1)
        }
        let lines = try await server.store.read { db in
            try db.query("SELECT line, account, amount FROM ledger_entries WHERE posting_id = \(id) ORDER BY line").map {
                "\(try $0.int("line")):\(try $0.string("account")):\(try $0.int("amount"))"
            }
        }
        #expect(lines == ["0:commission_expense:1000", "1:affiliate_payable:-400", "2:affiliate_pending:-600"])
        let balances = try await server.store.read { db in try Ledger.balances(db, affiliateId: AffiliateId(rawValue: affiliate.id)) }
        #expect(balances.map { "\($0.currency) \($0.pending) \($0.payable) \($0.paid)" } == ["EUR 600 400 0"])
        await server.stop()
    }
}
