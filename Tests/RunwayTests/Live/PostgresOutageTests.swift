import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayTestKit
import Testing

/// The real binary on a PostgreSQL of its own that stops in the middle of the run and comes back.
@Suite("PostgreSQL outage")
struct PostgresOutageTests {
    static let binaries: String? = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql"))?
        .sorted { $0.compare($1, options: .numeric) == .orderedAscending }.last.map { "/usr/lib/postgresql/\($0)/bin" }

    /// A throwaway cluster in a temporary folder (as the postgres user when we are root, as initdb demands).
    final class Cluster: @unchecked Sendable {
        let directory = TemporaryDirectory()
        private(set) var port: UInt16 = 0
        let bin: String

        /// A port found free can be taken by another test's socket before PostgreSQL binds it: then another is tried.
        init(bin: String) throws {
            self.bin = bin
            if getuid() == 0 { try Self.run("/bin/chown", ["postgres", directory.path("")]) }
            try run("initdb", ["-D", directory.path("data"), "-U", "linkrunway", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"])
            for attempt in 1...3 {
                port = ProxyTests.freePort()
                do {
                    try start(attempts: 1)
                    return
                } catch where attempt < 3 {
                    continue
                }
            }
        }

        /// Starts the cluster on its port; a restart tries a few times, as the port may be held for a moment.
        func start(attempts: Int = 3) throws {
            for attempt in 1...attempts {
                do {
                    try run("pg_ctl", ["-D", directory.path("data"), "-l", directory.path("server.log"), "-w", "-t", "60",
                                       "-o", "-h 127.0.0.1 -p \(port) -k \(directory.path(""))", "start"])
                    return
                } catch where attempt < attempts {
                    Thread.sleep(forTimeInterval: 1)
                } catch {
                    let log = (try? String(contentsOfFile: directory.path("server.log"), encoding: .utf8)) ?? ""
                    throw ServerProcess.Failure(description: "\(error); server.log ends: \(log.suffix(600))")
                }
            }
        }

        func stop() throws { try run("pg_ctl", ["-D", directory.path("data"), "-m", "fast", "-w", "stop"]) }

        var url: String { "postgres://linkrunway@127.0.0.1:\(port)/postgres" }

        func run(_ tool: String, _ arguments: [String]) throws {
            if getuid() == 0 {
                try Self.run("/usr/sbin/runuser", ["-u", "postgres", "--", "\(bin)/\(tool)"] + arguments)
            } else {
                try Self.run("\(bin)/\(tool)", arguments)
            }
        }

        /// Runs a tool to its end with its output discarded (the PostgreSQL daemon it starts keeps running).
        static func run(_ path: String, _ arguments: [String]) throws {
            let status = try Subprocess(path, arguments).wait()
            guard status == 0 else { throw ServerProcess.Failure(description: "\(path) \(arguments) failed (\(status))") }
        }

        deinit { try? stop() }
    }

    @Test("while PostgreSQL is down: /readyz says so, writes answer 503 store_unavailable, the process lives; when it is back, all resumes",
          .enabled(if: binaries != nil && StoreBackend.postgresURL != nil))
    func outage() async throws {
        let bin = try #require(Self.binaries)
        let cluster = try await offloaded { try Cluster(bin: bin) }
        let server = try await ServerProcess(databaseURL: cluster.url)
        let admin = ["Authorization": "Bearer \(try #require(server.printedAdminKey))"]
        let port = server.port
        func call(_ method: String, _ path: String, _ body: String = "") async throws -> RawHTTPConnection.Response {
            try await offloaded { try RawHTTPConnection(port: port, timeoutSeconds: 30).request(method, path, headers: admin, body: body) }
        }
        let workspace = try JSONDecoder().decode(Page<Workspace>.self, from: Data(try await call("GET", "/v1/workspaces").body.utf8)).items[0].id
        func app(_ bundle: String) throws -> String {
            try TestClient.json(CreateAppRequest(workspaceId: workspace, name: "O", teamId: "ABCDE12345", bundleId: bundle))
        }
        func createApp(_ bundle: String) async throws -> Int { try await call("POST", "/v1/apps", try app(bundle)).status }
        #expect(try await createApp("com.outage.before") == 201)

        try await offloaded { try cluster.stop() }
        let down = try await call("GET", "/readyz")
        #expect(down.status == 503 && down.body.contains("unavailable"))
        let refused = try await call("POST", "/v1/apps", try app("com.outage.during"))
        #expect(refused.status == 503 && refused.body.contains("store_unavailable"), "\(refused.status) \(refused.body)")
        #expect(try await call("GET", "/healthz").status == 200, "the process is alive")

        try await offloaded { try cluster.start() }
        let deadline = ContinuousClock.now + .seconds(30)
        var ready = false
        while !ready && ContinuousClock.now < deadline {
            ready = try await call("GET", "/readyz").status == 200
            if !ready { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(ready, "the server reconnects when PostgreSQL is back")
        #expect(try await createApp("com.outage.after") == 201)
        let apps = try JSONDecoder().decode(Page<App>.self, from: Data(try await call("GET", "/v1/apps?limit=200").body.utf8)).items.map(\.bundleId)
        #expect(apps == ["com.outage.before", "com.outage.after"], "nothing refused was stored, nothing acknowledged was lost")
        _ = try await server.stop(signal: SIGTERM)
    }

    @Test("a server started before its PostgreSQL waits for it; one whose wait runs out says why and exits",
          .enabled(if: binaries != nil && StoreBackend.postgresURL != nil))
    func startsBeforeDatabase() async throws {
        let bin = try #require(Self.binaries)
        let cluster = try await offloaded { try Cluster(bin: bin) }
        try await offloaded { try cluster.stop() }

        let started = ContinuousClock.now
        do {
            _ = try await ServerProcess(databaseURL: cluster.url, environment: ["LINKRUNWAY_DATABASE_WAIT": "1"])
            Issue.record("serve started without its database")
        } catch let failure as ServerProcess.Failure {
            #expect(failure.description.contains("waiting for the database"), "\(failure)")
            #expect(failure.description.contains("cannot start: store unavailable"), "\(failure)")
        }
        #expect(started.duration(to: .now) >= .seconds(1), "it tried for its whole wait")

        // The default wait (30 s) outlasts a database that comes up two seconds after the server.
        async let waiting = ServerProcess(databaseURL: cluster.url)
        try await Task.sleep(for: .seconds(2))
        try await offloaded { try cluster.start() }
        let server = try await waiting
        #expect(server.stderr.contains("waiting for the database"))
        let admin = ["Authorization": "Bearer \(try #require(server.printedAdminKey))"]
        let ready = try await offloaded { try RawHTTPConnection(port: server.port, timeoutSeconds: 30).request("GET", "/readyz") }
        #expect(ready.status == 200, "\(ready.body)")
        let workspaces = try await offloaded {
            try RawHTTPConnection(port: server.port, timeoutSeconds: 30).request("GET", "/v1/workspaces", headers: admin)
        }
        #expect(workspaces.status == 200)
        _ = try await server.stop(signal: SIGTERM)
    }
}
