import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayTestKit
import Synchronization
import Testing

/// The real binary in a child process: durability across SIGKILL, graceful SIGTERM, first-start bootstrap.
@Suite("Server process")
struct ProcessTests {
    @Test("every write acknowledged before a SIGKILL is there after restart, exactly once", arguments: StoreBackend.all)
    func crashAndRestart(_ backend: StoreBackend) async throws {
        let location = try await backend.makeLocation()
        let database = location.url
        let first = try await ServerProcess(databaseURL: database)
        let adminKey = try #require(first.printedAdminKey)
        let port = first.port
        let workspace = try await offloaded {
            let response = try RawHTTPConnection(port: port).request("GET", "/v1/workspaces", headers: ["Authorization": "Bearer \(adminKey)"])
            return try JSONDecoder().decode(Page<Workspace>.self, from: Data(response.body.utf8)).items[0].id
        }

        // Eight writers, each on its own keep-alive connection, create apps until the server dies under them.
        let acknowledged = SharedList()
        let writers = (0..<8).map { writer in
            Thread {
                guard let connection = try? RawHTTPConnection(port: port) else { return }
                for i in 0..<10_000 {
                    let bundle = "com.crash.w\(writer).n\(i)"
                    guard let body = try? TestClient.json(CreateAppRequest(workspaceId: workspace, name: "n", teamId: "ABCDE12345", bundleId: bundle)),
                          let response = try? connection.request("POST", "/v1/apps", headers: ["Authorization": "Bearer \(adminKey)"], body: body),
                          response.status == 201 else { return }
                    acknowledged.append(bundle)
                }
            }
        }
        writers.forEach { $0.start() }
        let deadline = ContinuousClock.now + .seconds(30)
        while acknowledged.count < 300 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(acknowledged.count >= 300, "the writes were not answered")
        let status = try await first.stop(signal: SIGKILL)
        #expect(status == SIGKILL)
        try await Task.sleep(for: .milliseconds(200))  // let the writers notice
        let acked = acknowledged.items

        let second = try await ServerProcess(databaseURL: database)
        #expect(second.printedAdminKey == nil, "a restart must not bootstrap again")
        let secondPort = second.port
        let stored = try await offloaded {
            let connection = try RawHTTPConnection(port: secondPort)
            var bundles: [String] = []
            var cursor: String?
            repeat {
                let path = "/v1/apps?limit=200" + (cursor.map { "&cursor=\($0)" } ?? "")
                let response = try connection.request("GET", path, headers: ["Authorization": "Bearer \(adminKey)"])
                let page = try JSONDecoder().decode(Page<App>.self, from: Data(response.body.utf8))
                bundles += page.items.map(\.bundleId)
                cursor = page.nextCursor
            } while cursor != nil
            return bundles
        }
        let counts = Dictionary(stored.map { ($0, 1) }, uniquingKeysWith: +)
        let missing = acked.filter { counts[$0] == nil }
        #expect(missing.isEmpty, "\(missing.count) of \(acked.count) acknowledged writes were lost")
        #expect(counts.values.allSatisfy { $0 == 1 })
        #expect(stored.count >= acked.count)
        _ = try await second.stop(signal: SIGTERM)
    }

    @Test("every click answered before a SIGKILL is in the database after it, and counted once in the link's figures", arguments: StoreBackend.all)
    func clicksSurviveKill(_ backend: StoreBackend) async throws {
        let location = try await backend.makeLocation()
        let server = try await ServerProcess(databaseURL: location.url)
        let adminKey = try #require(server.printedAdminKey)
        let port = server.port
        let destinations = LinkDestinations(web: "https://example.com")
        let nameless = try TestClient.json(CreateLinkRequest(path: "crash", destinations: destinations))
        let created = try await offloaded {
            try RawHTTPConnection(port: port).request("POST", "/v1/links", headers: ["Authorization": "Bearer \(adminKey)"], body: nameless)
        }
        #expect(created.status == 400, "an admin key must name the workspace")
        let workspaces = try await offloaded {
            try RawHTTPConnection(port: port).request("GET", "/v1/workspaces", headers: ["Authorization": "Bearer \(adminKey)"])
        }
        let ws = try JSONDecoder().decode(Page<Workspace>.self, from: Data(workspaces.body.utf8)).items[0].id
        let named = try TestClient.json(CreateLinkRequest(workspaceId: ws, path: "crash", destinations: destinations))
        let link = try await offloaded {
            try RawHTTPConnection(port: port).request("POST", "/v1/links", headers: ["Authorization": "Bearer \(adminKey)"], body: named)
        }
        #expect(link.status == 201)

        let answered = SharedList()
        let clickers = (0..<8).map { _ in
            Thread {
                guard let connection = try? RawHTTPConnection(port: port) else { return }
                for _ in 0..<100_000 {
                    guard let response = try? connection.request("GET", "/crash", headers: ["Host": "localhost", "User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X)"]),
                          response.status == 302 else { return }
                    answered.append("x")
                }
            }
        }
        clickers.forEach { $0.start() }
        let deadline = ContinuousClock.now + .seconds(30)
        while answered.count < 500 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(answered.count >= 500, "the clicks were not answered")
        #expect(try await server.stop(signal: SIGKILL) == SIGKILL)
        try await Task.sleep(for: .milliseconds(200))
        let acknowledged = answered.count
        let store = try backend.open(location.url, nil)
        let (stored, counted) = try await store.read { db in
            (try db.first("SELECT COUNT(*) AS n FROM clicks WHERE kind = 'click' AND platform = 'ios'")!.int("n"),
             try db.first("SELECT COALESCE(SUM(amount), 0) AS n FROM link_stats WHERE dimension = 'platform' AND period = 'day' AND value = 'ios' AND measure = 'click'")!.int("n"))
        }
        await store.close()
        #expect(stored >= Int64(acknowledged), "\(acknowledged) clicks were answered but only \(stored) stored")
        #expect(counted == stored, "the link's daily figures count each stored click once, in the click's own transaction")
    }

    @Test("SIGKILL during event batches loses no acknowledged event and duplicates none", arguments: StoreBackend.all)
    func batchesSurviveKill(_ backend: StoreBackend) async throws {
        let location = try await backend.makeLocation()
        // One client sends thousands of events of one install in seconds: the per-client limits would stop it first.
        let server = try await ServerProcess(databaseURL: location.url, environment: [
            "LINKRUNWAY_RATE_LIMIT_ADDRESS": "0", "LINKRUNWAY_RATE_LIMIT_KEY": "0", "LINKRUNWAY_RATE_LIMIT_INSTALL_EVENTS": "0",
        ])
        let admin = ["Authorization": "Bearer \(try #require(server.printedAdminKey))"]
        let port = server.port
        func call(_ method: String, _ path: String, _ headers: [String: String], _ body: (any Encodable)? = nil) async throws -> RawHTTPConnection.Response {
            let text = try body.map { try TestClient.json($0) } ?? ""
            return try await offloaded { try RawHTTPConnection(port: port).request(method, path, headers: headers, body: text) }
        }
        let ws = try JSONDecoder().decode(Page<Workspace>.self, from: Data(try await call("GET", "/v1/workspaces", admin).body.utf8)).items[0].id
        let app = try JSONDecoder().decode(App.self, from: Data(try await call("POST", "/v1/apps", admin,
            CreateAppRequest(workspaceId: ws, name: "K", teamId: "ABCDE12345", bundleId: "com.kill.app")).body.utf8))
        let key = try JSONDecoder().decode(CreatedKey.self, from: Data(try await call("POST", "/v1/keys", admin,
            CreateKeyRequest(kind: .publishable, appId: app.id)).body.utf8)).secret
        let client = ["Authorization": "Bearer \(key)"]
        #expect(try await call("POST", "/v1/installs/match", client, MatchInstallRequest(installId: "killed", platform: "ios", consent: true)).status == 200)
        // A batch of OPEN events of the install, one per id.
        @Sendable func opens(_ ids: [String]) -> EventBatchRequest {
            EventBatchRequest(events: ids.map { EventRequest(eventId: $0, type: "OPEN", installId: "killed", timestamp: "2026-01-01T00:00:00Z") })
        }

        let acknowledged = SharedList()
        let senders = (0..<4).map { sender in
            Thread {
                guard let connection = try? RawHTTPConnection(port: port) else { return }
                for batch in 0..<10_000 {
                    let ids = (0..<50).map { "s\(sender)-b\(batch)-e\($0)" }
                    guard let body = try? TestClient.json(opens(ids)),
                          let response = try? connection.request("POST", "/v1/events/batch", headers: client, body: body), response.status == 200 else { return }
                    ids.forEach { acknowledged.append($0) }
                }
            }
        }
        senders.forEach { $0.start() }
        let deadline = ContinuousClock.now + .seconds(30)
        while acknowledged.count < 2_000 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(acknowledged.count >= 2_000, "the batches were not answered")
        #expect(try await server.stop(signal: SIGKILL) == SIGKILL)
        try await Task.sleep(for: .milliseconds(200))
        let acked = Set(acknowledged.items)

        let store = try backend.open(location.url, nil)
        let stored = try await store.read { try $0.query("SELECT event_id FROM events WHERE install_id = 'killed'").map { try $0.string("event_id") } }
        await store.close()
        #expect(acked.isSubset(of: Set(stored)), "\(acked.subtracting(stored).count) acknowledged events are missing")
        #expect(Set(stored).count == stored.count, "no event is stored twice")

        // The same batch again, after the restart, is all duplicates.
        let again = try await ServerProcess(databaseURL: location.url)
        let replayed = try TestClient.json(opens(["s0-b0-e0"]))
        let replay = try await offloaded { try RawHTTPConnection(port: again.port).request("POST", "/v1/events/batch", headers: client, body: replayed) }
        #expect(replay.body.contains(#""duplicates":1"#))
        _ = try await again.stop(signal: SIGTERM)
    }

    @Test("a second server on a busy port fails with exit code 1 instead of sharing the port with the first")
    func busyPort() async throws {
        let directory = TemporaryDirectory()
        let first = try await ServerProcess(databaseURL: "sqlite:" + directory.path("first.db"))
        let second = try await BackupTests.linkrunway(["serve", "--database-url", "sqlite:" + directory.path("second.db"), "--port", String(first.port)],
                                                      seconds: 60)
        #expect(second.status == 1, "exit \(second.status): \(second.errors)")
        #expect(second.errors.contains("in use") && !second.output.contains("listening"))
        let health = try await offloaded { try RawHTTPConnection(port: first.port).request("GET", "/healthz") }
        #expect(health.status == 200, "the first server still answers")
        #expect(try await first.stop(signal: SIGTERM) == 0)
    }

    @Test("SIGTERM stops the server cleanly and the database reopens")
    func gracefulTermination() async throws {
        let directory = TemporaryDirectory()
        let database = "sqlite:" + directory.path("term.db")
        let server = try await ServerProcess(databaseURL: database, environment: ["LINKRUNWAY_LOG_LEVEL": "info"])
        let port = server.port
        let health = try await offloaded { try RawHTTPConnection(port: port).request("GET", "/healthz") }
        #expect(health.status == 200)
        // The start says where the console is and what a local link looks like, with the port it listens on.
        #expect(server.stdout.contains("console:  http://127.0.0.1:\(port)/console"))
        #expect(server.stdout.contains("a link:   http://localhost:\(port)/summer"))
        #expect(try await server.stop(signal: SIGTERM) == 0)
        #expect(server.stderr.contains(#""msg":"stopped""#))
        #expect(!server.stderr.contains("lr_ak_"), "the admin key must never reach the log")
        let again = try await ServerProcess(databaseURL: database)
        #expect(again.printedAdminKey == nil)
        #expect(try await again.stop(signal: SIGINT) == 0)
    }

    @Test("clients that disconnect half-way through their request body leave nothing behind and harm no one")
    func disconnectsMidRequest() async throws {
        let directory = TemporaryDirectory()
        let server = try await ServerProcess(databaseURL: "sqlite:" + directory.path("cut.db"))
        let admin = ["Authorization": "Bearer \(try #require(server.printedAdminKey))"]
        let port = server.port
        let workspace = try await offloaded {
            let response = try RawHTTPConnection(port: port).request("GET", "/v1/workspaces", headers: admin)
            return try JSONDecoder().decode(Page<Workspace>.self, from: Data(response.body.utf8)).items[0].id
        }
        // Fifty clients each promise a body, send half of it, and hang up.
        try await offloaded {
            for i in 0..<50 {
                let body = #"{"workspaceId":"\#(workspace)","name":"cut","teamId":"ABCDE12345","bundleId":"com.cut.n\#(i)"}"#
                let connection = try RawHTTPConnection(port: port)
                try connection.send("POST /v1/apps HTTP/1.1\r\nHost: x\r\nAuthorization: \(admin["Authorization"]!)\r\nContent-Type: application/json\r\n"
                                    + "Content-Length: \(body.utf8.count)\r\n\r\n" + String(body.prefix(body.count / 2)))
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        let apps = try await offloaded { try RawHTTPConnection(port: port).request("GET", "/v1/apps?limit=200", headers: admin) }
        #expect(apps.status == 200)
        #expect(!apps.body.contains("com.cut."), "no half-received request was acted on")
        let app = try TestClient.json(CreateAppRequest(workspaceId: workspace, name: "whole", teamId: "ABCDE12345", bundleId: "com.cut.whole"))
        let whole = try await offloaded { try RawHTTPConnection(port: port).request("POST", "/v1/apps", headers: admin, body: app) }
        #expect(whole.status == 201, "the server still serves")
        #expect(try await server.stop(signal: SIGTERM) == 0)
    }

    @Test("LINKRUNWAY_ADMIN_KEY_FILE: the first start writes the key to a file only its owner reads, never to stdout; a restart leaves it be")
    func adminKeyFile() async throws {
        let directory = TemporaryDirectory()
        let keyFile = directory.path("admin-key")
        let environment = ["LINKRUNWAY_ADMIN_KEY_FILE": keyFile]
        let first = try await ServerProcess(databaseURL: "sqlite:" + directory.path("key.db"), environment: environment)
        #expect(first.printedAdminKey == nil && !first.stdout.contains("lr_ak_") && !first.stderr.contains("lr_ak_"), "the key is printed nowhere")
        #expect(first.stdout.contains("The key is in \(keyFile)"))
        let key = try String(contentsOfFile: keyFile, encoding: .utf8).trimmingCharacters(in: .newlines)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int)
        #expect(mode == 0o600, "mode \(String(mode, radix: 8))")
        let port = first.port
        let answer = try await offloaded { try RawHTTPConnection(port: port).request("GET", "/v1/workspaces", headers: ["Authorization": "Bearer \(key)"]) }
        #expect(answer.status == 200, "the key in the file is the admin key")
        #expect(try await first.stop(signal: SIGTERM) == 0)

        let second = try await ServerProcess(databaseURL: "sqlite:" + directory.path("key.db"), environment: environment)
        #expect(!second.stdout.contains("created the workspace"))
        #expect(try String(contentsOfFile: keyFile, encoding: .utf8).trimmingCharacters(in: .newlines) == key, "a restart does not touch it")
        #expect(try await second.stop(signal: SIGTERM) == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path("")).allSatisfy { !$0.contains(".partial") })

        let nowhere = try? await ServerProcess(databaseURL: "sqlite:" + directory.path("other.db"),
                                               environment: ["LINKRUNWAY_ADMIN_KEY_FILE": directory.path("missing/admin-key")])
        #expect(nowhere == nil, "a key file in a folder that does not exist is refused before anything is created")
        #expect(!FileManager.default.fileExists(atPath: directory.path("other.db")))
    }

    @Test("bad configuration is a usage error, not a crash")
    func badConfiguration() async throws {
        let run = try await offloaded { try Subprocess.run(ServerProcess.binary.path, ["serve", "--port", "not-a-port"]) }
        #expect(run.status == 64)
    }

}

/// Strings appended from several threads.
final class SharedList: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ item: String) { storage.withLock { $0.append(item) } }
    var count: Int { storage.withLock { $0.count } }
    var items: [String] { storage.withLock { $0 } }
}
