import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayTestKit
import Synchronization
import Testing

/// The shipped systemd unit brings the server back at once after any exit, and a server killed under load and started
/// again as the unit starts it serves again with every write it acknowledged.
@Suite("Supervisor")
struct SupervisorTests {
    static let unit = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy/linkrunway.service")

    /// The settings of a unit file by section, then by name.
    static func settings(_ text: String) -> [String: [String: String]] {
        var sections: [String: [String: String]] = [:]
        var section = ""
        for line in text.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) where !line.hasPrefix("#") && !line.isEmpty {
            if line.hasPrefix("[") { section = String(line.dropFirst().dropLast()); continue }
            let pair = line.split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { sections[section, default: [:]][pair[0]] = pair[1] }
        }
        return sections
    }

    @Test("the unit restarts the server after any exit, within a second, and never stops restarting it")
    func unitRestartsAtOnce() throws {
        let settings = Self.settings(try String(contentsOf: Self.unit, encoding: .utf8))
        #expect(settings["Service"]?["Restart"] == "always")
        let pause = try #require(settings["Service"]?["RestartSec"])
        let seconds = pause.hasSuffix("ms") ? Double(pause.dropLast(2)).map { $0 / 1000 } : Double(pause.replacingOccurrences(of: "s", with: ""))
        #expect((seconds ?? 99) <= 1, "RestartSec=\(pause)")
        #expect(settings["Unit"]?["StartLimitIntervalSec"] == "0", "a burst of exits must not make systemd give up")
    }

    @Test("killed under load and started again on its port, it serves again and every acknowledged install is stored", arguments: StoreBackend.all)
    func killedUnderLoad(_ backend: StoreBackend) async throws {
        let location = try await backend.makeLocation()
        let unlimited = ["LINKRUNWAY_RATE_LIMIT_ADDRESS": "0", "LINKRUNWAY_RATE_LIMIT_KEY": "0"]
        var server = try await ServerProcess(databaseURL: location.url, environment: unlimited)
        let port = server.port
        let admin = ["Authorization": "Bearer \(try #require(server.printedAdminKey))"]
        func call(_ method: String, _ path: String, _ body: (any Encodable)? = nil) async throws -> RawHTTPConnection.Response {
            let text = try body.map { try TestClient.json($0) } ?? ""
            return try await offloaded { try RawHTTPConnection(port: port).request(method, path, headers: admin, body: text) }
        }
        let workspace = try JSONDecoder().decode(Page<Workspace>.self, from: Data(try await call("GET", "/v1/workspaces").body.utf8)).items[0].id
        let app = try JSONDecoder().decode(App.self, from: Data(try await call("POST", "/v1/apps",
            CreateAppRequest(workspaceId: workspace, name: "S", teamId: "ABCDE12345", bundleId: "com.supervised.app")).body.utf8))
        let key = try JSONDecoder().decode(CreatedKey.self, from: Data(try await call("POST", "/v1/keys", CreateKeyRequest(kind: .publishable, appId: app.id)).body.utf8))
            .secret

        // Writers that keep matching installs, reconnecting whenever the server is gone, until told to stop.
        let acknowledged = SharedList()
        let stop = Stop()
        for writer in 0..<4 {
            Thread {
                var connection: RawHTTPConnection?
                var i = 0
                while !stop.done {
                    if connection == nil { connection = try? RawHTTPConnection(port: port, timeoutSeconds: 10) }
                    guard let open = connection else { usleep(20_000); continue }
                    let install = "sup-\(writer)-\(i)"
                    i += 1
                    guard let body = try? TestClient.json(MatchInstallRequest(installId: install, platform: "ios", consent: true)) else { return }
                    guard let response = try? open.request("POST", "/v1/installs/match", headers: ["Authorization": "Bearer \(key)"], body: body) else {
                        connection = nil
                        continue
                    }
                    if response.status == 200 { acknowledged.append(install) }
                }
            }.start()
        }
        defer { stop.set() }
        func waitFor(_ count: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(60)
            while acknowledged.count < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(acknowledged.count >= count, "only \(acknowledged.count) of \(count) matches were answered")
        }
        try await waitFor(150)
        #expect(try await server.stop(signal: SIGKILL) == SIGKILL)
        let beforeRestart = acknowledged.count
        // What Restart=always does: start it again at once, on the same port and database.
        server = try await ServerProcess(databaseURL: location.url, environment: unlimited, port: port)
        try await waitFor(beforeRestart + 150)
        stop.set()
        try await Task.sleep(for: .milliseconds(200))
        #expect(try await server.stop(signal: SIGTERM) == 0)

        let store = try backend.open(location.url, nil)
        let stored = Set(try await store.read { db in
            try db.query("SELECT install_id FROM installs WHERE app_id = \(app.id)").map { try $0.string("install_id") }
        })
        await store.close()
        let lost = acknowledged.items.filter { !stored.contains($0) }
        #expect(lost.isEmpty, "acknowledged installs were lost across the kill: \(lost.prefix(3))")
    }


    final class Stop: Sendable {
        private let flag = Atomic<Bool>(false)
        var done: Bool { flag.load(ordering: .relaxed) }
        func set() { flag.store(true, ordering: .relaxed) }
    }
}
