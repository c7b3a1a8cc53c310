import Foundation
import LinkRunwayAPI
import RunwayCapabilities
import RunwayConsole
import RunwayHTTP
import RunwayKit
import RunwaySQLite
import RunwayServer
import RunwayStore
import RunwayTestKit
import Synchronization
import Testing

/// `linkrunway backup` and `restore` on the real binary, and the refusal of a database newer than the binary.
@Suite("Backups and upgrades")
struct BackupTests {
    struct Run: Sendable {
        let status: Int32
        let output: String
        let errors: String
    }

    /// Runs the real binary to completion.
    /// Runs the binary to its end; one still running after `seconds` is killed (a `serve` that should have failed).
    static func linkrunway(_ arguments: [String], environment: [String: String] = [:], seconds: Double = 300) async throws -> Run {
        try await offloaded {
            let run = try Subprocess.run(ServerProcess.binary.path, arguments, environment: ["PATH": "/usr/bin:/bin"].merging(environment) { $1 },
                                         timeoutSeconds: seconds)
            return Run(status: run.status, output: run.stdout, errors: run.stderr)
        }
    }

    @Test("a backup taken under write load is one consistent snapshot, and a restore gives the same count of every table")
    func backupUnderLoad() async throws {
        let directory = TemporaryDirectory()
        let live = directory.path("live.db")
        let server = try await ServerProcess(databaseURL: "sqlite:" + live)
        let admin = ["Authorization": "Bearer \(try #require(server.printedAdminKey))"]
        let port = server.port
        let workspaces = try await offloaded { try RawHTTPConnection(port: port).request("GET", "/v1/workspaces", headers: admin) }
        let workspace = try JSONDecoder().decode(Page<Workspace>.self, from: Data(workspaces.body.utf8)).items[0].id
        let load = try TestClient.json(CreateLinkRequest(workspaceId: workspace, path: "load", destinations: LinkDestinations(web: "https://example.com")))
        let link = try await offloaded { try RawHTTPConnection(port: port).request("POST", "/v1/links", headers: admin, body: load) }
        #expect(link.status == 201)

        let answered = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let clickers = (0..<4).map { _ in
            Thread {
                guard let connection = try? RawHTTPConnection(port: port) else { return }
                for _ in 0..<50_000 where !stop.load(ordering: .relaxed) {
                    guard let response = try? connection.request("GET", "/load", headers: ["Host": "localhost", "User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X)"]),
                          response.status == 302 else { return }
                    answered.add(1, ordering: .relaxed)
                }
            }
        }
        defer { stop.store(true, ordering: .relaxed) }
        clickers.forEach { $0.start() }
        let deadline = ContinuousClock.now + .seconds(30)
        while answered.load(ordering: .relaxed) < 300 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }

        let answeredBefore = answered.load(ordering: .relaxed)
        #expect(answeredBefore >= 300, "the clicks were not answered")
        let snapshot = directory.path("under-load.db")
        let backup = try await Self.linkrunway(["backup", "--database-url", "sqlite:" + live, snapshot])
        let answeredAfter = answered.load(ordering: .relaxed)
        #expect(backup.status == 0, "\(backup.errors)")
        #expect(backup.output.contains("Backed up"))
        try await Task.sleep(for: .milliseconds(200))
        stop.store(true, ordering: .relaxed)

        // Every click acknowledged before the backup began is in it; it cannot hold more than were ever made.
        let taken = try SQLiteBackup.summary(of: snapshot)
        let clicksInBackup = try #require(taken.rowCounts["clicks"])
        #expect(clicksInBackup >= Int64(answeredBefore))
        #expect(clicksInBackup <= Int64(answeredAfter) + 4 + 1)  // answered after the count, plus one in flight each
        #expect(taken.migrations.last == Schema.migrations.last?.id)

        // Quiet now: a second backup, restored elsewhere, matches the live database table for table.
        try await Task.sleep(for: .milliseconds(300))
        let quiet = directory.path("quiet.db")
        #expect(try await Self.linkrunway(["backup", "--database-url", "sqlite:" + live, quiet]).status == 0)
        #expect(try await server.stop(signal: SIGTERM) == 0)
        let restoredPath = directory.path("restored.db")
        let restore = try await Self.linkrunway(["restore", "--database-url", "sqlite:" + restoredPath, quiet])
        #expect(restore.status == 0, "\(restore.errors)")
        // The server's heartbeat row went with its clean stop, after the backup.
        var liveCounts = try SQLiteBackup.summary(of: live).rowCounts
        var restoredCounts = try SQLiteBackup.summary(of: restoredPath).rowCounts
        #expect(liveCounts.removeValue(forKey: "server_instances") == 0 && restoredCounts.removeValue(forKey: "server_instances") == 1)
        #expect(restoredCounts == liveCounts)
        #expect(liveCounts["clicks"].map { $0 >= Int64(answeredAfter) } == true)
        #expect(liveCounts["clicks"].map { $0 > clicksInBackup } == true, "the server kept writing after the snapshot was taken")

        // The restored database serves: the link redirects and the old admin key works.
        let restored = try await ServerProcess(databaseURL: "sqlite:" + restoredPath)
        #expect(restored.printedAdminKey == nil, "a restored database is not a new one")
        let restoredPort = restored.port
        let redirect = try await offloaded { try RawHTTPConnection(port: restoredPort).request("GET", "/load", headers: ["Host": "localhost", "User-Agent": UserAgents.desktop]) }
        #expect(redirect.status == 302)
        let listed = try await offloaded { try RawHTTPConnection(port: restoredPort).request("GET", "/v1/workspaces", headers: admin) }
        #expect(listed.status == 200)
        #expect(try await restored.stop(signal: SIGTERM) == 0)
    }

    @Test("a backup copied in many small steps while a writer commits is still one snapshot")
    func steppedSnapshot() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path("stepped.db")
        let store = try SQLiteStore(path: path)
        let filler = String(repeating: "x", count: 900)
        try await store.write { db in
            try db.execute("CREATE TABLE schema_migrations (id TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)")
            try db.execute("CREATE TABLE left_side (n INTEGER, filler TEXT)")
            try db.execute("CREATE TABLE right_side (n INTEGER, filler TEXT)")
        }
        for n in 0..<400 {
            try await store.write { db in
                try db.execute("INSERT INTO left_side VALUES (\(n), \(filler))")
                try db.execute("INSERT INTO right_side VALUES (\(n), \(filler))")
            }
        }
        // Each commit adds a row to both tables; a copy that mixed two moments would count them differently.
        let writer = Task {
            for n in 400..<1400 {
                try await store.write { db in
                    try db.execute("INSERT INTO left_side VALUES (\(n), \(filler))")
                    try db.execute("INSERT INTO right_side VALUES (\(n), \(filler))")
                }
            }
        }
        let steps = Mutex(0)
        let copy = directory.path("stepped-copy.db")
        let summary = try await offloaded {
            try SQLiteBackup.backup(from: path, to: copy, progress: { _, _ in steps.withLock { $0 += 1 } }, pagesPerStep: 4)
        }
        try await writer.value
        await store.close()
        #expect(steps.withLock { $0 } > 10, "the copy took many steps")
        #expect(summary.rowCounts["left_side"] == summary.rowCounts["right_side"], "\(summary.rowCounts)")
        #expect((summary.rowCounts["left_side"] ?? 0) >= 400)
    }

    @Test("restore refuses to overwrite without --replace, and never replaces a database with a broken file")
    func restoreRefusals() async throws {
        let directory = TemporaryDirectory()
        let target = directory.path("target.db")
        #expect(try await Self.linkrunway(["migrate", "--create", "--database-url", "sqlite:" + target]).status == 0)
        let before = try SQLiteBackup.summary(of: target)
        let copy = directory.path("copy.db")
        // Piped, a backup prints only its result; on a terminal (forced here) it shows how far it is.
        let quiet = try await Self.linkrunway(["backup", "--database-url", "sqlite:" + target, copy])
        #expect(quiet.status == 0 && quiet.errors.isEmpty, "\(quiet.errors)")
        let shown = try await Self.linkrunway(["backup", "--database-url", "sqlite:" + target, directory.path("shown.db")],
                                              environment: ["LINKRUNWAY_PROGRESS": "always"])
        #expect(shown.status == 0 && shown.errors.contains("\rbacking up: 100% ("), "\(shown.errors)")
        let again = try await Self.linkrunway(["backup", "--database-url", "sqlite:" + target, copy])
        #expect(again.status == 1 && again.errors.contains("already exists"))

        let exists = try await Self.linkrunway(["restore", "--database-url", "sqlite:" + target, copy])
        #expect(exists.status == 1 && exists.errors.contains("--replace"))
        let garbage = directory.path("garbage.db")
        try Data("not a database at all, just text that is long enough to look like something".utf8).write(to: URL(fileURLWithPath: garbage))
        let broken = try await Self.linkrunway(["restore", "--replace", "--database-url", "sqlite:" + target, garbage])
        #expect(broken.status == 1)
        #expect(try SQLiteBackup.summary(of: target) == before, "the database is untouched")
        #expect(try await Self.linkrunway(["restore", "--replace", "--database-url", "sqlite:" + target, copy]).status == 0)

        let postgres = try await Self.linkrunway(["backup", "--database-url", "postgres://u@127.0.0.1:1/db", copy + "2"])
        #expect(postgres.status == 1 && postgres.errors.contains("pg_dump"))
        #expect(try await Self.linkrunway(["backup"]).status == 64)
    }

    @Test("restore refuses while a server has the database open, and says why; the database and its backups are private files")
    func restoreWhileServing() async throws {
        let directory = TemporaryDirectory()
        let live = directory.path("serving.db")
        let previous = umask(0o022)
        defer { umask(previous) }
        let server = try await ServerProcess(databaseURL: "sqlite:" + live)
        let admin = ["Authorization": "Bearer \(try #require(server.printedAdminKey))"]
        let port = server.port
        let copy = directory.path("copy.db")
        #expect(try await Self.linkrunway(["backup", "--database-url", "sqlite:" + live, copy]).status == 0)
        for file in [live, live + "-wal", live + "-shm", copy] {
            let mode = try #require(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
            #expect(mode == 0o600, "\(file) is \(String(mode, radix: 8)), not 0600")
        }

        // A write the server acknowledged after the backup must survive the refused restore.
        let after = try TestClient.json(CreateWorkspaceRequest(name: "After the backup"))
        let created = try await offloaded { try RawHTTPConnection(port: port).request("POST", "/v1/workspaces", headers: admin, body: after) }
        #expect(created.status == 201)
        let refused = try await Self.linkrunway(["restore", "--replace", "--database-url", "sqlite:" + live, copy])
        #expect(refused.status == 1 && refused.errors.contains("open in another process"), "\(refused.errors)")
        #expect(try await server.stop(signal: SIGTERM) == 0)
        let store = try SQLiteStore(path: live)
        let names = try await store.read { db in try db.query("SELECT name FROM workspaces").map { try $0.string("name") } }
        await store.close()
        #expect(names.contains("After the backup"), "the acknowledged write is still there")

        // Stopped, the restore goes ahead and the restored file is private too.
        #expect(try await Self.linkrunway(["restore", "--replace", "--database-url", "sqlite:" + live, copy]).status == 0)
        #expect(try FileManager.default.attributesOfItem(atPath: live)[.posixPermissions] as? Int == 0o600)
    }

    @Test("a database a newer version migrated is refused by serve, migrate and restore, with what to do")
    func newerDatabaseRefused() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path("newer.db")
        #expect(try await Self.linkrunway(["migrate", "--create", "--database-url", "sqlite:" + path]).status == 0)
        let store = try SQLiteStore(path: path)
        try await store.write { db in try db.execute("INSERT INTO schema_migrations (id, applied_at) VALUES ('9999_from_the_future', 0)") }
        await store.close()

        for command in [["serve", "--port", "0"], ["migrate"]] {
            let run = try await Self.linkrunway(command + ["--database-url", "sqlite:" + path])
            #expect(run.status == 1, "\(command)")
            #expect(run.errors.contains("9999_from_the_future") && run.errors.contains("upgrade linkrunway"), "\(command): \(run.errors)")
            #expect(run.errors.contains("migrated by a newer linkrunway") && !run.errors.contains("corrupt"), "said as what it is: \(run.errors)")
        }
        let restore = try await Self.linkrunway(["restore", "--database-url", "sqlite:" + directory.path("other.db"), path])
        #expect(restore.status == 1 && restore.errors.contains("newer linkrunway"))
        #expect(!FileManager.default.fileExists(atPath: directory.path("other.db")))
    }
}
