import Foundation
import RunwayStore

/// `doctor`: checks a running deployment from the outside and prints what to fix.
enum DoctorCommand {
    /// What `doctor --json` prints.
    struct Report: Encodable {
        let findings: [Doctor.Finding]
        let ok: Int
        let warnings: Int
        let failures: Int
    }

    static let doctor: Command = Command(["doctor"], summary: "Check a deployment: server, database, clock, key, apps, link domains, postback paths.",
                                options: [
                                    .value("--server", "url", "The server (default $LINKRUNWAY_URL or http://127.0.0.1:8080)."),
                                    .value("--key", "key", "An admin or server key (default $LINKRUNWAY_KEY); without one, apps and the server's domains are skipped."),
                                    .value("--domain", "url", "Also check this link domain (a hostname, or a URL such as https://links.example.com); comma-separated for several."),
                                    .flag("--local", "Check only link domains on this machine (localhost), as on a development machine."),
                                    .value("--database-url", "url", "Also read the database (default $LINKRUNWAY_DATABASE_URL; `sqlite:<path>` or `postgres://...`) for stored rows out of range."),
                                    .flag("--json", "Print the findings as JSON."),
                                ],
                                details: """
                                    Exit 0 when nothing failed (warnings allowed), 1 otherwise. A link domain without DNS yet is a
                                    warning, not a failure. With a database, rows stored before amounts were bounded whose
                                    amounts no write accepts now are a warning each: reports that add them answer 422
                                    total_out_of_range. From another machine, /readyz answers only with
                                    $LINKRUNWAY_METRICS_TOKEN set to the server's. A proxy that terminates TLS
                                    without being in the server's LINKRUNWAY_TRUSTED_PROXIES is a warning.
                                    """) { arguments, context in
        let server = arguments.value("--server") ?? context.environment["LINKRUNWAY_URL"] ?? "http://127.0.0.1:8080"
        guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw UsageError("--server must be an http(s) URL")
        }
        let domains = try (arguments.value("--domain") ?? "").split(separator: ",").map { item -> URL in
            let text = item.trimmingCharacters(in: .whitespaces)
            guard let domain = URL(string: text.contains("://") ? text : "https://\(text)"), domain.host != nil,
                  domain.scheme == "http" || domain.scheme == "https" else { throw UsageError("--domain \(text) is not a hostname or http(s) URL") }
            return domain
        }
        let key = arguments.value("--key") ?? context.environment["LINKRUNWAY_KEY"]
        var findings = await Doctor(server: url, key: key?.isEmpty == false ? key : nil, domains: domains,
                                    localOnly: arguments.flag("--local"), now: { Date() },
                                    operationsToken: context.environment["LINKRUNWAY_METRICS_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }).run()
        if let database = arguments.value("--database-url") ?? context.environment["LINKRUNWAY_DATABASE_URL"], !database.isEmpty {
            guard let location = DatabaseLocation(url: database) else {
                throw UsageError("--database-url must be sqlite:<path> or postgres://...")
            }
            findings += await Doctor.storedTotalFindings(location)
        }
        let failures = findings.filter { $0.level == .failure }.count
        let warnings = findings.filter { $0.level == .warning }.count
        if arguments.flag("--json") {
            context.output(try Output.json(Report(findings: findings, ok: findings.count - failures - warnings, warnings: warnings,
                                                  failures: failures)))
        } else {
            for finding in findings { context.output(finding.line) }
            context.output("\n\(findings.count) checks: \(findings.count - failures - warnings) ok, \(warnings) to look at, \(failures) to fix")
        }
        if failures > 0 { throw CommandFailure("\(failures) check(s) failed") }
    }
}
