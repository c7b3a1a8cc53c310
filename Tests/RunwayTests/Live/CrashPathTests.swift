import Foundation
import LinkRunwayAPI
import RunwayStore
import Testing

/// SIGKILL under concurrent load on more write paths (install matches, postbacks), then a restart: every acknowledged
/// write is there exactly once.
@Suite("Crash and restart, per write path")
struct CrashPathTests {
    /// Writers on their own connections send `request(writer, i)` until the server dies; returns what was acknowledged.
    static func load(port: UInt16, writers: Int = 6, until count: Int,
                     _ request: @escaping @Sendable (Int, Int) -> (path: String, headers: [String: String], body: String, id: String),
                     acknowledged check: @escaping @Sendable (RawHTTPConnection.Response) -> String?) async throws -> SharedList {
        let acknowledged = SharedList()
        let threads = (0..<writers).map { writer in
            Thread {
                guard let connection = try? RawHTTPConnection(port: port) else { return }
                for i in 0..<100_000 {
                    let next = request(writer, i)
                    guard let response = try? connection.request("POST", next.path, headers: next.headers, body: next.body),
                          let id = check(response) else { return }
                    acknowledged.append(id)
                }
            }
        }
        threads.forEach { $0.start() }
        let deadline = ContinuousClock.now + .seconds(30)
        while acknowledged.count < count && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(acknowledged.count >= count, "the writes were not answered")
        return acknowledged
    }

    @Test("install matches and postbacks acknowledged before a SIGKILL are stored exactly once", arguments: StoreBackend.all)
    func matchesAndPostbacks(_ backend: StoreBackend) async throws {
        let location = try backend.makeLocation()
        let server = try await ServerProcess(databaseURL: location.url, environment: ["LINKRUNWAY_RATE_LIMIT_ADDRESS": "0", "LINKRUNWAY_RATE_LIMIT_KEY": "0"])
        let admin = ["Authorization": "Bearer \(try #require(server.printedAdminKey))"]
        let port = server.port
        func call(_ method: String, _ path: String, _ body: String = "") async throws -> RawHTTPConnection.Response {
            try await offloaded { try RawHTTPConnection(port: port).request(method, path, headers: admin, body: body) }
        }
        let workspace = try JSONDecoder().decode(Page<Workspace>.self, from: Data(try await call("GET", "/v1/workspaces").body.utf8)).items[0].id
        let app = try JSONDecoder().decode(App.self, from: Data(try await call("POST", "/v1/apps",
            #"{"workspaceId":"\#(workspace)","name":"K","teamId":"ABCDE12345","bundleId":"com.kill.paths","appStoreId":"525463029"}"#).body.utf8))
        let key = try JSONDecoder().decode(CreatedKey.self, from: Data(try await call("POST", "/v1/keys", #"{"kind":"publishable","appId":"\#(app.id)"}"#).body.utf8)).secret

        // Half the writers match installs, half post postbacks (each stored, valid or not, under its own receipt id).
        let acknowledged = try await Self.load(port: port, until: 400, { writer, i in
            if writer % 2 == 0 {
                let install = "kill-\(writer)-\(i)"
                return ("/v1/installs/match", ["Authorization": "Bearer \(key)"], #"{"installId":"\#(install)","platform":"ios","consent":true}"#, "install:" + install)
            }
            let body = #"{"version":"4.0","ad-network-id":"kill.skadnetwork","source-identifier":"52","app-id":525463029,"transaction-id":"\#(UUID().uuidString.lowercased())","redownload":false,"source-domain":"example.com","fidelity-type":1,"did-win":true,"conversion-value":\#(i % 64),"postback-sequence-index":0,"attribution-signature":"MEUCIQDq9Zk0q7jTgqkP7m0RZ8lx6uVtzKY6SvsvFnrTQ0KxfQIgG4nCzB4X0bVvK7uD2QjTTqz7bJfS4o4j2vS4QqPGK2U="}"#
            return ("/.well-known/skadnetwork/report-attribution/", ["Host": "localhost"], body, "")
        }, acknowledged: { response in
            guard response.status == 200 else { return nil }
            if response.body.contains(#""installId""#) {
                return (try? JSONDecoder().decode(InstallMatch.self, from: Data(response.body.utf8))).map { "install:" + $0.installId }
            }
            return (try? JSONDecoder().decode(PostbackReceipt.self, from: Data(response.body.utf8))).map { "postback:" + $0.id }
        })
        #expect(try await server.stop(signal: SIGKILL) == SIGKILL)
        try await Task.sleep(for: .milliseconds(200))
        let acked = acknowledged.items
        #expect(acked.contains { $0.hasPrefix("install:") } && acked.contains { $0.hasPrefix("postback:") })

        let store = try backend.open(location.url, nil)
        let stored = try await store.read { db in
            try db.query("SELECT install_id AS id FROM installs WHERE app_id = \(app.id)").map { "install:" + (try $0.string("id")) }
                + db.query("SELECT id FROM postbacks").map { "postback:" + (try $0.string("id")) }
        }
        await store.close()
        let counts = Dictionary(stored.map { ($0, 1) }, uniquingKeysWith: +)
        let missing = acked.filter { counts[$0] == nil }
        #expect(missing.isEmpty, "\(missing.count) of \(acked.count) acknowledged writes were lost: \(missing.prefix(3))")
        #expect(counts.values.allSatisfy { $0 == 1 }, "nothing is stored twice")

        // The restarted server gives an acknowledged install the answer it gave before the crash.
        let again = try await ServerProcess(databaseURL: location.url)
        let install = try #require(acked.first { $0.hasPrefix("install:") }).dropFirst("install:".count)
        let answer = try await offloaded {
            try RawHTTPConnection(port: again.port).request("POST", "/v1/installs/match", headers: ["Authorization": "Bearer \(key)"],
                                                            body: #"{"installId":"\#(install)","platform":"ios","consent":true}"#)
        }
        #expect(answer.status == 200)
        _ = try await again.stop(signal: SIGTERM)
    }
}
