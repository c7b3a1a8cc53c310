import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayStore
import RunwayTestKit
import Synchronization
import Testing

/// SIGKILL under concurrent creates that carry an `Idempotency-Key` (apps, links with and without a path, payouts),
/// a restart on the same database, and every request retried with its key: each retry gets the first answer or runs
/// once, no key is left in use by the dead process, and nothing exists twice.
@Suite("Idempotency keys across a crash")
struct IdempotencyCrashTests {
    /// One keyed request and what came of it before the kill.
    struct Sent: Sendable {
        let key: String
        let path: String
        let body: String
        /// The answer, or nil when the kill cut the request off.
        var answer: RawHTTPConnection.Response?
    }

    final class Log: Sendable {
        private let storage = Mutex<[Sent]>([])
        func append(_ sent: Sent) { storage.withLock { $0.append(sent) } }
        var items: [Sent] { storage.withLock { $0 } }
        var answered: Int { storage.withLock { $0.filter { $0.answer != nil }.count } }
    }

    @Test("keyed creates cut off by a SIGKILL replay or run once when retried, over several seeds", arguments: StoreBackend.all)
    func killAndRetry(_ backend: StoreBackend) async throws {
        for seed in 1...3 { try await Self.round(backend, seed: seed) }
    }

    static func round(_ backend: StoreBackend, seed: Int) async throws {
        let location = try await backend.makeLocation()
        let quiet = ["LINKRUNWAY_RATE_LIMIT_ADDRESS": "0", "LINKRUNWAY_RATE_LIMIT_KEY": "0"]
        let server = try await ServerProcess(databaseURL: location.url, environment: quiet)
        let admin = ["Authorization": "Bearer \(try #require(server.printedAdminKey))"]
        let port = server.port
        func call(_ method: String, _ path: String, _ body: (any Encodable)? = nil) async throws -> RawHTTPConnection.Response {
            let text = try body.map { try TestClient.json($0) } ?? ""
            return try await offloaded { try RawHTTPConnection(port: port).request(method, path, headers: admin, body: text) }
        }
        let workspace = try JSONDecoder().decode(Page<Workspace>.self, from: Data(try await call("GET", "/v1/workspaces").body.utf8)).items[0].id
        let affiliate = try JSONDecoder().decode(Affiliate.self, from: Data(try await call("POST", "/v1/affiliates",
            CreateAffiliateRequest(workspaceId: workspace, name: "Paid")).body.utf8))
        // A payable balance to pay from, planted as a balanced posting.
        let store = try backend.open(location.url, nil)
        try await store.write { db in
            try db.execute("""
                INSERT INTO ledger_postings (id, workspace_id, affiliate_id, kind, currency, test, created_at)
                VALUES ('lp_planted', \(workspace), \(affiliate.id), 'release', 'USD', \(false), 0)
                """)
            try db.execute("INSERT INTO ledger_entries (posting_id, line, account, amount) VALUES ('lp_planted', 0, 'commission_expense', 1000000)")
            try db.execute("INSERT INTO ledger_entries (posting_id, line, account, amount) VALUES ('lp_planted', 1, 'affiliate_payable', -1000000)")
        }
        await store.close()

        // Writers cycle through the four kinds of create, each request under a key of its own, until the kill.
        @Sendable func request(_ writer: Int, _ i: Int) throws -> Sent {
            let key = "s\(seed)-w\(writer)-\(i)"
            switch (writer + i) % 4 {
            case 0:
                return Sent(key: key, path: "/v1/apps",
                            body: try TestClient.json(CreateAppRequest(workspaceId: workspace, name: "C", teamId: "ABCDE12345", bundleId: "com.crash.\(key)")))
            case 1:
                return Sent(key: key, path: "/v1/links", body: try TestClient.json(CreateLinkRequest(workspaceId: workspace, campaign: key)))
            case 2:
                return Sent(key: key, path: "/v1/links", body: try TestClient.json(CreateLinkRequest(workspaceId: workspace, path: key, campaign: key)))
            default:
                return Sent(key: key, path: "/v1/affiliates/\(affiliate.id)/payouts", body: try TestClient.json(CreatePayoutRequest(currency: "USD", amount: 1, reference: key)))
            }
        }
        let log = Log()
        let threads = (0..<8).map { writer in
            Thread {
                guard let connection = try? RawHTTPConnection(port: port) else { return }
                for i in 0..<100_000 {
                    guard var sent = try? request(writer, i) else { return }
                    sent.answer = try? connection.request("POST", sent.path, headers: admin.merging(["Idempotency-Key": sent.key]) { $1 }, body: sent.body)
                    log.append(sent)
                    if sent.answer == nil { return }
                }
            }
        }
        threads.forEach { $0.start() }
        let target = 40 + seed * 37
        let deadline = ContinuousClock.now + .seconds(150)
        while log.answered < target && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        #expect(log.answered >= target, "the creates were not answered")
        #expect(try await server.stop(signal: SIGKILL) == SIGKILL)
        try await Task.sleep(for: .milliseconds(300))
        let sent = log.items
        for item in sent where item.answer != nil {
            #expect(item.answer?.status == 201, "seed \(seed): \(item.key) answered \(item.answer?.status ?? 0) \(item.answer?.body ?? "") before the kill")
        }

        // The restarted server: every key answers at once, with the first answer or by running now.
        let again = try await ServerProcess(databaseURL: location.url, environment: quiet)
        let retried = try await offloaded { () -> [(Sent, RawHTTPConnection.Response)] in
            let connection = try RawHTTPConnection(port: again.port)
            return try sent.map { item in
                (item, try connection.request("POST", item.path, headers: admin.merging(["Idempotency-Key": item.key]) { $1 }, body: item.body))
            }
        }
        var cutOffReplayed = 0, cutOffRan = 0
        for (item, retry) in retried {
            #expect(retry.status == 201, "seed \(seed): the retry of \(item.key) answered \(retry.status) \(retry.body)")
            if let first = item.answer {
                #expect(retry.headers["idempotent-replayed"] == "true" && retry.body == first.body,
                        "seed \(seed): the retry of the answered \(item.key) is the first answer")
            } else if retry.headers["idempotent-replayed"] == "true" {
                cutOffReplayed += 1
            } else {
                cutOffRan += 1
            }
        }
        #expect(cutOffReplayed + cutOffRan == sent.filter { $0.answer == nil }.count)
        _ = try await again.stop(signal: SIGTERM)

        // One resource per key, whatever happened to the first attempt.
        let after = try backend.open(location.url, nil)
        let stored = try await after.read { db in
            try db.query("SELECT bundle_id AS k FROM apps WHERE bundle_id LIKE 'com.crash.%'").map { String(try $0.string("k").dropFirst("com.crash.".count)) }
                + db.query("SELECT campaign AS k FROM links WHERE campaign IS NOT NULL").map { try $0.string("k") }
                + db.query("SELECT reference AS k FROM ledger_postings WHERE kind = 'payout'").map { try $0.string("k") }
        }
        let (unbalanced, instances) = try await after.read { db in
            (try db.query("SELECT posting_id, SUM(amount) AS total FROM ledger_entries GROUP BY posting_id").filter { try $0.int("total") != 0 }.count,
             try db.query("SELECT id FROM server_instances").count)
        }
        await after.close()
        let counts = Dictionary(stored.map { ($0, 1) }, uniquingKeysWith: +)
        let keys = Set(sent.map(\.key))
        #expect(keys.allSatisfy { counts[$0] == 1 }, "seed \(seed): keys without exactly one resource: \(keys.filter { counts[$0] != 1 }.sorted().prefix(5))")
        #expect(Set(counts.keys) == keys, "seed \(seed): nothing was made without a key")
        #expect(unbalanced == 0)
        #expect(instances == 1, "the killed server's heartbeat stays (until a day old); the one stopped cleanly took its own away")
        print("idempotency crash round \(seed) on \(backend.name): \(sent.count) keyed creates, \(cutOffReplayed) cut off and replayed, \(cutOffRan) cut off and run on retry")
    }

}
