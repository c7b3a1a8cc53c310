import Foundation
@testable import RunwayCLI
import RunwayCapabilities
import RunwayConsole
import RunwayKit
import RunwayServer
import RunwayTestKit
import Testing

/// The API guide and the generated reference pages must stay true to the code they describe.
@Suite("Documentation")
struct DocumentationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Compares a generated page with its file; `LINKRUNWAY_WRITE_DOCS=1` (what `make docs` sets) rewrites the file.
    static func expectGenerated(_ relativePath: String, _ generated: String) throws {
        let url = root.appendingPathComponent(relativePath)
        if ProcessInfo.processInfo.environment["LINKRUNWAY_WRITE_DOCS"] == "1" {
            try generated.write(to: url, atomically: true, encoding: .utf8)
        }
        let stored = try String(contentsOf: url, encoding: .utf8)
        #expect(stored == generated, "\(relativePath) differs from the code: run make docs")
    }

    @Test("docs/configuration.md is the generated list of every setting")
    func configurationReference() throws {
        try Self.expectGenerated("docs/configuration.md", ReferenceDocs.configuration())
        let page = ReferenceDocs.configuration()
        for setting in ServerConfiguration.settings {
            #expect(page.contains("| `\(setting.environment)` | `\(setting.flag)` |"))
        }
    }

    @Test("docs/cli.md is the generated reference of every command and option")
    func commandReference() throws {
        let page = CommandReference.page()
        try Self.expectGenerated("docs/cli.md", page)
        for command in CLI.commands {
            #expect(page.contains("## `linkrunway \(command.words.joined(separator: " "))`"))
            for option in command.options where option.name != "--help" { #expect(page.contains("| `\(option.name)")) }
        }
    }

    @Test("docs/api-reference.md is generated from the OpenAPI document and names every route")
    func apiReference() async throws {
        let server = try await TestServer.start()
        let document = try #require(await server.admin.get("/openapi.json").json)
        let page = ReferenceDocs.api(document: document)
        try Self.expectGenerated("docs/api-reference.md", page)
        for route in server.application.router.routes {
            let shown = route.pattern.replacingOccurrences(of: "...}", with: "}")
            #expect(page.contains("### `\(route.method.rawValue) \(shown)`"), "docs/api-reference.md lacks \(route.label)")
        }
        await server.stop()
    }

    @Test("docs/api.md, the API guide, lists every route of the router")
    func routeTable() async throws {
        let guide = try String(contentsOf: Self.root.appendingPathComponent("docs/api.md"), encoding: .utf8)
        let server = try await TestServer.start()
        for route in server.application.router.routes {
            // The guide writes every `{…Id}` as `{id}` and `{rest...}` as `{rest}`.
            let shown = route.pattern.replacingOccurrences(of: "\\{[a-z]+Id\\}", with: "{id}", options: .regularExpression)
                .replacingOccurrences(of: "...}", with: "}")
            #expect(guide.contains("`\(route.method.rawValue) \(shown)`"), "docs/api.md does not list \(route.label)")
        }
        await server.stop()
    }
}
