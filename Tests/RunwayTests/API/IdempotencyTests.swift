import Foundation
import LinkRunwayAPI
import RunwayHTTP
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

    @Test("keys are checked, scoped per workspace, and ignored where a route does not offer them")
    func rules() async throws {
        let server = try await TestServer.start()
        let ws = server.defaultWorkspace.id
        let bad = await server.admin.post("/v1/apps", json: Self.appBody(ws, bundle: "com.idem.bad"),
                                          headers: [("Idempotency-Key", String(repeating: "x", count: 256))])
        #expect(bad.errorCode == "invalid_idempotency_key")
        // Key creation never keeps its answer: that would store the secret.
        let a = await server.admin.post("/v1/keys", json: #"{"kind":"admin"}"#, headers: [("Idempotency-Key", "same")])
        let b = await server.admin.post("/v1/keys", json: #"{"kind":"admin"}"#, headers: [("Idempotency-Key", "same")])
        #expect(a.status == 201 && b.status == 201)
        #expect(a.body != b.body)
        let stored = try await server.store.read { try $0.query("SELECT response_body FROM idempotency_keys").map { try $0.optionalString("response_body") ?? "" } }
        #expect(!stored.contains { $0.contains("lr_ak_") })

        // Another workspace's server key using the same key string does its own work.
        let other = try await server.createWorkspace("Other")
        let otherKey = try await server.createKey(.server, workspace: other.id)
        let mine = try await server.createKey(.server, workspace: ws)
        let one = await server.client(mine.secret).post("/v1/apps", json: Self.appBody(ws, bundle: "com.idem.scope"), headers: [("Idempotency-Key", "shared")])
        let two = await server.client(otherKey.secret).post("/v1/apps", json: Self.appBody(other.id, bundle: "com.idem.scope"), headers: [("Idempotency-Key", "shared")])
        #expect(one.status == 201 && two.status == 201)
        #expect(two.headers["Idempotent-Replayed"] == nil)
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
}
