import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
import RunwayHTTP
import RunwayStore
import RunwayTestKit
import Synchronization
import Testing

/// A machine whose cores are busy with other work is slow, not down: racing writes on PostgreSQL that deadlock are run
/// again with backoff until they commit, and racing matches answer 200.
@Suite("Overload is not an outage")
struct OverloadTests {
    @Test("writes that take two rows' locks in opposite orders deadlock, and each is run again until it commits", arguments: StoreBackend.postgresOnly)
    func deadlocksRetried(_ backend: StoreBackend) async throws {
        let location = try await backend.makeLocation()
        let store = try backend.open(location.url, nil)
        try await store.write { db in
            try db.execute("CREATE TABLE pair (id BIGINT PRIMARY KEY, n BIGINT NOT NULL)")
            try db.execute("INSERT INTO pair (id, n) VALUES (1, 0), (2, 0)")
        }
        let burner = Burner()
        defer { burner.stop() }
        let writes = 48
        let failures = SharedList()
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<writes {
                group.addTask {
                    let (first, second): (Int64, Int64) = i % 2 == 0 ? (1, 2) : (2, 1)
                    do {
                        try await store.write { db in
                            try db.execute("UPDATE pair SET n = n + 1 WHERE id = \(first)")
                            _ = try db.query("SELECT pg_sleep(0.02)")
                            try db.execute("UPDATE pair SET n = n + 1 WHERE id = \(second)")
                        }
                    } catch {
                        failures.append(String(describing: error))
                    }
                }
            }
        }
        burner.stop()
        #expect(failures.items.isEmpty, "every deadlocked write commits in the end: \(failures.items.prefix(3))")
        let total = try await store.read { db in try db.first("SELECT SUM(n) AS n FROM pair")?.int("n") }
        #expect(total == Int64(2 * writes), "each write counted once")
        await store.close()
    }

    @Test("racing matches from one address on PostgreSQL, with every core busy, all answer 200 and each click is taken once", arguments: StoreBackend.postgresOnly)
    func racingMatchesUnderLoad(_ backend: StoreBackend) async throws {
        let w = try await MatchingTests.world(backend, settings: AttributionSettingsUpdate(probabilisticMinutes: 60))
        let clicks = 40
        for _ in 0..<clicks { _ = await w.server.follow("/promo", userAgent: UserAgents.iPhone) }
        w.clock.advance(seconds: 60)
        let matches = try (0..<(clicks + 10)).map {
            try TestClient.encoded(MatchInstallRequest(installId: "race-\($0)", platform: "ios", osVersion: "17.4", consent: true))
        }
        let burner = Burner()
        defer { burner.stop() }
        let statuses = SharedList()
        await withTaskGroup(of: Void.self) { group in
            for body in matches {
                group.addTask {
                    let response = await w.server.client(w.key).send("POST", "/v1/installs/match", body: body, remoteAddress: "203.0.113.7")
                    statuses.append(response.status == 200 ? "200" : "\(response.status) \(response.bodyText)")
                }
            }
        }
        burner.stop()
        #expect(statuses.items.count == clicks + 10 && statuses.items.allSatisfy { $0 == "200" }, "\(statuses.items.filter { $0 != "200" }.prefix(3))")
        let claims = try await w.server.store.read { db in try db.query("SELECT token FROM clicks WHERE claimed = 1 AND claimed_install_id IS NOT NULL").count }
        #expect(claims == clicks, "every click claimed, none twice")
        await w.server.stop()
    }
}

/// Threads that keep every core busy until stopped (at most `seconds`), as another job on the machine would.
final class Burner: Sendable {
    private let stopped = Atomic<Bool>(false)
    init(threads: Int = ProcessInfo.processInfo.activeProcessorCount, seconds: Double = 60) {
        let deadline = Date().addingTimeInterval(seconds)
        for _ in 0..<threads {
            Thread { [self] in
                var x: UInt64 = 1
                while !stopped.load(ordering: .relaxed) && Date() < deadline {
                    for _ in 0..<100_000 { x = x &* 6364136223846793005 &+ 1 }
                }
                if x == 0 { print("") }
            }.start()
        }
    }
    func stop() { stopped.store(true, ordering: .relaxed) }
}

extension StoreBackend {
    /// PostgreSQL when a server was given, else nothing.
    static var postgresOnly: [StoreBackend] { all.filter { $0.name == "PostgreSQL" } }
}
