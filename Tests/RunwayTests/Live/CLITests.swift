import Foundation
import LinkRunwayAPI
@testable import RunwayCLI
import RunwayHTTP
import RunwayServer
import Testing

/// The CLI against a real server (in this process, on a real socket).
@Suite("CLI")
struct CLITests {
    struct Run {
        let status: Int32
        let output: String
        let errors: String
    }

    final class Capture: @unchecked Sendable {
        var output = "", errors = ""
        let lock = NSLock()
        func out(_ s: String) { lock.lock(); output += s + "\n"; lock.unlock() }
        func err(_ s: String) { lock.lock(); errors += s + "\n"; lock.unlock() }
    }

    static func run(_ arguments: [String], environment: [String: String] = [:]) async -> Run {
        let capture = Capture()
        let status = await CLI.run(arguments, environment: environment, output: capture.out, errorOutput: capture.err)
        return Run(status: status, output: capture.output, errors: capture.errors)
    }

    static func startServer() async throws -> (ServerRuntime, TemporaryDirectory, [String: String]) {
        let directory = TemporaryDirectory()
        var configuration = ServerConfiguration(database: .sqlite(path: directory.path("cli.db")))
        configuration.http.port = 0
        configuration.logLevel = .error
        let runtime = try await ServerRuntime.start(configuration, logSink: .memory())
        let key = try #require(runtime.bootstrap?.adminKey)
        return (runtime, directory, ["LINKRUNWAY_URL": "http://127.0.0.1:\(runtime.port)", "LINKRUNWAY_KEY": key])
    }

    @Test("every command has --help, exit 0")
    func help() async {
        for command in CLI.commands {
            let run = await Self.run(command.words + ["--help"])
            #expect(run.status == 0, "\(command.words)")
            #expect(run.output.contains("Usage: linkrunway \(command.words.joined(separator: " "))"))
        }
        #expect(await Self.run(["--help"]).status == 0)
        #expect(await Self.run(["app", "--help"]).status == 0)
    }

    @Test("usage errors exit 64", arguments: [
        ["bogus"], [], ["app", "create", "--nme", "x"], ["app", "show"], ["key", "create", "--kind", "root"], ["serve", "--port", "x"],
        ["app", "list", "--json=yes"],
    ])
    func usageErrors(_ arguments: [String]) async {
        let run = await Self.run(arguments, environment: ["LINKRUNWAY_KEY": "lr_ak_x"])
        #expect(run.status == 64, "\(arguments): \(run.errors)")
    }

    @Test("management commands work end to end, print tables or JSON, and fail with exit 1")
    func endToEnd() async throws {
        let (runtime, directory, environment) = try await Self.startServer()
        let workspaces = await Self.run(["workspace", "list", "--json"], environment: environment)
        #expect(workspaces.status == 0)
        let workspace = try JSONDecoder().decode([Workspace].self, from: Data(workspaces.output.utf8))[0]

        let created = await Self.run(["app", "create", "--name", "Demo", "--team-id", "ABCDE12345", "--bundle-id", "com.example.cli",
                                      "--platforms", "ios,macos", "--workspace", workspace.id, "--json"], environment: environment)
        #expect(created.status == 0, "\(created.errors)")
        #expect(created.status == 0, "\(created.errors)")
        let app = try JSONDecoder().decode(App.self, from: Data(created.output.utf8))
        #expect(app.platforms == [.ios, .macos])

        let list = await Self.run(["app", "list"], environment: environment)
        #expect(list.output.contains("com.example.cli"))
        let show = await Self.run(["app", "show", app.id], environment: environment)
        #expect(show.output.contains("ABCDE12345"))

        let key = await Self.run(["key", "create", "--kind", "publishable", "--app", app.id, "--json"], environment: environment)
        let createdKey = try JSONDecoder().decode(CreatedKey.self, from: Data(key.output.utf8))
        #expect(createdKey.secret.hasPrefix("lr_pk_"))
        let keys = await Self.run(["key", "list", "--app", app.id], environment: environment)
        #expect(keys.output.contains(createdKey.key.id))
        #expect(!keys.output.contains(createdKey.secret))
        let revoked = await Self.run(["key", "revoke", createdKey.key.id], environment: environment)
        #expect(revoked.status == 0)
        #expect(revoked.output.contains("Revoked"))

        let duplicate = await Self.run(["app", "create", "--name", "Demo", "--team-id", "ABCDE12345", "--bundle-id", "com.example.cli",
                                        "--workspace", workspace.id], environment: environment)
        #expect(duplicate.status == 1)
        #expect(duplicate.errors.contains("app_exists"))
        let badKey = await Self.run(["app", "list"], environment: environment.merging(["LINKRUNWAY_KEY": "lr_ak_nope"]) { $1 })
        #expect(badKey.status == 1)
        #expect(badKey.errors.contains("invalid_key"))

        await runtime.stop()
        let unreachable = await Self.run(["app", "list"], environment: environment)
        #expect(unreachable.status == 1)
        #expect(unreachable.errors.contains("cannot reach"))
        _ = directory
    }

    @Test("migrate brings a new database to the current schema and is idempotent")
    func migrate() async throws {
        let directory = TemporaryDirectory()
        let url = "sqlite:\(directory.path("m.db"))"
        let first = await Self.run(["migrate", "--database-url", url])
        #expect(first.status == 0)
        #expect(first.output.contains("0001_tenancy"))
        let second = await Self.run(["migrate"], environment: ["LINKRUNWAY_DATABASE_URL": url])
        #expect(second.output.contains("up to date"))
        let bad = await Self.run(["migrate", "--database-url", "mysql://x"])
        #expect(bad.status == 64)
    }
}

/// Link commands against a real server, and QR codes read back by a real decoder.
@Suite("CLI links")
struct CLILinkTests {
    @Test("domains and links are managed from the CLI, and the QR code decodes (zbarimg) to the link")
    func links() async throws {
        let (runtime, directory, environment) = try await CLITests.startServer()
        func run(_ arguments: [String]) async -> CLITests.Run { await CLITests.run(arguments, environment: environment) }
        let workspace = try JSONDecoder().decode([Workspace].self, from: Data(await run(["workspace", "list", "--json"]).output.utf8))[0]
        let added = await run(["domain", "add", "go.example.com", "--workspace", workspace.id])
        #expect(added.status == 0, "\(added.errors)")
        #expect(await run(["domain", "list"]).output.contains("go.example.com"))

        let created = await run(["link", "create", "--workspace", workspace.id, "--domain", "go.example.com", "--path", "summer",
                                 "--app-path", "/promo", "--web", "https://example.com/s", "--metadata", #"{"sku":42}"#,
                                 "--preview-title", "Summer", "--interstitial", "on", "--json"])
        #expect(created.status == 0, "\(created.errors)")
        let link = try JSONDecoder().decode(Link.self, from: Data(created.output.utf8))
        #expect(link.url == "https://go.example.com/summer")
        #expect(link.interstitial)
        #expect(link.metadata?["sku"] == .number(42))
        #expect(await run(["link", "create", "--workspace", workspace.id, "--web", "http://insecure"]).status == 1)
        #expect(await run(["link", "create", "--interstitial", "maybe"]).status == 64)

        let updated = await run(["link", "update", link.id, "--campaign", "july", "--enabled", "off", "--json"])
        let changed = try JSONDecoder().decode(Link.self, from: Data(updated.output.utf8))
        #expect(changed.campaign == "july" && !changed.enabled)
        #expect(changed.destinations.web == "https://example.com/s")
        #expect(await run(["link", "list", "--campaign", "july"]).output.contains(link.id))
        #expect(await run(["link", "show", link.id]).output.contains("/promo"))
        #expect(await run(["link", "disable", link.id]).status == 0)

        let png = directory.path("summer.png")
        let qr = await run(["link", "qr", link.id, "--out", png, "--size", "400"])
        #expect(qr.status == 0, "\(qr.errors)")
        let decoded = try await offloaded { () -> String in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["zbarimg", "--raw", "-q", png]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            process.waitUntilExit()
            return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
        #expect(decoded.trimmingCharacters(in: .whitespacesAndNewlines) == "https://go.example.com/summer")
        let svg = directory.path("summer.svg")
        #expect(await run(["link", "qr", link.id, "--format", "svg", "--out", svg]).status == 0)
        #expect(try String(contentsOfFile: svg, encoding: .utf8).hasPrefix("<svg"))
        await runtime.stop()
    }
}

/// A deferred deep link from the command line: a click, an install from the same address, the explanation.
@Suite("CLI simulation")
struct CLISimulationTests {
    @Test("simulate a click and an install, then explain, report, export and delete it")
    func deferredDeepLink() async throws {
        let (runtime, directory, environment) = try await CLITests.startServer()
        func run(_ arguments: [String]) async -> CLITests.Run { await CLITests.run(arguments, environment: environment) }
        let listed = await run(["workspace", "list", "--json"])
        #expect(listed.status == 0, "\(listed.errors)")
        let workspace = try JSONDecoder().decode([Workspace].self, from: Data(listed.output.utf8))[0]
        let created = await run(["app", "create", "--workspace", workspace.id, "--name", "Sim", "--team-id", "ABCDE12345",
                                 "--bundle-id", "com.example.sim", "--app-store-id", "123", "--json"])
        #expect(created.status == 0, "\(created.errors)")
        let app = try JSONDecoder().decode(App.self, from: Data(created.output.utf8))
        #expect(await run(["app", "update", app.id, "--probabilistic-minutes", "15"]).output.contains("probabilistic 15 min"))
        let made = await run(["link", "create", "--workspace", workspace.id, "--path", "sim", "--app-path", "/welcome", "--campaign", "cli", "--json"])
        #expect(made.status == 0, "\(made.errors)")
        let link = try JSONDecoder().decode(Link.self, from: Data(made.output.utf8))
        let click = await run(["simulate", "click", link.url, "--ip", "192.0.2.77"])
        #expect(click.status == 0, "\(click.errors)")
        #expect(click.output.contains("https://apps.apple.com/app/id123"))
        let install = await run(["simulate", "install", "--app", app.id, "--ip", "192.0.2.77", "--install-id", "cli-install"])
        #expect(install.output.contains("probabilistic"))
        #expect(install.output.contains("/welcome"))
        let other = await run(["simulate", "install", "--app", app.id, "--ip", "192.0.2.78", "--install-id", "cli-other"])
        #expect(other.output.contains("unmatched"))
        let explained = await run(["install", "explain", "cli-install"])
        #expect(explained.output.contains("✓ probabilistic \(link.id)"))
        #expect(explained.output.contains("probabilistic (on, 15 minutes)"))
        let report = await run(["report", "funnel", "--group-by", "campaign", "--csv", "--workspace", workspace.id])
        #expect(report.output.contains("cli,1,1,0"), "\(report.output) \(report.errors)")
        #expect(await run(["install", "export", "cli-install"]).output.contains("\"installId\" : \"cli-install\""))
        #expect(await run(["install", "delete", "cli-install"]).output.contains("installs 1"))
        #expect(await run(["install", "explain", "cli-install"]).status == 1)
        await runtime.stop()
        _ = directory
    }
}
