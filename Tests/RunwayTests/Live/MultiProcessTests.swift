import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayTestKit
import Testing

/// Two `linkrunway serve` processes on one PostgreSQL database behave as one service.
@Suite("Two processes, one PostgreSQL", .enabled(if: StoreBackend.postgresURL != nil, "LINKRUNWAY_TEST_POSTGRES_URL is not set"))
struct MultiProcessTests {
    /// Sends the same request from `count` threads, alternating between the servers; returns every response.
    static func burst(_ ports: [UInt16], count: Int, _ request: @escaping @Sendable (Int) throws -> (String, String, [String: String], String))
        async throws -> [RawHTTPConnection.Response] {
        try await withThrowingTaskGroup(of: RawHTTPConnection.Response.self) { group in
            for i in 0..<count {
                let port = ports[i % ports.count]
                group.addTask {
                    try await offloaded {
                        let (method, path, headers, body) = try request(i)
                        return try RawHTTPConnection(port: port).request(method, path, headers: headers, body: body)
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }


    @Test("bootstrap once, no duplicated or lost writes, idempotency and revocation across processes")
    func twoServers() async throws {
        let location = try await StoreBackend.postgres.makeLocation()
        async let startA = ServerProcess(databaseURL: location.url)
        async let startB = ServerProcess(databaseURL: location.url)
        let (a, b) = try await (startA, startB)
        let printed = [a.printedAdminKey, b.printedAdminKey].compactMap { $0 }
        #expect(printed.count == 1, "exactly one of two servers starting together bootstraps")
        let admin = try #require(printed.first)
        let auth = ["Authorization": "Bearer \(admin)"]
        let ports = [a.port, b.port]

        let listed = try await offloaded { try RawHTTPConnection(port: ports[1]).request("GET", "/v1/workspaces", headers: auth) }
        let workspaces = try JSONDecoder().decode(Page<Workspace>.self, from: Data(listed.body.utf8)).items
        #expect(workspaces.count == 1)
        let ws = workspaces[0].id
        @Sendable func app(_ bundle: String) throws -> String {
            try TestClient.json(CreateAppRequest(workspaceId: ws, name: "Two", teamId: "ABCDE12345", bundleId: bundle))
        }

        // The same Idempotency-Key from both sides at once: one app, one answer.
        let retried = try await Self.burst(ports, count: 16) { _ in ("POST", "/v1/apps", auth.merging(["Idempotency-Key": "two-1"]) { $1 }, try app("com.two.idem")) }
        let created = retried.filter { $0.status == 201 }
        #expect(!created.isEmpty)
        #expect(Set(created.map(\.body)).count == 1)
        #expect(retried.allSatisfy { $0.status == 201 || ($0.status == 409 && $0.body.contains("idempotency_key_in_use")) })

        // The same app without a key: exactly one is created, the rest conflict.
        let duplicates = try await Self.burst(ports, count: 16) { _ in ("POST", "/v1/apps", auth, try app("com.two.same")) }
        #expect(duplicates.filter { $0.status == 201 }.count == 1)
        #expect(duplicates.filter { $0.status == 409 && $0.body.contains("app_exists") }.count == 15)

        // Distinct writes on both sides all land.
        let distinct = try await Self.burst(ports, count: 60) { i in ("POST", "/v1/apps", auth, try app("com.two.n\(i)")) }
        #expect(distinct.allSatisfy { $0.status == 201 })

        let all = try await offloaded { try RawHTTPConnection(port: ports[0]).request("GET", "/v1/apps?limit=200", headers: auth) }
        let bundles = try JSONDecoder().decode(Page<App>.self, from: Data(all.body.utf8)).items.map(\.bundleId)
        #expect(bundles.count == 62)
        #expect(bundles.filter { $0 == "com.two.idem" }.count == 1)
        #expect(bundles.filter { $0 == "com.two.same" }.count == 1)

        // The same event ids sent to both servers at once are stored once each.
        let appId = try JSONDecoder().decode(App.self, from: Data(created[0].body.utf8)).id
        let publishable = try TestClient.json(CreateKeyRequest(kind: .publishable, appId: appId))
        let keyResponse = try await offloaded { try RawHTTPConnection(port: ports[0]).request("POST", "/v1/keys", headers: auth, body: publishable) }
        let client = ["Authorization": "Bearer \(try JSONDecoder().decode(CreatedKey.self, from: Data(keyResponse.body.utf8)).secret)"]
        let match = try TestClient.json(MatchInstallRequest(installId: "two-inst", platform: "ios", consent: true))
        let matched = try await offloaded { try RawHTTPConnection(port: ports[1]).request("POST", "/v1/installs/match", headers: client, body: match) }
        #expect(matched.status == 200)
        let events = try await Self.burst(ports, count: 40) { i in
            ("POST", "/v1/events", client, try TestClient.json(EventRequest(eventId: "ev-\(i % 10)", type: "OPEN", installId: "two-inst", timestamp: "2026-01-01T00:00:00Z")))
        }
        #expect(events.filter { $0.status == 201 }.count == 10)
        #expect(events.filter { $0.status == 200 }.count == 30,
                "other answers: \(events.filter { ![200, 201].contains($0.status) }.map { "\($0.status) \($0.body)" })")
        let store = try StoreBackend.postgres.open(location.url, nil)
        let stored = try await store.read { try $0.first("SELECT COUNT(*) AS n, COUNT(DISTINCT event_id) AS d FROM events")! }
        await store.close()
        #expect(try stored.int("n") == 10 && stored.int("d") == 10)

        // A key revoked through one server stops working on the other within its cache time (5 s).
        let serverKey = try TestClient.json(CreateKeyRequest(kind: .server, workspaceId: ws))
        let created_key = try await offloaded { try RawHTTPConnection(port: ports[0]).request("POST", "/v1/keys", headers: auth, body: serverKey) }
        let key = try JSONDecoder().decode(CreatedKey.self, from: Data(created_key.body.utf8))
        let useOnB = { try await offloaded { try RawHTTPConnection(port: ports[1]).request("GET", "/v1/me", headers: ["Authorization": "Bearer \(key.secret)"]).status } }
        #expect(try await useOnB() == 200)
        let revoked = try await offloaded { try RawHTTPConnection(port: ports[0]).request("POST", "/v1/keys/\(key.key.id)/revoke", headers: auth, body: "{}") }
        #expect(revoked.status == 200)
        let deadline = ContinuousClock.now + .seconds(8)
        var status = try await useOnB()
        while status == 200 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(250))
            status = try await useOnB()
        }
        #expect(status == 401)

        _ = try await a.stop(signal: SIGTERM)
        _ = try await b.stop(signal: SIGTERM)
    }
}
