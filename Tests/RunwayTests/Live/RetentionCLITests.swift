import Foundation
import LinkRunwayAPI
@testable import RunwayCLI
import RunwayCapabilities
import RunwayCrypto
import RunwayDevTools
import RunwayHTTP
import RunwayServer
import RunwayTestKit
import Testing

/// `linkrunway retention …` against a real server on a socket, which asks the stand-in of Apple's Retention Messaging
/// API; the stand-in's performance test calls the server's realtime endpoint over HTTP, as Apple does.
@Suite("Retention messages: CLI")
struct RetentionCLITests {
    @Test("rules from a file, a message uploaded and listed, the sandbox URL set, Apple's performance test passed, the report read")
    func endToEnd() async throws {
        let key = try #require(PrivateKey.generateP256())
        let signer = try #require(AppStoreStandInSigner())
        let appAppleId: Int64 = 7_654_888
        let fake = try FakeRetentionMessagingAPI(credentials: .init(issuerId: "57246542-96fe-1a63-e053-0824d011072a", keyId: "2X9R4HXF34",
                                                                   bundleId: "com.example.cli", publicKey: try #require(key.publicKey)),
                                                 sign: signer.sign, appAppleId: appAppleId, testRequests: 10, testConcurrency: 2, deadlineMilliseconds: 600_000,
                                                 logger: Logger(level: .error))
        let directory = TemporaryDirectory()
        try signer.rootPEM.write(toFile: directory.path("root.pem"), atomically: true, encoding: .utf8)
        var configuration = ServerConfiguration(database: .sqlite(path: directory.path("retention.db")))
        configuration.http.port = 0
        configuration.logLevel = .error
        configuration.capabilities[AppStoreAPISettings.self].url = fake.baseURL
        configuration.appStoreRootPath = directory.path("root.pem")
        let runtime = try await ServerRuntime.start(configuration, logSink: .memory())
        let environment = ["LINKRUNWAY_URL": "http://127.0.0.1:\(runtime.port)", "LINKRUNWAY_KEY": try #require(runtime.bootstrap?.adminKey)]
        func run(_ arguments: [String]) async -> CLITests.Run { await CLITests.run(arguments, environment: environment) }

        let app = try JSONDecoder().decode(App.self, from: Data(await run(["app", "create", "--name", "CLI", "--team-id", "ABCDE12345", "--bundle-id",
                                                                             "com.example.cli", "--app-store-id", String(appAppleId), "--json"]).output.utf8))
        let surfaces = await run(["app-store", "surface", "--app", app.id, "--environment", "sandbox", "--json"])
        let surface = try JSONDecoder().decode(CreatedSurface.self, from: Data(surfaces.output.utf8))
        try key.pem.map { try $0.write(toFile: directory.path("AuthKey_2X9R4HXF34.p8"), atomically: true, encoding: .utf8) }
        #expect(await run(["app-store", "key", "set", "--app", app.id, "--key-file", directory.path("AuthKey_2X9R4HXF34.p8"),
                           "--issuer-id", "57246542-96fe-1a63-e053-0824d011072a"]).status == 0)

        let made = await run(["retention", "message", "create", "--app", app.id, "--environment", "sandbox", "--header", "Stay", "--body", "Please.", "--json"])
        let message = try JSONDecoder().decode(RetentionMessage.self, from: Data(made.output.utf8))
        let listed = await run(["retention", "message", "list", "--app", app.id, "--environment", "sandbox"])
        #expect(listed.status == 0 && listed.output.contains(message.messageId) && listed.output.contains("APPROVED"), "\(listed.output)")

        try #"{"rules":[{"name":"partners","when":{"sources":["affiliate"]},"answer":{"messageId":"\#(message.messageId)"}}],"fallback":{"messageId":"\#(message.messageId)"}}"#
            .write(toFile: directory.path("rules.json"), atomically: true, encoding: .utf8)
        let rules = await run(["retention", "rules", "set", "--app", app.id, "--file", directory.path("rules.json")])
        #expect(rules.status == 0 && rules.output.contains("Stored 1 rules and a fallback"), "\(rules.output)\(rules.errors)")
        #expect(await run(["retention", "rules", "show", "--app", app.id]).output.contains("partners"))
        try "{not json".write(toFile: directory.path("bad.json"), atomically: true, encoding: .utf8)
        #expect(await run(["retention", "rules", "set", "--app", app.id, "--file", directory.path("bad.json")]).status == 1)

        // With a stand-in of Apple configured, the realtime URL may be this machine's over http.
        let url = "http://127.0.0.1:\(runtime.port)\(surface.surface.retentionPath)"
        let set = await run(["retention", "realtime-url", "set", "--app", app.id, "--environment", "sandbox", "--url", url])
        #expect(set.status == 0 && fake.realtimeURL("sandbox") == url, "\(set.output)\(set.errors)")
        let test = await run(["retention", "performance-test", "--app", app.id, "--original-transaction-id", "2000000000000001"])
        #expect(test.status == 0 && test.output.hasPrefix("PASS: 100% answered in time"), "\(test.output)\(test.errors)")
        let report = await run(["retention", "report", "--app", app.id])
        #expect(report.status == 0 && report.output.contains("fallback") && report.output.contains("sandbox"), "\(report.output)")
        await runtime.stop()
        await fake.server.shutdown(grace: .seconds(1))
    }
}
