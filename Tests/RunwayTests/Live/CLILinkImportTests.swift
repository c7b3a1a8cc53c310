import Foundation
import LinkRunwayAPI
@testable import RunwayCLI
import Testing

/// `link import` against a real server: our columns, a Dynamic Links export and a Branch export.
@Suite("CLI link import")
struct CLILinkImportTests {
    @Test("a dry run changes nothing, a run reports each row, a second run finds its links unchanged; conflicts wait for --update")
    func importCommands() async throws {
        let (runtime, directory, environment) = try await CLITests.startServer()
        // The workspace's first domain is the development one, localhost; these links go on go.example.com.
        let domain = ["--domain", "go.example.com"]
        func run(_ arguments: [String]) async -> CLITests.Run { await CLITests.run(arguments, environment: environment) }
        func write(_ name: String, _ text: String) throws -> String {
            let path = directory.path(name)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        #expect(await run(["domain", "add", "go.example.com"]).status == 0)
        let ours = try write("links.csv", SampleExports.linkrunway)

        let dry = await run(["link", "import", ours, "--dry-run"] + domain)
        #expect(dry.status == 1 && dry.output.contains("Dry run, nothing changed: 1 created, 2 refused"), "\(dry.output)\(dry.errors)")
        #expect(try JSONDecoder().decode([Link].self, from: Data(await run(["link", "list", "--json"]).output.utf8)).isEmpty)

        let first = await run(["link", "import", ours] + domain)
        #expect(first.status == 1 && first.errors.contains("2 row(s) refused"), "\(first.errors)")
        let lines = first.output.split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("LINE") && lines[1].hasPrefix("2 ") && lines[1].contains("created"))
        #expect(lines[2].hasPrefix("3 ") && lines[2].contains("refused") && lines[2].contains("interstitial must be on or off"), "\(lines[2])")
        #expect(lines[3].hasPrefix("4 ") && lines[3].contains("metadata must be a JSON object"))
        let links = try JSONDecoder().decode([Link].self, from: Data(await run(["link", "list", "--json"]).output.utf8))
        #expect(links.map(\.url) == ["https://go.example.com/summer"] && links[0].preview?.title == "Summer, at last")
        #expect(links[0].utm == LinkUTM(source: "newsletter"), "utm_source is the link's UTM parameter")
        #expect(await run(["link", "import", ours] + domain).output.contains("1 unchanged, 2 refused"))

        let firebase = try write("firebase.csv", SampleExports.firebase)
        let moved = await run(["link", "import", firebase, "--from", "firebase"] + domain)
        #expect(moved.status == 1, "\(moved.output)\(moved.errors)")
        #expect(moved.output.contains("1 created, 1 conflict, 1 skipped") && moved.output.contains("archived in Dynamic Links"), "\(moved.output)")
        #expect(moved.output.contains("amv=21: no minimum Android version"))
        #expect(moved.output.contains("answered on example.page.link; they now answer on go.example.com") && moved.output.contains("Google"))
        let kept = try JSONDecoder().decode(Link.self, from: Data(await run(["link", "show", "--json", links[0].id]).output.utf8))
        #expect(kept.preview?.title == "Summer, at last", "a path our own import took is a conflict, left as it is")

        let branchText = SampleExports.branch.replacingOccurrences(of: "https://example.app.link/summer,summer", with: "https://example.app.link/promo,promo")
        let branch = try write("branch.csv", branchText)
        let report = await run(["link", "import", branch, "--from", "branch", "--json"] + domain)
        let rows = try JSONDecoder().decode([LinkImportCommand.ReportRow].self, from: Data(report.output.utf8))
        #expect(rows.map(\.status) == ["created", "created", "refused"] && report.status == 1)
        #expect(rows[0].url == "https://go.example.com/promo" && rows[0].sourceURL == "https://example.app.link/promo")

        let edited = try write("branch-edited.csv", branchText.replacingOccurrences(of: "https://example.com/summer,", with: "https://example.com/autumn,"))
        let conflict = await run(["link", "import", edited, "--from", "branch"] + domain)
        #expect(conflict.output.contains("conflict") && conflict.output.contains("differs in destinations.web"), "\(conflict.output)")
        let updated = await run(["link", "import", edited, "--from", "branch", "--update"] + domain)
        #expect(updated.output.contains("1 unchanged, 1 updated, 1 refused"), "\(updated.output)")
        let promo = try #require(rows[0].linkId)
        #expect(try JSONDecoder().decode(Link.self, from: Data(await run(["link", "show", promo, "--json"]).output.utf8)).destinations.web
                == "https://example.com/autumn")

        #expect(await run(["link", "import", ours, "--from", "excel"]).status == 64)
        #expect(await run(["link", "import", directory.path("missing.csv")]).status == 1)
        await runtime.stop()
    }
}
