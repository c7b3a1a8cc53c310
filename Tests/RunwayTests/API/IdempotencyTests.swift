import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayCrypto
import RunwayHTTP
@testable import RunwayKit
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

@Suite("Idempotency keys")
struct IdempotencyTests {
    static func appBody(_ workspace: String, bundle: String) -> String {
        #"{"workspaceId":"\#(workspace)","name":"Idem","teamId":"ABCDE12345","bundleId":"\#(bundle)"}"#
    }

    static func appCount(_ server: TestServer) async throws -> Int {
        try await server.admin.get("/v1/apps").decoded(Page<App>.self).items.count
    }

    @Test("a retry with the same key gets the first answer and nothing is done twice", arguments: StoreBackend.all)
    func replay(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        let body = Self.appBody(server.defaultWorkspace.id, bundle: "com.idem.one")
        let first = await server.admin.post("/v1/apps", json: body, headers: [("Idempotency-Key", "k-1")])
        let second = await server.admin.post("/v1/apps", json: body, headers: [("Idempotency-Key", "k-1")])
        #expect(first.status == 201)
        #expect(second.status == 201)
        #expect(second.body == first.body)
        #expect(second.headers["Idempotent-Replayed"] == "true")
        #expect(first.headers["Idempotent-Replayed"] == nil)
        #expect(try await Self.appCount(server) == 1)

        // A client error is an answer too: the same request with another key conflicts, and its retry replays that.
        let conflict = await server.admin.post("/v1/apps", json: body, headers: [("Idempotency-Key", "k-2")])
        #expect(conflict.errorCode == "app_exists")
        let conflictAgain = await server.admin.post("/v1/apps", json: body, headers: [("Idempotency-Key", "k-2")])
        #expect(conflictAgain.status == 409)
        #expect(conflictAgain.headers["Idempotent-Replayed"] == "true")

        let reused = await server.admin.post("/v1/apps", json: Self.appBody(server.defaultWorkspace.id, bundle: "com.idem.other"),
                                             headers: [("Idempotency-Key", "k-1")])
        #expect(reused.status == 422)
        #expect(reused.errorCode == "idempotency_key_reused")
        await server.stop()
    }

    @Test("keys are checked, scoped per API key, and ignored where a route does not offer them")
    func rules() async throws {
        let server = try await TestServer.start()
        let ws = server.defaultWorkspace.id
        let bad = await server.admin.post("/v1/apps", json: Self.appBody(ws, bundle: "com.idem.bad"),
                                          headers: [("Idempotency-Key", String(repeating: "x", count: 256))])
        #expect(bad.errorCode == "invalid_idempotency_key")
        // Key creation never keeps its answer: that would store the secret.
        let a = try await server.admin.post("/v1/keys", CreateKeyRequest(kind: .admin), headers: [("Idempotency-Key", "same")])
        let b = try await server.admin.post("/v1/keys", CreateKeyRequest(kind: .admin), headers: [("Idempotency-Key", "same")])
        #expect(a.status == 201 && b.status == 201)
        #expect(a.body != b.body)
        let stored = try await server.store.read { try $0.query("SELECT response_body FROM idempotency_keys").map { try $0.optionalString("response_body") ?? "" } }
        #expect(!stored.contains { $0.contains("lr_ak_") })

        // Another workspace's server key using the same key string does its own work.
        let other = try await server.createWorkspace("Other")
        let otherKey = try await server.createKey(.server, workspace: other.id)
        let mine = try await server.createKey(.server, workspace: ws)
        let one = await server.client(mine.secret).post("/v1/apps", json: Self.appBody(ws, bundle: "com.idem.scope"), headers: [("Idempotency-Key", "shared")])
        let two = await server.client(otherKey.secret).post("/v1/apps", json: Self.appBody(other.id, bundle: "com.idem.scope2"), headers: [("Idempotency-Key", "shared")])
        #expect(one.status == 201 && two.status == 201)
        #expect(two.headers["Idempotent-Replayed"] == nil)

        // The app's publishable key (anyone has it) cannot take a key a backend of the same workspace will use.
        let app = try await server.createApp(in: ws)
        let publishable = try await server.createKey(.publishable, app: app.id)
        let squatted = try await server.client(publishable.secret).post("/v1/shares", CreateShareRequest(installId: "sq-1", appPath: "/p"),
                                                                       headers: [("Idempotency-Key", "payout-aff-2026-12")])
        #expect(squatted.status == 201)
        let backend = await server.client(mine.secret).post("/v1/apps", json: Self.appBody(ws, bundle: "com.idem.backend"),
                                                           headers: [("Idempotency-Key", "payout-aff-2026-12")])
        #expect(backend.status == 201 && backend.headers["Idempotent-Replayed"] == nil, "\(backend.status) \(backend.bodyText)")
        let again = await server.client(mine.secret).post("/v1/apps", json: Self.appBody(ws, bundle: "com.idem.backend"),
                                                         headers: [("Idempotency-Key", "payout-aff-2026-12")])
        #expect(again.headers["Idempotent-Replayed"] == "true" && again.body == backend.body, "its own retry still replays")
        await server.stop()
    }

    @Test("an answer kept before keys were scoped per caller is still replayed to the same request of its workspace, and holds back no other")
    func answersKeptBeforeScoping() async throws {
        let server = try await TestServer.start()
        let ws = server.defaultWorkspace.id
        let key = try await server.createKey(.server, workspace: ws)
        let body = Self.appBody(ws, bundle: "com.idem.legacy")
        let hash = ByteEncoding.hex(Digest.sha256(Array("POST /v1/apps\n".utf8) + Array(body.utf8)))
        let now = server.services.clock.nowMilliseconds()
        try await server.store.write { db in
            try db.execute("""
                INSERT INTO idempotency_keys (scope, idempotency_key, request_hash, created_at, owner, claim, status, content_type, response_body)
                VALUES (\(ws), 'before', \(hash), \(now - 1000), 'gone', 'old', 201, 'application/json', '{"kept":true}')
                """)
        }
        let replayed = await server.client(key.secret).post("/v1/apps", json: body, headers: [("Idempotency-Key", "before")])
        #expect(replayed.headers["Idempotent-Replayed"] == "true" && replayed.bodyText == #"{"kept":true}"#)
        let other = await server.client(key.secret).post("/v1/apps", json: Self.appBody(ws, bundle: "com.idem.other"), headers: [("Idempotency-Key", "before")])
        #expect(other.status == 201 && other.headers["Idempotent-Replayed"] == nil, "another request under the old scope runs")
        await server.stop()
    }

    @Test("concurrent requests with one key create one thing", arguments: StoreBackend.all)
    func concurrent(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        let body = Self.appBody(server.defaultWorkspace.id, bundle: "com.idem.race")
        let responses = await withTaskGroup(of: HTTPResponse.self) { group in
            for _ in 0..<12 {
                group.addTask { await server.admin.post("/v1/apps", json: body, headers: [("Idempotency-Key", "race")]) }
            }
            return await group.reduce(into: [HTTPResponse]()) { $0.append($1) }
        }
        let created = responses.filter { $0.status == 201 }
        #expect(!created.isEmpty)
        #expect(Set(created.map(\.body)).count == 1)
        #expect(responses.allSatisfy { $0.status == 201 || $0.errorCode == "idempotency_key_in_use" })
        #expect(try await Self.appCount(server) == 1)
        await server.stop()
    }

    /// The scope of the test server's admin key.
    static func adminScope(_ server: TestServer) async throws -> String {
        "principal:" + (try await server.admin.get("/v1/me").decoded(WhoAmI.self).keyId)
    }

    /// Plants a claim on `key` for the app request `body`, as a first request owned by `owner` left it.
    static func plantClaim(_ server: TestServer, key: String, body: String, owner: String, createdAt: Int64) async throws {
        let hash = ByteEncoding.hex(Digest.sha256(Array("POST /v1/apps\n".utf8) + Array(body.utf8)))
        let scope = try await adminScope(server)
        try await server.store.write { db in
            try db.execute("""
                INSERT INTO idempotency_keys (scope, idempotency_key, request_hash, created_at, owner, claim)
                VALUES (\(scope), \(key), \(hash), \(createdAt), \(owner), 'planted')
                """)
        }
    }

    @Test("a key whose process is gone is taken over at once; one whose process runs, or whose other machine still beats, waits",
          arguments: StoreBackend.all)
    func abandonedClaims(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        let now = server.services.clock.nowMilliseconds()
        let here = ServerInstance.current
        // Claims made "now" are planted an hour ahead, so they stay within the minute however slowly a loaded machine
        // runs this test; only the claim meant to be abandoned is planted in the past.
        let fresh = now + 3_600_000
        @Sendable func send(_ key: String, _ bundle: String) async -> HTTPResponse {
            await server.admin.post("/v1/apps", json: Self.appBody(server.defaultWorkspace.id, bundle: bundle), headers: [("Idempotency-Key", key)])
        }

        // A process of this machine that has exited.
        let finished = try Subprocess("/bin/true", [])
        finished.wait()
        let gone = ServerInstance(id: "inst_gone", machine: here.machine, pid: finished.pid, startTicks: here.startTicks)
        try await Self.plantClaim(server, key: "gone", body: Self.appBody(server.defaultWorkspace.id, bundle: "com.idem.gone"), owner: gone.owner, createdAt: fresh)
        #expect(await send("gone", "com.idem.gone").status == 201)

        // This very process (as good as another live one), and a reused pid: the start time tells them apart.
        try await Self.plantClaim(server, key: "alive", body: Self.appBody(server.defaultWorkspace.id, bundle: "com.idem.alive"), owner: here.owner, createdAt: fresh)
        #expect(await send("alive", "com.idem.alive").errorCode == "idempotency_key_in_use")
        let reused = ServerInstance(id: "inst_reused", machine: here.machine, pid: here.pid, startTicks: here.startTicks + 1)
        try await Self.plantClaim(server, key: "reused", body: Self.appBody(server.defaultWorkspace.id, bundle: "com.idem.reused"), owner: reused.owner, createdAt: fresh)
        #expect(await send("reused", "com.idem.reused").status == 201)

        // Another machine: its heartbeat decides, and without one the claim is held for a minute.
        let far = ServerInstance(id: "inst_far", machine: "elsewhere/boot", pid: here.pid, startTicks: here.startTicks)
        try await server.store.write { db in
            // A heartbeat from the future stays fresh however slowly this test runs.
            try db.execute("INSERT INTO server_instances (id, owner, started_at, heartbeat_at) VALUES ('inst_far', \(far.owner), 0, \(now + 3_600_000))")
        }
        try await Self.plantClaim(server, key: "far", body: Self.appBody(server.defaultWorkspace.id, bundle: "com.idem.far"), owner: far.owner, createdAt: fresh)
        #expect(await send("far", "com.idem.far").errorCode == "idempotency_key_in_use")
        try await server.store.write { db in
            try db.execute("UPDATE server_instances SET heartbeat_at = \(now - ServerInstance.heartbeatFreshMilliseconds - 1000) WHERE id = 'inst_far'")
        }
        #expect(await send("far", "com.idem.far").status == 201)
        let silent = ServerInstance(id: "inst_silent", machine: "elsewhere/boot", pid: 1, startTicks: 1)
        try await Self.plantClaim(server, key: "silent", body: Self.appBody(server.defaultWorkspace.id, bundle: "com.idem.silent"), owner: silent.owner, createdAt: fresh)
        #expect(await send("silent", "com.idem.silent").errorCode == "idempotency_key_in_use")
        try await Self.plantClaim(server, key: "old", body: Self.appBody(server.defaultWorkspace.id, bundle: "com.idem.old"), owner: silent.owner,
                                  createdAt: now - IdempotencyMiddleware.abandonedMilliseconds - 1)
        #expect(await send("old", "com.idem.old").status == 201)
        await server.stop()
    }

    @Test("of retries racing for one abandoned key, one takes it over and runs; the others wait or replay", arguments: StoreBackend.all)
    func racingTakeover(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        let now = server.services.clock.nowMilliseconds()
        let body = Self.appBody(server.defaultWorkspace.id, bundle: "com.idem.abandoned")
        let silent = ServerInstance(id: "inst_silent", machine: "elsewhere/boot", pid: 1, startTicks: 1)
        try await Self.plantClaim(server, key: "abandoned", body: body, owner: silent.owner, createdAt: now - IdempotencyMiddleware.abandonedMilliseconds - 1)
        let responses = await withTaskGroup(of: HTTPResponse.self) { group in
            for _ in 0..<8 {
                group.addTask { await server.admin.post("/v1/apps", json: body, headers: [("Idempotency-Key", "abandoned")]) }
            }
            return await group.reduce(into: [HTTPResponse]()) { $0.append($1) }
        }
        let ran = responses.filter { $0.status == 201 && $0.headers["Idempotent-Replayed"] == nil }
        #expect(ran.count == 1, "\(responses.map { "\($0.status) \($0.errorCode ?? "")" })")
        #expect(responses.allSatisfy { ($0.status == 201 && $0.body == ran.first?.body) || $0.errorCode == "idempotency_key_in_use" },
                "\(responses.map { "\($0.status) \($0.errorCode ?? "")" })")
        #expect(try await Self.appCount(server) == 1)
        await server.stop()
    }

    @Test("two server processes taking over abandoned keys at the same moments: each key is taken once",
          .enabled(if: StoreBackend.postgresURL != nil, "needs PostgreSQL, where two processes write at once"))
    func takeoverIsCompareAndSet() async throws {
        let location = try await StoreBackend.postgres.makeLocation()
        let stores = [try StoreBackend.postgres.open(location.url, nil), try StoreBackend.postgres.open(location.url, nil)]
        _ = try await stores[0].migrate(Schema.migrations)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let hash = String(repeating: "ab", count: 32)
        let silent = ServerInstance(id: "inst_silent", machine: "elsewhere/boot", pid: 1, startTicks: 1)
        // Both processes read a key as abandoned before either takes it over only by chance, so each round races
        // eight claims (four through each process) for a fresh abandoned key, many times.
        for round in 0..<25 {
            let key = "abandoned-\(round)"
            try await stores[0].write { db in
                try db.execute("""
                    INSERT INTO idempotency_keys (scope, idempotency_key, request_hash, created_at, owner, claim)
                    VALUES ('admin', \(key), \(hash), \(now - IdempotencyMiddleware.abandonedMilliseconds - 1), \(silent.owner), 'planted')
                    """)
            }
            let runs = await withTaskGroup(of: Bool.self) { group in
                for attempt in 0..<8 {
                    group.addTask {
                        let claim = IdempotencyClaim(scope: "admin", key: key, requestHash: hash)
                        guard let outcome = try? await stores[attempt % 2].write({ db in try IdempotencyMiddleware.claim(claim, db, now: now) }) else {
                            return false
                        }
                        if case .run = outcome { return true }
                        return false
                    }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(runs == 1, "round \(round): \(runs) claims took the key")
        }
        for store in stores { await store.close() }
    }

    @Test("an answer of 500 or more is not kept: the retry with the key runs again; a 4xx is kept")
    func serverErrorsAreNotKept() async throws {
        let server = try await TestServer.start()
        let middleware = IdempotencyMiddleware(store: server.store, clock: server.services.clock)
        let route = Route(method: .POST, pattern: "/v1/flaky", operation: Operation(id: "flaky", summary: "", tag: "", access: Access.admin,
                                                                                    responses: [], idempotent: true)) { _, _ in HTTPResponse(status: 204) }
        var context = RequestContext(requestId: "r", route: route)
        context[PrincipalKey.self] = Principal(keyId: "key_test", kind: .admin, workspaceId: nil, appId: nil)
        func send(_ key: String, answering outcome: @escaping @Sendable () throws -> HTTPResponse) async -> (status: Int, replayed: Bool) {
            let request = HTTPRequest(method: "POST", path: "/v1/flaky", headers: HTTPHeaders([("Idempotency-Key", key)]), body: Array("{}".utf8))
            do {
                let response = try await middleware.handle(request, context: context) { _, _ in try outcome() }
                return (response.status, response.headers["Idempotent-Replayed"] == "true")
            } catch {
                return (ErrorMapping.httpError(for: error).status, false)
            }
        }
        #expect(await send("thrown", answering: { throw HTTPError.unavailable(.storeUnavailable, "down") }) == (503, false))
        #expect(await send("thrown", answering: { HTTPResponse(status: 201) }) == (201, false), "the retry runs")
        #expect(await send("thrown", answering: { HTTPResponse(status: 500) }) == (201, true), "and its answer is kept")
        #expect(await send("returned", answering: { HTTPResponse(status: 502) }) == (502, false))
        #expect(await send("returned", answering: { HTTPResponse(status: 201) }) == (201, false), "a returned 5xx is not kept either")
        #expect(await send("refused", answering: { throw HTTPError.conflict(.conflict, "no") }) == (409, false))
        #expect(await send("refused", answering: { HTTPResponse(status: 201) }) == (409, true), "a client error is the answer")
        await server.stop()
    }

    @Test("an attempt whose claim was taken over stores neither its answer nor its changes", arguments: StoreBackend.all)
    func takenOverClaim(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        let claim = IdempotencyClaim(scope: "admin", key: "fenced", requestHash: "h")
        try await server.store.write { db in
            try db.execute("""
                INSERT INTO idempotency_keys (scope, idempotency_key, request_hash, created_at, owner, claim)
                VALUES ('admin', 'fenced', 'h', 0, \(ServerInstance.current.owner), 'someone-else')
                """)
        }
        var context = RequestContext(requestId: "r")
        context[IdempotencyClaim.Key.self] = claim
        await #expect(throws: IdempotencyError.inUse) {
            try await IdempotencyClaim.write(server.store, context) { db in
                try TenancyQueries.insertWorkspace(db, id: "ws_fenced", name: "Fenced", now: 0)
                return HTTPResponse(status: 201)
            }
        }
        let (workspaces, status) = try await server.store.read { db in
            (try db.query("SELECT id FROM workspaces WHERE id = 'ws_fenced'").count,
             try db.first("SELECT status FROM idempotency_keys WHERE idempotency_key = 'fenced'")?.optionalInt("status"))
        }
        #expect(workspaces == 0)
        #expect(status == nil)
        #expect(!claim.stored)

        // The attempt that holds the claim stores its answer with its changes.
        try await server.store.write { db in try db.execute("UPDATE idempotency_keys SET claim = \(claim.token) WHERE idempotency_key = 'fenced'") }
        let response = try await IdempotencyClaim.write(server.store, context) { db in
            try TenancyQueries.insertWorkspace(db, id: "ws_fenced", name: "Fenced", now: 0)
            return HTTPResponse(status: 201, body: Array("made".utf8))
        }
        #expect(response.status == 201 && claim.stored)
        let kept = try await server.store.read { db in try db.first("SELECT response_body FROM idempotency_keys WHERE idempotency_key = 'fenced'")?.optionalString("response_body") }
        #expect(kept == "made")
        await server.stop()
    }
}
