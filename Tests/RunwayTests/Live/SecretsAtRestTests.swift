import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayCrypto
import RunwayHTTP
@testable import RunwayKit
import RunwaySQLite
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

/// Secrets the server must use again are sealed with a key kept in a file outside the database.
@Suite("Secrets at rest")
struct SecretsAtRestTests {
    @Test("a sealed secret opens only with its key and purpose, and any changed byte is refused")
    func box() throws {
        let box = try #require(SecretBox(key: SecureRandom.bytes(32)))
        let sealed = box.seal("whsec_abc", purpose: "webhooks.secret")
        #expect(sealed.hasPrefix("sealed1:") && !sealed.contains("whsec_abc"))
        #expect(box.seal("whsec_abc", purpose: "webhooks.secret") != sealed, "a fresh nonce every time")
        #expect(box.open(sealed, purpose: "webhooks.secret") == "whsec_abc")
        #expect(box.open(sealed, purpose: "ad_networks.private_key") == nil, "moved to another column, it does not open")
        #expect(SecretBox(key: SecureRandom.bytes(32))!.open(sealed, purpose: "webhooks.secret") == nil, "another key does not open it")
        var bytes = ByteEncoding.fromBase64url(String(sealed.dropFirst("sealed1:".count)))!
        bytes[14] ^= 1
        #expect(box.open("sealed1:" + ByteEncoding.base64url(bytes), purpose: "webhooks.secret") == nil)
        #expect(try box.reveal("stored before sealing", purpose: "webhooks.secret") == "stored before sealing")
        #expect(throws: StoreError.self) { try box.reveal("sealed1:AAAA", purpose: "webhooks.secret") }
        #expect(SecretBox(key: [1, 2, 3]) == nil)
    }

    @Test("a copy of the database alone holds no usable secret; the key file is private; a server without it, or with another, refuses to start")
    func databaseAlone() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path("secrets.db")
        let server = try await ServerProcess(databaseURL: "sqlite:" + path)
        let admin = ["Authorization": "Bearer \(try #require(server.printedAdminKey))"]
        let port = server.port
        func call(_ method: String, _ target: String, _ body: (any Encodable)? = nil, headers: [String: String] = admin) async throws -> RawHTTPConnection.Response {
            let text = try body.map { String(decoding: try TestClient.encoded($0), as: UTF8.self) } ?? ""
            return try await offloaded { try RawHTTPConnection(port: port).request(method, target, headers: headers, body: text) }
        }
        let workspace = try JSONDecoder().decode(Page<Workspace>.self, from: Data(try await call("GET", "/v1/workspaces").body.utf8)).items[0].id
        let hook = try JSONDecoder().decode(CreatedWebhook.self, from: Data(try await call("POST", "/v1/webhooks",
            CreateWebhookRequest(workspaceId: workspace, url: "https://hooks.example.com/in", topics: ["click"])).body.utf8))
        #expect(try await call("POST", "/v1/ad-networks", CreateAdNetworkRequest(workspaceId: workspace, adNetworkId: "example.skadnetwork")).status == 201)
        // An impression hashes its address under the day's key.
        let app = try JSONDecoder().decode(App.self, from: Data(try await call("POST", "/v1/apps",
            CreateAppRequest(workspaceId: workspace, name: "S", teamId: "ABCDE12345", bundleId: "com.example.sealed")).body.utf8))
        #expect(try await call("POST", "/v1/impressions", ImpressionRequest(appId: app.id, ip: "203.0.113.5")).status == 201)
        #expect(try await server.stop(signal: SIGTERM) == 0)

        let keyFile = directory.path("linkrunway.key")
        #expect(try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int == 0o600)
        let store = try SQLiteStore(path: path)
        let values = try await PrivacyTests.everyValue(store)
        let sealed = try await store.read { db -> [String] in
            var found: [String] = []
            for (table, column, filter) in [("instance_meta", "value", "name = 'click_signing_key'"), ("address_keys", "secret", "1 = 1"),
                                            ("webhooks", "secret", "1 = 1"), ("ad_networks", "private_key", "1 = 1")] {
                found += try db.query("SELECT \(raw: column) AS v FROM \(raw: table) WHERE \(raw: filter)").map { try $0.string("v") }
            }
            return found
        }
        await store.close()
        #expect(sealed.count == 4 && sealed.allSatisfy(SecretBox.isSealed), "\(sealed.map { $0.prefix(12) })")
        let everything = values.values.joined()
        #expect(!everything.contains { $0.contains(hook.secret) }, "the webhook secret is nowhere in the clear")
        #expect(!everything.contains { $0.contains("PRIVATE KEY") }, "nor any private key")
        let box = try SecretKeyFile.read(keyFile)
        #expect(box.open(sealed[2], purpose: "webhooks.secret") == hook.secret, "the key file opens them")

        // Without its key file, or with another one, the server refuses to start and says why.
        try FileManager.default.moveItem(atPath: keyFile, toPath: keyFile + ".away")
        let missing = try await BackupTests.linkrunway(["serve", "--port", "0", "--database-url", "sqlite:" + path], seconds: 60)
        #expect(missing.status != 0 && missing.errors.contains("is missing"), "\(missing.status) \(missing.errors)")
        try Data((ByteEncoding.hex(SecureRandom.bytes(32)) + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
        let other = try await BackupTests.linkrunway(["serve", "--port", "0", "--database-url", "sqlite:" + path], seconds: 60)
        #expect(other.status != 0 && other.errors.contains("is not the key"), "\(other.status) \(other.errors)")
        try FileManager.default.removeItem(atPath: keyFile)
        try FileManager.default.moveItem(atPath: keyFile + ".away", toPath: keyFile)
        let again = try await ServerProcess(databaseURL: "sqlite:" + path)
        #expect(try await again.stop(signal: SIGTERM) == 0)
    }

    @Test("secrets stored before sealing are sealed at the next start and still work")
    func sealedAtStart() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path("legacy.db")
        let store = try SQLiteStore(path: path)
        _ = try await store.migrate(Schema.migrations)
        _ = try await Bootstrap.run(store: store, clock: .system)
        // Today's key: the server forgets the keys of days before yesterday when it starts.
        let today = AddressHasher.day(Int64(Date().timeIntervalSince1970 * 1000))
        try await store.write { db in
            let workspace = try db.first("SELECT id FROM workspaces")!.string("id")
            try db.execute("INSERT INTO instance_meta (name, value) VALUES ('click_signing_key', \(String(repeating: "ab", count: 32)))")
            try db.execute("INSERT INTO address_keys (day, secret, created_at) VALUES (\(today), \(String(repeating: "cd", count: 32)), 0)")
            try db.execute("""
                INSERT INTO webhooks (id, workspace_id, url, secret, topics, enabled, created_at)
                VALUES ('whk_old', \(workspace), 'https://hooks.example.com/old', 'whsec_stored_in_the_clear', 'click', 1, 0)
                """)
        }
        await store.close()
        let server = try await ServerProcess(databaseURL: "sqlite:" + path)
        #expect(try await server.stop(signal: SIGTERM) == 0)
        let box = try SecretKeyFile.read(directory.path("linkrunway.key"))
        let reopened = try SQLiteStore(path: path)
        let (click, day, hook) = try await reopened.read { db in
            (try db.first("SELECT value FROM instance_meta WHERE name = 'click_signing_key'")!.string("value"),
             try db.first("SELECT secret FROM address_keys WHERE day = \(today)")!.string("secret"),
             try db.first("SELECT secret FROM webhooks WHERE id = 'whk_old'")!.string("secret"))
        }
        await reopened.close()
        #expect(box.open(click, purpose: InstanceSecrets.purpose) == String(repeating: "ab", count: 32))
        #expect(box.open(day, purpose: "address_keys.secret") == String(repeating: "cd", count: 32))
        #expect(box.open(hook, purpose: Webhooks.secretPurpose) == "whsec_stored_in_the_clear")
    }

    @Test("while a server of an older version runs on the database, stored secrets stay as it reads them; sealed once it is gone")
    func sealingWaitsForOlderServers() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path("rolling.db")
        let store = try SQLiteStore(path: path)
        _ = try await store.migrate(Schema.migrations)
        _ = try await Bootstrap.run(store: store, clock: .system)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try await store.write { db in
            let workspace = try db.first("SELECT id FROM workspaces")!.string("id")
            try db.execute("""
                INSERT INTO webhooks (id, workspace_id, url, secret, topics, enabled, created_at)
                VALUES ('whk_old', \(workspace), 'https://hooks.example.com/old', 'whsec_stored_in_the_clear', 'click', 1, 0)
                """)
            // 0.2.0's heartbeat names no step; a server of this version's names the newest; a silent one is gone.
            // The live ones beat an hour ahead: a suite that keeps both cores busy can hold this test for a minute.
            try db.execute("INSERT INTO server_instances (id, owner, started_at, heartbeat_at) VALUES ('inst_old', 'inst_old 1 1 elsewhere', \(now), \(now + 3_600_000))")
            try db.execute("""
                INSERT INTO server_instances (id, owner, started_at, heartbeat_at, newest_step)
                VALUES ('inst_same', 'inst_same 2 2 elsewhere', \(now), \(now + 3_600_000), \(Schema.newestStep)),
                       ('inst_silent', 'inst_silent 3 3 elsewhere', 0, 0, NULL)
                """)
        }
        func hookSecret() async throws -> String {
            try await store.read { db in try db.first("SELECT secret FROM webhooks WHERE id = 'whk_old'")!.string("secret") }
        }
        var configuration = ServerConfiguration(database: .sqlite(path: path))
        configuration.http.port = 0
        configuration.logLevel = .info
        let sink = LogSink.memory()
        let runtime = try await ServerRuntime.start(configuration, logSink: sink)
        #expect(try await hookSecret() == "whsec_stored_in_the_clear", "the older server signs with what it reads")
        #expect(sink.lines.contains { $0.contains("sealing stored secrets waits until no server of an older version runs") }, "\(sink.lines)")

        try await store.write { db in try db.execute("DELETE FROM server_instances WHERE id = 'inst_old'") }
        let deadline = Date().addingTimeInterval(30)
        while try await !SecretBox.isSealed(hookSecret()), Date() < deadline { try await Task.sleep(for: .milliseconds(200)) }
        await runtime.stop()
        let box = try SecretKeyFile.read(directory.path("linkrunway.key"))
        #expect(box.open(try await hookSecret(), purpose: Webhooks.secretPurpose) == "whsec_stored_in_the_clear", "sealed after the older server left")
        await store.close()
    }
}
