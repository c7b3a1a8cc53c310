import Foundation
import RunwayServer
import Testing

/// The README must stay true to the code it describes.
@Suite("Documentation")
struct DocumentationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test("the README's configuration table lists every setting with its variable, flag and default")
    func configurationTable() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        for setting in ServerConfiguration.settings {
            let row = readme.split(separator: "\n").first { $0.hasPrefix("| `\(setting.environment)`") }
            let line = try #require(row.map(String.init), "README has no row for \(setting.environment)")
            #expect(line.contains("`\(setting.flag)`"), "\(setting.environment) row lacks \(setting.flag)")
            #expect(line.contains(setting.defaultValue), "\(setting.environment) row lacks its default \(setting.defaultValue)")
        }
    }

    @Test("the README lists every route of the router")
    func routeTable() async throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let server = try await TestServer.start()
        for route in server.application.router.routes {
            // The README writes every `{…Id}` as `{id}` and `{rest...}` as `{rest}`.
            let shown = route.pattern.replacingOccurrences(of: "\\{[a-z]+Id\\}", with: "{id}", options: .regularExpression)
                .replacingOccurrences(of: "...}", with: "}")
            #expect(readme.contains("`\(route.method.rawValue) \(shown)`"), "README does not list \(route.label)")
        }
        await server.stop()
    }
}
