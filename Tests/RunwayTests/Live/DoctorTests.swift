import Foundation
import LinkRunwayAPI
@testable import RunwayCLI
import RunwayCapabilities
import RunwayConsole
import RunwayHTTP
import RunwayHTTPServer
import RunwayKit
import RunwayServer
import Testing

/// `linkrunway doctor` against a healthy server and against fakes that make an operator's usual mistakes.
@Suite("Doctor")
struct DoctorTests {
    /// A link domain badly fronted: what each path answers is up to the test.
    static func fake(_ answer: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws -> HTTPServer {
        var configuration = HTTPServerConfiguration(port: 0)
        configuration.threads = 1
        let server = HTTPServer(configuration: configuration, logger: Logger(level: .error, sink: .memory())) { answer($0) }
        try server.start()
        return server
    }

    @Test("a healthy deployment passes: server, database, clock, key, the AASA with the app, both postback paths")
    func healthy() async throws {
        let (runtime, directory, environment) = try await CLITests.startServer()
        _ = directory
        let created = await CLITests.run(["app", "create", "--name", "Doc", "--team-id", "ABCDE12345", "--bundle-id", "com.example.doctor",
                                          "--platforms", "ios", "--workspace", runtime.bootstrap!.workspace.id, "--json"], environment: environment)
        let app = try JSONDecoder().decode(App.self, from: Data(created.output.utf8))
        let before = await CLITests.run(["doctor"], environment: environment)
        #expect(before.status == 0, "warnings do not fail: \(before.output)")
        #expect(before.output.contains("warn  app Doc: has no publishable key"))
        #expect(before.output.contains("does not name ABCDE12345.com.example.doctor"))

        #expect(await CLITests.run(["key", "create", "--kind", "publishable", "--app", app.id], environment: environment).status == 0)
        #expect(await CLITests.run(["link", "create", "--workspace", runtime.bootstrap!.workspace.id, "--app", app.id, "--path", "doc",
                                    "--web", "https://example.com"], environment: environment).status == 0)
        let after = await CLITests.run(["doctor"], environment: environment)
        #expect(after.status == 0, "\(after.output)")
        #expect(!after.output.contains("FAIL") && !after.output.contains("warn"), "\(after.output)")
        #expect(after.output.contains("ok    localhost AASA: application/json, no redirect, 1 app ID(s)"))
        #expect(after.output.contains("ok    database: reachable, schema at \(Schema.migrations.last!.id)"))
        for path in Doctor.postbackPaths { #expect(after.output.contains("ok    localhost\(path): reaches LinkRunway")) }
        await runtime.stop()
    }

    @Test("a link domain with no DNS yet is a warning, --local checks only this machine's domains, and --json prints the findings")
    func notYetPublic() async throws {
        let (runtime, _, environment) = try await CLITests.startServer()
        // .invalid never resolves (RFC 6761): a domain added before its DNS is set up.
        #expect(await CLITests.run(["domain", "add", "go.example.invalid"], environment: environment).status == 0)
        let run = await CLITests.run(["doctor", "--json"], environment: environment)
        #expect(run.status == 0, "no DNS yet is not a failure: \(run.output)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let findings = try #require(report["findings"] as? [[String: Any]])
        let pending = findings.filter { ($0["subject"] as? String)?.hasPrefix("go.example.invalid") == true }
        #expect(pending.count == 1 && pending.first?["level"] as? String == "warning", "\(pending)")
        #expect((pending.first?["message"] as? String)?.contains("no DNS record yet") == true)
        #expect(report["failures"] as? Int == 0 && (report["warnings"] as? Int ?? 0) >= 1)
        #expect(findings.allSatisfy { ["ok", "warning", "failure"].contains($0["level"] as? String ?? "") })

        let local = await CLITests.run(["doctor", "--local"], environment: environment)
        #expect(!local.output.contains("go.example.invalid") && local.output.contains("localhost AASA"), "\(local.output)")
        await runtime.stop()
    }

    @Test("a wrong AASA content type, a redirected AASA and a missing postback route each fail with their fix")
    func brokenProxy() async throws {
        let (runtime, _, environment) = try await CLITests.startServer()
        let textPlain = try Self.fake { request in
            switch request.path {
            case "/.well-known/apple-app-site-association":
                return .text(#"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/x"}]}]}}"#)
            case "/.well-known/appattribution/report-attribution/":
                var response = HTTPResponse(status: 405)
                response.headers.set("Allow", "POST")
                return response
            default:
                return .text("not found", status: 404)
            }
        }
        let redirecting = try Self.fake { request in
            var response = HTTPResponse(status: 301)
            response.headers.set("Location", "https://www.example.com\(request.path)")
            return response
        }
        let domains = "http://127.0.0.1:\(textPlain.port),http://127.0.0.1:\(redirecting.port)"
        let run = await CLITests.run(["doctor", "--domain", domains], environment: environment)
        #expect(run.status == 1)
        #expect(run.errors.contains("failed"))
        #expect(run.output.contains("served as text/plain; charset=utf-8; Apple needs application/json"), "\(run.output)")
        #expect(run.output.contains("fix: let the proxy pass LinkRunway's Content-Type"))
        #expect(run.output.contains("FAIL  127.0.0.1/.well-known/skadnetwork/report-attribution/: missing (answered 404"))
        #expect(run.output.contains("ok    127.0.0.1/.well-known/appattribution/report-attribution/: reaches LinkRunway"))
        #expect(run.output.contains("redirects (301) to https://www.example.com/.well-known/apple-app-site-association"))
        #expect(run.output.contains("FAIL  127.0.0.1/.well-known/appattribution/report-attribution/: redirects (301)"))
        await textPlain.shutdown(grace: .seconds(1))
        await redirecting.shutdown(grace: .seconds(1))
        await runtime.stop()
    }

    @Test("a server that is down, a clock that is off, and plain HTTP on a public domain are failures")
    func otherFailures() async throws {
        let down = await CLITests.run(["doctor", "--server", "http://127.0.0.1:1"])
        #expect(down.status == 1 && down.output.contains("cannot connect"))

        let doctor = Doctor(server: URL(string: "http://127.0.0.1:1")!, key: nil, domains: [], now: { Date(timeIntervalSince1970: 1_800_000_000) })
        let skewed = doctor.clockFinding(Doctor.Answer(status: 200, headers: ["date": "Fri, 15 Jan 2027 08:05:00 GMT"], body: Data()))
        #expect(skewed.level == .failure && skewed.message.contains("300 s off"), "\(skewed.message)")
        let close = Date(timeIntervalSince1970: 1_800_000_010)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        #expect(doctor.clockFinding(Doctor.Answer(status: 200, headers: ["Date": formatter.string(from: close)], body: Data())).level == .ok)

        let plain = await doctor.associationFindings(URL(string: "http://links.invalid")!, apps: nil)
        #expect(plain.first?.level == .failure && plain.first?.message.contains("only over HTTPS") == true)
        #expect(await CLITests.run(["doctor", "--domain", "ftp://x"]).status == 64)
    }
}
