import AppleFormats
import Foundation
import LinkRunwayAPI
@testable import RunwayCLI
import RunwayCapabilities
import RunwayConsole
import RunwayCrypto
import RunwayHTTP
import RunwayKit
import RunwayServer
import RunwaySQLite
import RunwayStore
import RunwayTestKit
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

    /// A server on a free port; `privateTargets` lets its webhooks reach receivers on loopback.
    static func startServer(privateTargets: Bool = false) async throws -> (ServerRuntime, TemporaryDirectory, [String: String]) {
        let directory = TemporaryDirectory()
        var configuration = ServerConfiguration(database: .sqlite(path: directory.path("cli.db")))
        configuration.http.port = 0
        configuration.outbound.allowPrivateTargets = privateTargets
        configuration.logLevel = .error
        let runtime = try await ServerRuntime.start(configuration, logSink: .memory())
        let key = try #require(runtime.bootstrap?.adminKey)
        return (runtime, directory, ["LINKRUNWAY_URL": "http://127.0.0.1:\(runtime.port)", "LINKRUNWAY_KEY": key])
    }

    @Test("every command has --help, exit 0")
    func help() async {
        for command in CLI.commands {
            let run = await CLITests.run(command.words + ["--help"])
            #expect(run.status == 0, "\(command.words)")
            #expect(run.output.contains("Usage: linkrunway \(command.words.joined(separator: " "))"))
        }
        #expect(await CLITests.run(["--help"]).status == 0)
        #expect(await CLITests.run(["app", "--help"]).status == 0)
    }

    @Test("usage errors exit 64", arguments: [
        ["bogus"], [], ["app", "create", "--nme", "x"], ["app", "show"], ["key", "create", "--kind", "root"], ["serve", "--port", "x"],
        ["app", "update", "app_x"], ["version"],
        ["app", "list", "--json=yes"], ["serve", "--request-timeout", "1e300"], ["serve", "--shutdown-grace", "1e300"],
    ])
    func usageErrors(_ arguments: [String]) async {
        let run = await CLITests.run(arguments, environment: ["LINKRUNWAY_KEY": "lr_ak_x"])
        #expect(run.status == 64, "\(arguments): \(run.errors)")
    }

    @Test("every missing required option is named in one usage error, and the help marks them")
    func missingOptions() async {
        let run = await CLITests.run(["app", "create", "--team-id", "ABCDE12345"], environment: ["LINKRUNWAY_KEY": "lr_ak_x"])
        #expect(run.status == 64)
        #expect(run.errors.contains("missing --name and --bundle-id"), "\(run.errors)")
        let none = await CLITests.run(["app", "create"], environment: ["LINKRUNWAY_KEY": "lr_ak_x"])
        #expect(none.errors.contains("missing --name, --team-id and --bundle-id"), "\(none.errors)")
        #expect(await CLITests.run(["app", "create", "--help"]).output.contains("Required. "))
    }

    @Test("the help lists every command once, by area")
    func groupedHelp() async {
        let help = await CLITests.run(["--help"]).output
        for group in CLI.groups { #expect(help.contains("\n\(group.area):\n"), "\(group.area)") }
        for command in CLI.commands {
            // Its words, then the padding, then its summary (`plist` is also the start of `plist check`).
            let lines = help.split(separator: "\n").filter { $0.hasPrefix("  " + command.words.joined(separator: " ") + " ") && $0.hasSuffix(command.summary) }
            #expect(lines.count == 1, "\(command.words) is listed once")
        }
    }

    @Test("an unknown command or option is one short error with a guess and where the help is, not the whole help")
    func shortUsageErrors() async {
        let command = await CLITests.run(["lnk", "create"], environment: [:])
        #expect(command.status == 64)
        #expect(command.errors.contains(#"unknown command "lnk create"; did you mean "link create"?"#), "\(command.errors)")
        #expect(command.errors.split(separator: "\n").count <= 3, "\(command.errors)")
        let option = await CLITests.run(["app", "create", "--nme", "x"], environment: ["LINKRUNWAY_KEY": "lr_ak_x"])
        #expect(option.errors.contains("unknown option --nme; did you mean --name?"), "\(option.errors)")
        #expect(option.errors.contains("Run linkrunway app create --help for its options."))
        #expect(option.errors.split(separator: "\n").count <= 3, "\(option.errors)")
        let far = await CLITests.run(["quux"], environment: [:])
        #expect(far.status == 64 && !far.errors.contains("did you mean"), "nothing is guessed from far away: \(far.errors)")
        #expect(Suggestion.distance("kitten", "sitting") == 3)
    }

    @Test("management commands work end to end, print tables or JSON, and fail with exit 1")
    func endToEnd() async throws {
        let (runtime, directory, environment) = try await Self.startServer()
        let workspaces = await CLITests.run(["workspace", "list", "--json"], environment: environment)
        #expect(workspaces.status == 0)
        let workspace = try JSONDecoder().decode([Workspace].self, from: Data(workspaces.output.utf8))[0]

        let created = await CLITests.run(["app", "create", "--name", "Demo", "--team-id", "ABCDE12345", "--bundle-id", "com.example.cli",
                                      "--platforms", "ios,macos", "--workspace", workspace.id, "--json"], environment: environment)
        #expect(created.status == 0, "\(created.errors)")
        #expect(created.status == 0, "\(created.errors)")
        let app = try JSONDecoder().decode(App.self, from: Data(created.output.utf8))
        #expect(app.platforms == [.ios, .macos])

        let list = await CLITests.run(["app", "list"], environment: environment)
        #expect(list.output.contains("com.example.cli"))
        let show = await CLITests.run(["app", "show", app.id], environment: environment)
        #expect(show.output.contains("ABCDE12345"))

        let key = await CLITests.run(["key", "create", "--kind", "publishable", "--app", app.id, "--json"], environment: environment)
        let createdKey = try JSONDecoder().decode(CreatedKey.self, from: Data(key.output.utf8))
        #expect(createdKey.secret.hasPrefix("lr_pk_"))
        let keys = await CLITests.run(["key", "list", "--app", app.id], environment: environment)
        #expect(keys.output.contains(createdKey.key.id))
        #expect(!keys.output.contains(createdKey.secret))
        let revoked = await CLITests.run(["key", "revoke", createdKey.key.id], environment: environment)
        #expect(revoked.status == 0)
        #expect(revoked.output.contains("Revoked"))

        let duplicate = await CLITests.run(["app", "create", "--name", "Demo", "--team-id", "ABCDE12345", "--bundle-id", "com.example.cli",
                                        "--workspace", workspace.id], environment: environment)
        #expect(duplicate.status == 1)
        #expect(duplicate.errors.contains("app_exists"))
        let badKey = await CLITests.run(["app", "list"], environment: environment.merging(["LINKRUNWAY_KEY": "lr_ak_nope"]) { $1 })
        #expect(badKey.status == 1)
        #expect(badKey.errors.contains("invalid_key"))

        await runtime.stop()
        let unreachable = await CLITests.run(["app", "list"], environment: environment)
        #expect(unreachable.status == 1)
        #expect(unreachable.errors.contains("cannot reach"))
        _ = directory
    }

    @Test("migrate refuses a SQLite path that does not exist unless --create, brings a new database to the current schema and is idempotent")
    func migrate() async throws {
        let directory = TemporaryDirectory()
        let url = "sqlite:\(directory.path("m.db"))"
        let typo = await CLITests.run(["migrate", "--database-url", url])
        #expect(typo.status == 64 && typo.errors.contains("--create"))
        #expect(!FileManager.default.fileExists(atPath: directory.path("m.db")), "nothing is created without --create")
        let first = await CLITests.run(["migrate", "--create", "--database-url", url])
        #expect(first.status == 0)
        #expect(first.output.contains("0001_tenancy"))
        let second = await CLITests.run(["migrate"], environment: ["LINKRUNWAY_DATABASE_URL": url])
        #expect(second.output.contains("up to date"))
        let bad = await CLITests.run(["migrate", "--database-url", "mysql://x"])
        #expect(bad.status == 64)
    }

    @Test("migrate and doctor --database-url name stored amounts beyond the API's bounds, kept from before amounts were bounded")
    func storedAmountsOutOfRange() async throws {
        let directory = TemporaryDirectory()
        let url = "sqlite:\(directory.path("o.db"))"
        #expect(await CLITests.run(["migrate", "--create", "--database-url", url]).status == 0)
        let store = try SQLiteStore(path: directory.path("o.db"))
        try await store.write { db in
            try db.execute("""
                INSERT INTO link_stats (link_id, dimension, period, day, value, measure, amount)
                VALUES ('lnk_old', 'all', 'day', 20000, '', 'revenue:EUR', 9223372036854775000)
                """)
        }
        await store.close()
        let again = await CLITests.run(["migrate", "--database-url", url])
        #expect(again.status == 0 && again.output.contains("1 row(s) of link_stats") && again.output.contains("total_out_of_range"), "\(again.output)")
        let doctor = await CLITests.run(["doctor", "--server", "http://127.0.0.1:9", "--json", "--database-url", url])
        #expect(doctor.output.contains("link_stats beyond the API's bounds"), "\(doctor.output)")
        let clean = TemporaryDirectory()
        #expect(await CLITests.run(["migrate", "--create", "--database-url", "sqlite:\(clean.path("c.db"))"]).output.contains("row(s)") == false)
    }
}

/// Link commands against a real server, and QR codes read back by a real decoder.
@Suite("CLI links")
struct CLILinkTests {
    @Test("create commands act in the only workspace the key sees, else in $LINKRUNWAY_WORKSPACE or --workspace; with several and none named, a usage error")
    func defaultWorkspace() async throws {
        let (runtime, _, environment) = try await CLITests.startServer()
        func run(_ arguments: [String], _ extra: [String: String] = [:]) async -> CLITests.Run {
            await CLITests.run(arguments, environment: environment.merging(extra) { $1 })
        }
        // The links guide's own first commands, as written: one workspace, so no --workspace.
        let added = await run(["domain", "add", "go.example.com"])
        #expect(added.status == 0, "\(added.errors)")
        let link = await run(["link", "create", "--domain", "go.example.com", "--path", "summer", "--web", "https://example.com/s"])
        #expect(link.status == 0, "\(link.errors)")
        #expect(await run(["affiliate", "create", "--name", "Alice"]).status == 0)
        for report in [["report", "funnel"], ["report", "postbacks"], ["report", "payouts"]] {
            let answered = await run(report)
            #expect(answered.status == 0, "\(report): \(answered.errors)")
        }

        let second = try JSONDecoder().decode(Workspace.self, from: Data(await run(["workspace", "create", "--name", "Second", "--json"]).output.utf8))
        #expect(await run(["report", "funnel"]).status == 64, "with several workspaces a report asks which")
        let ambiguous = await run(["domain", "add", "go.second.example"])
        #expect(ambiguous.status == 64 && ambiguous.errors.contains("--workspace"), "\(ambiguous.status) \(ambiguous.errors)")
        let named = await run(["domain", "add", "go.second.example", "--json"], ["LINKRUNWAY_WORKSPACE": second.id])
        #expect(named.status == 0, "\(named.errors)")
        #expect(try JSONDecoder().decode(LinkDomain.self, from: Data(named.output.utf8)).workspaceId == second.id)
        #expect(await run(["affiliate", "create", "--name", "Bob", "--workspace", second.id]).status == 0)
        // A workspace that is not there is a usage error naming the option, not an empty list.
        let nowhere = await run(["app", "list", "--workspace", "ws_nope0000"])
        #expect(nowhere.status == 64 && nowhere.errors.contains("--workspace ws_nope0000: there is no such workspace"), "\(nowhere.errors)")
        #expect(await run(["app", "list", "--workspace", second.id]).status == 0)
        await runtime.stop()
    }

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
        #expect(link.interstitial && !link.inAppBrowserPage)
        #expect(link.metadata?["sku"] == .number(42))
        #expect(await run(["link", "create", "--workspace", workspace.id, "--web", "http://insecure"]).status == 1)
        #expect(await run(["link", "create", "--interstitial", "maybe"]).status == 64)

        let updated = await run(["link", "update", link.id, "--campaign", "july", "--enabled", "off", "--in-app-browser-page", "on", "--json"])
        let changed = try JSONDecoder().decode(Link.self, from: Data(updated.output.utf8))
        #expect(changed.campaign == "july" && !changed.enabled && changed.inAppBrowserPage)
        #expect(changed.destinations.web == "https://example.com/s")
        #expect(await run(["link", "list", "--campaign", "july"]).output.contains(link.id))

        // Rules and variants from JSON files, the start, the limit, fallbacks and UTM values; update keeps what it is not given.
        let rules = directory.path("rules.json"), variants = directory.path("variants.json")
        try #"[{"when":{"countries":["fr"]},"url":"https://example.com/fr"}]"#.write(toFile: rules, atomically: true, encoding: .utf8)
        try #"[{"name":"a","weight":1},{"name":"b","weight":3,"url":"https://example.com/b"}]"#.write(toFile: variants, atomically: true, encoding: .utf8)
        let routed = await run(["link", "create", "--workspace", workspace.id, "--domain", "go.example.com", "--path", "routed", "--rules", rules,
                                "--variants", variants, "--starts", "2026-01-01", "--click-limit", "100", "--fallback-over-limit", "https://example.com/full",
                                "--utm-source", "poster", "--utm-medium", "print", "--json"])
        let made = try JSONDecoder().decode(Link.self, from: Data(routed.output.utf8))
        #expect(made.rules?.first?.when.countries == ["FR"] && made.variants?.map(\.name) == ["a", "b"], "\(routed.errors)")
        #expect(made.startsAt == "2026-01-01T00:00:00.000Z" && made.clickLimit == 100 && made.fallbacks?.overLimit == "https://example.com/full")
        let retagged = await run(["link", "update", made.id, "--utm-campaign", "summer", "--fallback-expired", "https://example.com/over", "--json"])
        let kept = try JSONDecoder().decode(Link.self, from: Data(retagged.output.utf8))
        #expect(kept.utm == LinkUTM(source: "poster", medium: "print", campaign: "summer"), "the UTM values not given are kept")
        #expect(kept.fallbacks == LinkFallbacks(expired: "https://example.com/over", overLimit: "https://example.com/full"))
        #expect(await run(["link", "show", made.id]).output.contains("utm_source=poster&utm_medium=print&utm_campaign=summer"))
        try #"[{"wen":{},"url":"https://example.com/x"}]"#.write(toFile: rules, atomically: true, encoding: .utf8)
        let misspelt = await run(["link", "update", made.id, "--rules", rules])
        #expect(misspelt.status == 64 && misspelt.errors.contains("--rules"), "a misspelt key is refused before it reaches the server: \(misspelt.errors)")
        #expect(await run(["link", "show", link.id]).output.contains("/promo"))
        #expect(await run(["link", "disable", link.id]).status == 0)

        let png = directory.path("summer.png")
        let qr = await run(["link", "qr", link.id, "--out", png, "--size", "400"])
        #expect(qr.status == 0, "\(qr.errors)")
        let decoded = try await offloaded { try Subprocess.run("/usr/bin/env", ["zbarimg", "--raw", "-q", png]).stdout }
        #expect(decoded.trimmingCharacters(in: .whitespacesAndNewlines) == "https://go.example.com/summer?qr=1", "a scan carries the QR marker")
        let branded = directory.path("summer-branded.png")
        #expect(await run(["link", "qr", link.id, "--out", branded, "--fg", "#1d3557", "--bg", "fefae0", "--size", "2048"]).status == 0)
        let brandedText = try await offloaded { try Subprocess.run("/usr/bin/env", ["zbarimg", "--raw", "-q", branded]).stdout }
        #expect(brandedText.trimmingCharacters(in: .whitespacesAndNewlines) == "https://go.example.com/summer?qr=1")
        let unreadable = await run(["link", "qr", link.id, "--out", branded, "--fg", "ffffff", "--bg", "000000"])
        #expect(unreadable.status == 1 && unreadable.errors.contains("low_contrast"), "\(unreadable.errors)")
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
        #expect(await run(["app", "update", app.id, "--attestation-policy", "optional"]).output.contains("App Attest optional (production)"))
        #expect(await run(["app", "update", app.id, "--attestation-environments", "development,production"]).output
            .contains("App Attest optional (development, production)"))
        #expect(await run(["app", "update", app.id, "--attestation-builds", "store"]).output.contains("App Attest optional (development, production), builds store"))
        #expect(await run(["app", "update", app.id, "--attestation-policy", "always"]).status == 1)
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
        let report = await run(["report", "funnel", "--group-by", "campaign", "--csv", "--include-simulated", "--workspace", workspace.id])
        #expect(report.output.contains("cli,1,1,0"), "\(report.output) \(report.errors)")
        #expect(await run(["install", "export", "cli-install"]).output.contains("\"installId\" : \"cli-install\""))
        #expect(await run(["install", "delete", "cli-install"]).output.contains("installs 1"))
        #expect(await run(["install", "explain", "cli-install"]).status == 1)
        await runtime.stop()
        _ = directory
    }

    /// `verify app-attest` for a real sample, its attestation written to a file in `directory` (no --root, no --at).
    static func appAttestCommand(_ sample: [String: Any], in directory: TemporaryDirectory) throws -> [String] {
        let file = directory.path("attestation.b64")
        try (sample["attestationBase64"] as! String).write(toFile: file, atomically: true, encoding: .utf8)
        let hash = Digest.sha256(Array(try #require(Data(base64Encoded: sample["clientDataBase64"] as! String))))
        return ["verify", "app-attest", "--attestation", file, "--key-id", sample["keyIdBase64"] as! String, "--client-data-hash", ByteEncoding.hex(hash),
                "--team-id", sample["teamIdentifier"] as! String, "--bundle-id", sample["bundleIdentifier"] as! String]
    }

    @Test("verify app-attest accepts a real attestation at its time and names the failing step otherwise",
          .enabled(if: AppAttestVectors.available, "../shared/vectors/app-attest is absent"))
    func verifyAppAttest() async throws {
        let sample = try #require(AppAttestVectors.veehaitch.first { $0["type"] as? String == "attestation" })
        let directory = TemporaryDirectory()
        let common = try Self.appAttestCommand(sample, in: directory) + ["--root", AppAttestVectors.rootPath]
        struct Verdict: Decodable { let valid: Bool; let environment: String?; let publicKey: String?; let step: String? }

        let valid = await CLITests.run(common + ["--at", sample["timestamp"] as! String])
        #expect(valid.status == 0, "\(valid.output) \(valid.errors)")
        let verdict = try JSONDecoder().decode(Verdict.self, from: Data(valid.output.utf8))
        #expect(verdict.valid && verdict.environment == "development")
        #expect(verdict.publicKey.flatMap { Data(base64Encoded: $0) }.map(Array.init) == PublicKey(pem: sample["publicKey"] as! String)?.spki)

        let expired = await CLITests.run(common + ["--at", "2030-01-01T00:00:00Z"])
        #expect(expired.status == 1)
        #expect(try JSONDecoder().decode(Verdict.self, from: Data(expired.output.utf8)).step == "chain")
        let production = await CLITests.run(common + ["--at", sample["timestamp"] as! String, "--environment", "production"])
        #expect(try JSONDecoder().decode(Verdict.self, from: Data(production.output.utf8)).step == "environment")
        let otherTeam = await CLITests.run(common.map { $0 == sample["teamIdentifier"] as! String ? "AAAAAAAAAA" : $0 } + ["--at", sample["timestamp"] as! String])
        #expect(try JSONDecoder().decode(Verdict.self, from: Data(otherTeam.output.utf8)).step == "rpIdHash")
        let notRoot = directory.path("not-root.pem")
        try "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n".write(toFile: notRoot, atomically: true, encoding: .utf8)
        #expect(await CLITests.run(common.map { $0 == AppAttestVectors.rootPath ? notRoot : $0 }).status == 1)
        #expect(await CLITests.run(Array(common.prefix(4))).status == 64)
    }

    @Test("verify skadnetwork and verify adattributionkit give every Apple example its expected verdict and exit code",
          .enabled(if: PostbackVectors.available, "../shared/vectors is absent"))
    func verifyPostbacks() async throws {
        struct Verdict: Decodable { let valid: Bool; let reason: String?; let signedMessage: String?; let kid: String? }
        for expected in PostbackVectors.skadExpected {
            let file = PostbackVectors.directory.appendingPathComponent("skadnetwork/\(expected["file"] as! String)").path
            let run = await CLITests.run(["verify", "skadnetwork", file])
            let verdict = try JSONDecoder().decode(Verdict.self, from: Data(run.output.utf8))
            let valid = (expected["expected"] as! String).hasPrefix("VALID")
            #expect(run.status == (valid ? 0 : 1) && verdict.valid == valid, "\(file): \(run.output)")
            if valid { #expect(verdict.signedMessage == PostbackVectors.unescape(expected["signed_message_utf8_escaped"] as! String)) }
        }
        let development = PostbackVectors.directory.appendingPathComponent("adattributionkit/postback-dev-settings-valid.json").path
        #expect(await CLITests.run(["verify", "adattributionkit", development]).status == 1)
        let allowed = await CLITests.run(["verify", "adattributionkit", development, "--allow-development"])
        #expect(allowed.status == 0)
        #expect(try JSONDecoder().decode(Verdict.self, from: Data(allowed.output.utf8)).kid == "apple-development-identifier/1")
        let illustration = PostbackVectors.directory.appendingPathComponent("adattributionkit/postback-prod-doc-illustration-INVALID.json").path
        let refused = await CLITests.run(["verify", "adattributionkit", illustration, "--allow-development"])
        #expect(refused.status == 1)
        #expect(try JSONDecoder().decode(Verdict.self, from: Data(refused.output.utf8)).reason == "signature_mismatch")
    }

    @Test("adnetwork keygen and impression sign: a JWS and a SKAdNetwork signature that verify with the printed public key")
    func adNetworkCommands() async throws {
        let directory = TemporaryDirectory()
        let keyFile = directory.path("network.pem")
        let made = await CLITests.run(["adnetwork", "keygen", "--out", keyFile])
        #expect(made.status == 0)
        let publicKey = try #require(made.output.split(separator: "\n").last.flatMap { Data(base64Encoded: String($0)) }.flatMap { PublicKey(spki: Array($0)) })
        #expect(await CLITests.run(["adnetwork", "keygen", "--out", keyFile]).status == 1, "never overwrites a key")
        let common = ["--key", keyFile, "--ad-network-id", "example.adattributionkit", "--source-identifier", "5239", "--advertised-item-id", "525463029"]
        let aak = await CLITests.run(["impression", "sign", "--format", "adattributionkit"] + common)
        #expect(aak.status == 0, "\(aak.errors)")
        let signed = try JSONDecoder().decode(SignedImpression.self, from: Data(aak.output.utf8))
        #expect(try CompactJWS.parse(try #require(signed.jws)).verifies(with: publicKey))
        let skan = try JSONDecoder().decode(SignedImpression.self, from: Data(await CLITests.run(["impression", "sign", "--format", "skadnetwork-4.0"] + common).output.utf8))
        #expect(publicKey.verify(derSignature: Array(Data(base64Encoded: try #require(skan.signature))!), message: Array(try #require(skan.signedMessage).utf8)))
        #expect(await CLITests.run(["impression", "sign", "--format", "png"] + common).status == 64)
        // Offline, as POST /v1/ad-networks does: Apple matches the kid in lower case only.
        let capitals = await CLITests.run(["impression", "sign", "--format", "adattributionkit", "--key", keyFile, "--ad-network-id", "Example123.AdAttributionKit",
                                           "--source-identifier", "5239", "--advertised-item-id", "525463029"])
        #expect(capitals.status == 64 && capitals.output.isEmpty && capitals.errors.contains("example123.adattributionkit"),
                "an ad network id with capitals is refused, naming the lower-case one: \(capitals.errors)")
    }

    @Test("rules set and show a conversion schema; report postbacks reads the server")
    func rulesAndPostbackReport() async throws {
        let (runtime, directory, environment) = try await CLITests.startServer()
        func run(_ arguments: [String]) async -> CLITests.Run { await CLITests.run(arguments, environment: environment) }
        let workspace = try JSONDecoder().decode([Workspace].self, from: Data(await run(["workspace", "list", "--json"]).output.utf8))[0]
        let app = try JSONDecoder().decode(App.self, from: Data(await run(["app", "create", "--workspace", workspace.id, "--name", "Rules",
                                                                              "--team-id", "ABCDE12345", "--bundle-id", "com.example.rules", "--json"]).output.utf8))
        let file = directory.path("rules.json")
        try #"{"rules":[{"type":"INSTALL","fine":0},{"type":"PURCHASE","minAmount":499,"fine":20,"coarse":"high","lockWindow":true}]}"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        let set = await run(["rules", "set", "--app", app.id, "--file", file])
        #expect(set.output.contains("Version 1 of \(app.id)"), "\(set.errors)")
        let shown = await run(["rules", "show", "--app", app.id])
        #expect(shown.output.contains("PURCHASE") && shown.output.contains("high"))
        try #"{"rules":[{"type":"PURCHASE","fine":99}]}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let refused = await run(["rules", "set", "--app", app.id, "--file", file])
        #expect(refused.status == 1 && refused.errors.contains("rules[0].fine"))
        let report = await run(["report", "postbacks", "--workspace", workspace.id, "--group-by", "network", "--csv"])
        #expect(report.status == 0 && report.output.hasPrefix("network,postbacks,installs"))
        let byTier = await run(["report", "postbacks", "--workspace", workspace.id, "--group-by", "tier"])
        #expect(byTier.status == 0 && byTier.output.hasPrefix("TIER") && byTier.output.contains("SHORT SOURCE ID"),
                "the fields Apple withholds have columns: \(byTier.output) \(byTier.errors)")
        await runtime.stop()
    }

    @Test("verify app-store checks Apple's test notification, and names the failing status otherwise",
          .enabled(if: AppStoreVectors.available, "../shared/vectors/assn-v2 is absent"))
    func verifyAppStore() async throws {
        struct Verdict: Decodable { let valid: Bool; let status: String }
        let root = AppStoreVectors.directory.appendingPathComponent("apple-library-mock/testCA.der").path
        let file = AppStoreVectors.directory.appendingPathComponent("apple-library-mock/testNotification.jws").path
        func run(_ extra: [String]) async throws -> (Int32, Verdict) {
            let run = await CLITests.run(["verify", "app-store", file, "--root", root] + extra)
            return (run.status, try JSONDecoder().decode(Verdict.self, from: Data(run.output.utf8)))
        }
        let valid = try await run(["--bundle-id", "com.example", "--environment", "Sandbox"])
        #expect(valid.0 == 0 && valid.1.valid)
        #expect(try await run(["--bundle-id", "com.example", "--environment", "Production", "--app-apple-id", "1234"]).1.status == "INVALID_ENVIRONMENT")
        #expect(try await run(["--bundle-id", "com.other", "--environment", "Sandbox"]).0 == 1)
        let real = AppStoreVectors.directory.appendingPathComponent("apple-real-certs/AppleRootCA-G3.cer").path
        let foreign = await CLITests.run(["verify", "app-store", file, "--root", real, "--bundle-id", "com.example", "--environment", "Sandbox"])
        #expect(foreign.status == 1 && foreign.output.contains("VERIFICATION_FAILURE"))
        // Renewal info names no app: it is recognised and checked as Apple's verifier checks it, by environment alone.
        let renewal = AppStoreVectors.directory.appendingPathComponent("apple-library-mock/renewalInfo.jws").path
        let checked = await CLITests.run(["verify", "app-store", renewal, "--root", root, "--environment", "Sandbox"])
        struct Kinded: Decodable { let status: String; let kind: String }
        let kinded = try JSONDecoder().decode(Kinded.self, from: Data(checked.output.utf8))
        #expect(checked.status == 0 && kinded.kind == "renewal-info" && kinded.status == "VALID", "\(checked.output)")
        let production = await CLITests.run(["verify", "app-store", renewal, "--root", root, "--bundle-id", "com.example", "--environment", "Production"])
        #expect(production.status == 1 && production.output.contains("INVALID_ENVIRONMENT"))
        let xcode = AppStoreVectors.directory.appendingPathComponent("apple-library-mock/xcode-signed-renewal-info.jws").path
        #expect(await CLITests.run(["verify", "app-store", xcode, "--root", root, "--environment", "Xcode"]).status == 0)
        let transaction = AppStoreVectors.directory.appendingPathComponent("apple-library-mock/transactionInfo.jws").path
        #expect(await CLITests.run(["verify", "app-store", transaction, "--root", root, "--environment", "Sandbox"]).errors.contains("--bundle-id"),
                "a transaction names its app, so the bundle id is needed")
    }

    @Test("affiliate commands: an affiliate, a program, a code, a surface, and balances through the CLI")
    func affiliateCommands() async throws {
        let (runtime, directory, environment) = try await CLITests.startServer()
        func run(_ arguments: [String]) async -> CLITests.Run { await CLITests.run(arguments, environment: environment) }
        func decode<T: Decodable>(_ type: T.Type, _ arguments: [String]) async throws -> T {
            let result = await run(arguments)
            do { return try JSONDecoder().decode(type, from: Data(result.output.utf8)) } catch {
                Issue.record("\(arguments): \(result.output) \(result.errors)")
                throw error
            }
        }
        let workspace = try await decode([Workspace].self, ["workspace", "list", "--json"])[0]
        let app = try await decode(App.self, ["app", "create", "--workspace", workspace.id, "--name", "Subs", "--team-id", "ABCDE12345",
                                                "--bundle-id", "com.example.subs", "--app-store-id", "42", "--json"])
        let affiliate = try await decode(Affiliate.self, ["affiliate", "create", "--workspace", workspace.id, "--name", "Alice", "--json"])
        let program = try await decode(AffiliateProgram.self, ["affiliate", "program", "--app", app.id, "--name", "Creators", "--percent", "12.5",
                                                                 "--hold-days", "7", "--json"])
        #expect(program.commission.basisPoints == 1250 && program.holdDays == 7)
        #expect(await run(["affiliate", "code", affiliate.id, "--program", program.id, "--code", "alice"]).output.contains("ALICE"))
        #expect(await run(["affiliate", "link", affiliate.id, "--program", program.id, "--path", "alice"]).output.contains("/alice"))
        let surface = await run(["app-store", "surface", "--app", app.id, "--environment", "production"])
        #expect(surface.output.contains("Forwarding secret (shown only now): lrfs_"), "\(surface.errors)")
        #expect(await run(["affiliate", "balance", affiliate.id]).status == 0)
        #expect(await run(["affiliate", "payout", affiliate.id, "--currency", "USD"]).errors.contains("insufficient") )
        #expect(await run(["report", "payouts", "--workspace", workspace.id, "--csv"]).output.hasPrefix("affiliate_id,name,external_id,currency"))
        #expect(await run(["affiliate", "list", "--workspace", workspace.id]).output.contains("Alice"))
        await runtime.stop()
        _ = directory
    }
}
