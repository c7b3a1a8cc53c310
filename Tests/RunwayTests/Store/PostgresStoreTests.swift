import Foundation
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayCrypto
import RunwayHTTP
@testable import RunwayKit
@testable import RunwayPostgres
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Synchronization
import Testing

/// What only PostgreSQL needs checking: dropped connections, an unreachable server, the pool's wait timeout.
@Suite("PostgreSQL backend", .enabled(if: StoreBackend.postgresURL != nil, "LINKRUNWAY_TEST_POSTGRES_URL is not set"))
struct PostgresStoreTests {
    @Test("connections the server drops are replaced without failing the next call")
    func reconnects() async throws {
        let location = try await StoreBackend.postgres.makeLocation()
        let store = try StoreBackend.postgres.open(location.url, nil)
        _ = try await store.migrate(ConformanceSchema.migrations)
        try await store.write { db in try db.execute("INSERT INTO items (id) VALUES ('before')") }
        let database = StoreBackend.databaseName(of: location.url)
        let admin = StoreBackend.postgresURL!
        try await offloaded {
            try PostgresAdministration.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)' AND pid <> pg_backend_pid()", on: admin)
        }
        try await store.write { db in try db.execute("INSERT INTO items (id) VALUES ('after')") }
        for _ in 0..<4 {
            let ids = try await store.read { try $0.query("SELECT id FROM items ORDER BY id").map { try $0.string("id") } }
            #expect(ids == ["after", "before"])
        }
        await store.close()
    }

    @Test("an unreachable server is reported as unavailable, quickly")
    func unreachable() async throws {
        // A queue timeout far beyond what the whole suite, on two busy cores, can delay a refused connection by.
        let store = PostgresStore(url: "postgres://nobody@127.0.0.1:1/none", options: .init(readers: 1, queueTimeout: 600))
        let started = ContinuousClock.now
        await #expect(throws: StoreError.self) { try await store.ping() }
        do {
            _ = try await store.write { try $0.execute("SELECT 1") }
            Issue.record("a write to an unreachable server succeeded")
        } catch let error as StoreError {
            guard case .unavailable(let reason) = error else { Issue.record("expected unavailable, got \(error)"); return }
            #expect(!reason.contains("waited more than"), "refused for the connection, not after the queue timeout: \(reason)")
        }
        // Failing on the refused connection, not after the ten-minute queue timeout.
        #expect(started.duration(to: .now) < .seconds(300))
        await store.close()
    }

    @Test("a server whose database is unreachable says so on /readyz and answers 503, never a crash")
    func unreachableServer() async throws {
        let store = PostgresStore(url: "postgres://nobody@127.0.0.1:1/none", options: .init(writers: 1, readers: 1))
        let services = ServerServices(store: store, logger: Logger(level: .error, sink: .memory()), metrics: MetricsRegistry(),
                                      secrets: InstanceSecrets(clickSigningKey: Array(repeating: 1, count: 32)),
                                      secretBox: SecretBox(key: Array(repeating: 2, count: 32))!)
        let client = TestClient(ServerApplication.make(services, maxBodyBytes: 1 << 20))
        let ready = await client.get("/readyz")
        #expect(ready.status == 503)
        #expect(ready.bodyText.contains("unavailable"))
        let apps = await TestClient(client.application, bearer: "lr_sk_" + String(repeating: "a", count: 48)).get("/v1/apps")
        #expect(apps.status == 503)
        #expect(apps.errorCode == "store_unavailable")
        #expect(await client.get("/healthz").status == 200)
        await store.close()
    }

    @Test("work that waits too long for a pooled connection is refused")
    func poolWaitTimeout() async throws {
        let location = try await StoreBackend.postgres.makeLocation()
        let store = PostgresStore(url: location.url, options: .init(readers: 1, queueTimeout: 0.2))
        // The reader connects first, so the held read below is taken at once: on a loaded machine opening the
        // connection alone can take longer than the 0.2 s a read may wait.
        var connected = false
        for _ in 0..<50 where !connected { connected = (try? await store.read { try $0.query("SELECT 1 AS one") }) != nil }
        #expect(connected)
        // The reader is held until the test lets it go, and the second read is let through only once it has sat in
        // the queue past its timeout, however slowly this machine runs.
        let started = Atomic<Bool>(false)
        let release = DispatchSemaphore(value: 0)
        async let slow: Void = store.read { db in
            started.store(true, ordering: .releasing)
            _ = release.wait(timeout: .now() + 60)
            _ = try db.query("SELECT 1 AS one")
        }
        while !started.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(5)) }
        async let waiting: Result<[SQLRow], any Error> = {
            do { return .success(try await store.read { try $0.query("SELECT 1 AS one") }) } catch { return .failure(error) }
        }()
        while store.engine.queuedReads == 0 { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(400))
        release.signal()
        let outcome = await waiting
        #expect(throws: StoreError.self) { try outcome.get() }
        try await slow
        // The pool serves again (a loaded machine may let a read sit past 0.2 s once more: that is the same refusal).
        var served = false
        for _ in 0..<20 where !served { served = (try? await store.read { try $0.query("SELECT 1 AS one") }) != nil }
        #expect(served)
        await store.close()
    }

    @Test("SQLSTATEs map to the store's error kinds")
    func errorMapping() {
        #expect(PostgresConnection.error(sqlstate: "23505", message: "") == .conflict(""))
        #expect(PostgresConnection.error(sqlstate: "23503", message: "") == .constraint(""))
        #expect(PostgresConnection.error(sqlstate: "40P01", message: "x") == .transactionConflict("x"))
        #expect(PostgresConnection.error(sqlstate: "40001", message: "x") == .transactionConflict("x"))
        #expect(PostgresConnection.error(sqlstate: "55P03", message: "x") == .unavailable("retry: x"))
        #expect(PostgresConnection.error(sqlstate: "08006", message: "") == .unavailable(""))
        #expect(PostgresConnection.error(sqlstate: "53300", message: "") == .unavailable(""))
        #expect(PostgresConnection.error(sqlstate: "42P01", message: "m") == .failed("42P01: m"))
    }

    @Test("two writes that deadlock both land: the one PostgreSQL aborts runs again after the other commits")
    func deadlockRetried() async throws {
        let location = try await StoreBackend.postgres.makeLocation()
        let store = try StoreBackend.postgres.open(location.url, nil)
        _ = try await store.migrate(ConformanceSchema.migrations)
        let firstHeld = DispatchSemaphore(value: 0), secondHeld = DispatchSemaphore(value: 0)
        let runs = RunCounter()
        async let first: Void = store.write(Self.crossing("a", "b", runs: runs, held: firstHeld, awaiting: secondHeld))
        // The second write must reach another writer connection, so it is queued only once the first is running.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { firstHeld.wait(); firstHeld.signal(); done.resume() }
        }
        async let second: Void = store.write(Self.crossing("b", "a", runs: runs, held: secondHeld, awaiting: firstHeld))
        try await first
        try await second
        let ids = try await store.read { try $0.query("SELECT id FROM items ORDER BY id").map { try $0.string("id") } }
        #expect(ids == ["a", "b"])
        // PostgreSQL aborts at least one of the two, which runs again. Under load a rerun may meet the other again, and
        // a CI run once saw each aborted once ([2, 2]): what is promised is that both land, each within its attempts.
        let sortedRuns = runs.counts.withLock { $0.values.sorted() }
        #expect(sortedRuns.count == 2 && sortedRuns.reduce(0, +) >= 3 && sortedRuns.allSatisfy { $0 <= 8 },
                "both writes ran, an aborted one ran again, none past its attempts: \(sortedRuns)")
        await store.close()
    }

    final class RunCounter: Sendable {
        let counts = Mutex([String: Int]())
    }

    /// A write that takes its own row, waits (on its first run only) until the other has taken its row, then takes the
    /// other's: two of them deadlock.
    static func crossing(_ mine: String, _ theirs: String, runs: RunCounter, held: DispatchSemaphore,
                         awaiting: DispatchSemaphore) -> @Sendable (any SQLExecutor) throws -> Void {
        { db in
            let run = runs.counts.withLock { counts in
                counts[mine, default: 0] += 1
                return counts[mine]!
            }
            try db.execute("INSERT INTO items (id) VALUES (\(mine)) ON CONFLICT (id) DO NOTHING")
            if run == 1 {
                held.signal()
                _ = awaiting.wait(timeout: .now() + 120)
            }
            try db.execute("INSERT INTO items (id) VALUES (\(theirs)) ON CONFLICT (id) DO NOTHING")
        }
    }
}
