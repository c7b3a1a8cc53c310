import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayTestKit
import Testing

/// `linkrunway plist`, `plist settings` and `plist check` against a real server.
@Suite("CLI plist")
struct CLIPlistTests {
    @Test("plist settings stores the rules, plist prints the keys as a property list that plist check passes, and a mistake exits 1")
    func plistCommands() async throws {
        let (runtime, directory, environment) = try await CLITests.startServer()
        func run(_ arguments: [String]) async -> CLITests.Run { await CLITests.run(arguments, environment: environment) }
        let workspace = try JSONDecoder().decode([Workspace].self, from: Data(await run(["workspace", "list", "--json"]).output.utf8))[0]
        let app = try JSONDecoder().decode(App.self, from: Data(await run(["app", "create", "--workspace", workspace.id, "--name", "Plist",
                                                                              "--team-id", "ABCDE12345", "--bundle-id", "com.example.plist", "--json"]).output.utf8))
        let domains = try JSONDecoder().decode([LinkDomain].self, from: Data(await run(["domain", "list", "--workspace", workspace.id, "--json"]).output.utf8))
        let host = try #require(domains.first { $0.verified }?.hostname, "the first verified domain receives the copies")
        let settings = directory.path("settings.json")
        try #"{"reengagementPostbackCopies":true,"overlappingConversions":false,"attributionWindows":[{"adNetworkId":"example.adattributionkit","clickDays":31}]}"#
            .write(toFile: settings, atomically: true, encoding: .utf8)
        let refused = await run(["plist", "settings", app.id, "--file", settings])
        #expect(refused.status == 1 && refused.errors.contains("attributionWindows[0].clickDays"), "\(refused.errors)")
        try #"{"reengagementPostbackCopies":true,"overlappingConversions":false,"attributionWindows":[{"adNetworkId":"example.adattributionkit","clickDays":7}]}"#
            .write(toFile: settings, atomically: true, encoding: .utf8)
        #expect(await run(["plist", "settings", app.id, "--file", settings]).status == 0)

        let printed = await run(["plist", app.id, "--role", "advertised"])
        #expect(printed.status == 0 && printed.output.hasPrefix("<?xml"), "\(printed.errors)")
        let plist = try #require(PropertyList.read(Array(printed.output.utf8)))
        #expect(plist["AdAttributionKit"]?["AttributionCopyEndpoint"] == .string("https://\(host)"))
        #expect(plist["AdAttributionKitConfigurations"]?["AttributionWindows"]?["example.adattributionkit"]?["install"]?["click"] == .integer(7))

        let file = directory.path("Info.plist")
        try printed.output.write(toFile: file, atomically: true, encoding: .utf8)
        let passed = await run(["plist", "check", file])
        #expect(passed.status == 0 && passed.output.contains("follow Apple's rules"), "\(passed.output)\(passed.errors)")
        try printed.output.replacingOccurrences(of: "example.adattributionkit", with: "Example.AdAttributionKit")
            .write(toFile: file, atomically: true, encoding: .utf8)
        let failed = await run(["plist", "check", file])
        #expect(failed.status == 1 && failed.output.contains("error: AdAttributionKitConfigurations.AttributionWindows.Example.AdAttributionKit"))
        await runtime.stop()
    }
}
