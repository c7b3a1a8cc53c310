import Foundation

/// `doctor`: checks a running deployment from the outside and prints what to fix.
enum DoctorCommand {
    static let doctor = Command(["doctor"], summary: "Check a deployment: server, database, clock, key, apps, link domains, postback paths.",
                                options: [
                                    .value("--server", "url", "The server (default $LINKRUNWAY_URL or http://127.0.0.1:8080)."),
                                    .value("--key", "key", "An admin or server key (default $LINKRUNWAY_KEY); without one, apps and the server's domains are skipped."),
                                    .value("--domain", "url", "Also check this link domain (a hostname, or a URL such as https://links.example.com); comma-separated for several."),
                                ],
                                details: "Exit 0 when nothing failed (warnings allowed), 1 otherwise.") { arguments, context in
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
        let findings = await Doctor(server: url, key: key?.isEmpty == false ? key : nil, domains: domains, now: { Date() }).run()
        for finding in findings { context.output(finding.line) }
        let failures = findings.filter { $0.level == .failure }.count
        let warnings = findings.filter { $0.level == .warning }.count
        context.output("\n\(findings.count) checks: \(findings.count - failures - warnings) ok, \(warnings) to look at, \(failures) to fix")
        if failures > 0 { throw CommandFailure("\(failures) check(s) failed") }
    }
}
