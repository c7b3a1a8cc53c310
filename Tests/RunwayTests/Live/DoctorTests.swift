import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LinkRunwayAPI
@testable import RunwayCLI
import RunwayCapabilities
import RunwayConsole
import RunwayHTTP
import RunwayHTTPServer
import RunwayKit
import RunwayServer
import RunwayTestKit
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

    @Test("a proxy terminating TLS that the server does not trust is a warning; /readyz from afar needs the metrics token")
    func proxyAndToken() async throws {
        let (runtime, _, environment) = try await CLITests.startServer()
        let clean = await CLITests.run(["doctor"], environment: environment)
        #expect(!clean.output.contains("proxy:"), "\(clean.output)")
        // What nginx in front of it sends for a phone on HTTPS, while LINKRUNWAY_TRUSTED_PROXIES is unset.
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(runtime.port)/no-such-link")!)
        request.setValue("https", forHTTPHeaderField: "X-Forwarded-Proto")
        request.setValue("198.51.100.4", forHTTPHeaderField: "X-Forwarded-For")
        _ = try await URLSession.shared.data(for: request)
        let warned = await CLITests.run(["doctor"], environment: environment)
        #expect(warned.status == 0)
        #expect(warned.output.contains("warn  proxy: 127.0.0.1 terminates TLS but is not a trusted proxy"), "\(warned.output)")
        #expect(warned.output.contains("fix: set LINKRUNWAY_TRUSTED_PROXIES=127.0.0.1"))
        await runtime.stop()

        // A server seen from another machine: /readyz is hidden unless the doctor has the token.
        let remote = try Self.fake { request in
            switch request.path {
            case "/healthz": return (try? HTTPResponse.json(HealthStatus(status: "ok", version: LinkRunwayVersion.current))) ?? HTTPResponse(status: 500)
            case "/readyz" where request.headers["Authorization"] == "Bearer ops-token-0123456789":
                return (try? HTTPResponse.json(ReadinessStatus(status: "ready", store: "ok", schema: Schema.migrations.last?.id))) ?? HTTPResponse(status: 500)
            default: return .text("not found", status: 404)
            }
        }
        let far = ["LINKRUNWAY_URL": "http://127.0.0.1:\(remote.port)"]
        let hidden = await CLITests.run(["doctor", "--local"], environment: far)
        #expect(hidden.output.contains("warn  database: not checked: /readyz answers only"), "\(hidden.output)")
        let opened = await CLITests.run(["doctor", "--local"], environment: far.merging(["LINKRUNWAY_METRICS_TOKEN": "ops-token-0123456789"]) { a, _ in a })
        #expect(opened.output.contains("ok    database: reachable"), "\(opened.output)")
        await remote.shutdown(grace: .seconds(1))
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
