import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LinkRunwayAPI
import RunwayServer
import RunwayStore

/// The checks `linkrunway doctor` runs against a deployment, each ending in a finding that says what to fix.
struct Doctor: Sendable {
    struct Finding: Sendable, Equatable, Encodable {
        enum Level: String, Sendable, Encodable {
            case ok = "ok", warning = "warn", failure = "FAIL"

            /// The word `--json` gives it.
            var name: String {
                switch self {
                case .ok: "ok"
                case .warning: "warning"
                case .failure: "failure"
                }
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(name)
            }
        }
        let level: Level
        let subject: String
        let message: String
        var fix: String?

        var line: String {
            "\(level.rawValue.padding(toLength: 5, withPad: " ", startingAt: 0)) \(subject): \(message)" + (fix.map { "\n      fix: \($0)" } ?? "")
        }
    }

    /// One answer, never following a redirect (Apple does not follow them for the files checked here).
    struct Answer: Sendable {
        let status: Int
        let headers: [String: String]
        let body: Data

        func header(_ name: String) -> String? {
            headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    let server: URL
    let key: String?
    /// Link domains to check as base URLs; those the server lists are added when a key is given.
    let domains: [URL]
    /// Check only link domains on this machine (`localhost`, loopback addresses), as on a development machine.
    var localOnly = false
    let now: @Sendable () -> Date
    /// `LINKRUNWAY_METRICS_TOKEN`, which opens `/readyz` to a doctor on another machine.
    var operationsToken: String?

    /// Seconds of clock difference beyond which signed data (App Store notifications, click ids) goes wrong.
    static let clockTolerance: TimeInterval = 30
    static let postbackPaths = ["/.well-known/skadnetwork/report-attribution/", "/.well-known/appattribution/report-attribution/"]

    func run() async -> [Finding] {
        var findings: [Finding] = []
        let serverName = server.absoluteString
        // The process and its clock.
        let health: Answer
        do {
            health = try await Self.fetch(server.appendingPathComponent("healthz"))
        } catch {
            return [Finding(level: .failure, subject: serverName, message: "cannot connect: \(error.localizedDescription)",
                            fix: "start it (linkrunway serve) or set LINKRUNWAY_URL to where it listens")]
        }
        if health.status == 200, let status = try? JSONDecoder().decode(HealthStatus.self, from: health.body) {
            let same = status.version == LinkRunwayVersion.current
            findings.append(Finding(level: same ? .ok : .warning, subject: serverName, message: "LinkRunway \(status.version) answers"
                                    + (same ? "" : " (this CLI is \(LinkRunwayVersion.current))")))
        } else {
            findings.append(Finding(level: .failure, subject: serverName, message: "/healthz answered \(health.status), not LinkRunway's health",
                                    fix: "check that LINKRUNWAY_URL points at LinkRunway and not at another service"))
        }
        findings.append(clockFinding(health))
        findings.append(await readiness())

        // What only a key can see: the key itself, apps without a client key, and the domains the server serves.
        var checkedDomains = domains
        var appsByWorkspace: [String: [App]] = [:]
        var domainWorkspaces: [String: String] = [:]
        if let key {
            let api = APIClient(baseURL: server, key: key)
            do {
                let me = try await api.get("/v1/me", as: WhoAmI.self)
                findings.append(Finding(level: .ok, subject: "key", message: "\(me.kind.rawValue) key \(me.keyId) is valid"))
                let apps = try await api.all("/v1/apps", as: App.self)
                let keys = try await api.all("/v1/keys", as: APIKey.self)
                for app in apps {
                    appsByWorkspace[app.workspaceId, default: []].append(app)
                    if !keys.contains(where: { $0.kind == .publishable && $0.appId == app.id && $0.revokedAt == nil }) {
                        findings.append(Finding(level: .warning, subject: "app \(app.name)", message: "has no publishable key, so the SDK cannot call",
                                                fix: "linkrunway key create --kind publishable --app \(app.id)"))
                    }
                }
                if apps.isEmpty {
                    findings.append(Finding(level: .warning, subject: "apps", message: "none yet", fix: "linkrunway app create --help"))
                }
                for domain in try await api.all("/v1/domains", as: LinkDomain.self) {
                    domainWorkspaces[domain.hostname] = domain.workspaceId
                    let url = linkDomainURL(domain.hostname)
                    if !checkedDomains.contains(where: { $0.host == url.host && $0.port == url.port }) { checkedDomains.append(url) }
                }
            } catch {
                findings.append(Finding(level: .failure, subject: "key", message: "\(error)",
                                        fix: "set LINKRUNWAY_KEY to an admin or server key of this server"))
            }
        } else {
            findings.append(Finding(level: .warning, subject: "key", message: "none given, so apps and the server's link domains are not checked",
                                    fix: "set LINKRUNWAY_KEY (or pass --key)"))
        }
        if checkedDomains.isEmpty {
            findings.append(Finding(level: .warning, subject: "domains", message: "no link domain to check", fix: "pass --domain https://links.example.com"))
        }
        if localOnly { checkedDomains.removeAll { !Self.isLocal($0) } }
        for domain in checkedDomains {
            let expected = domain.host.flatMap { domainWorkspaces[$0] }.map { appsByWorkspace[$0] ?? [] }
            findings += await associationFindings(domain, apps: expected)
            findings += await postbackFindings(domain)
        }
        // Asked last: the link domains fetched above went through the proxy, if there is one.
        if let proxy = await untrustedProxyFinding() { findings.append(proxy) }
        return findings
    }

    /// `/readyz`, with the operations token when there is one.
    func readyz() async throws -> Answer {
        try await Self.fetch(server.appendingPathComponent("readyz"), bearer: operationsToken)
    }

    /// A warning when the server saw a proxy terminate TLS (`X-Forwarded-Proto: https`) without being trusted.
    func untrustedProxyFinding() async -> Finding? {
        guard let answer = try? await readyz(), let status = try? JSONDecoder().decode(ReadinessStatus.self, from: answer.body),
              let proxy = status.untrustedProxy else { return nil }
        return Finding(level: .warning, subject: "proxy", message: "\(proxy) terminates TLS but is not a trusted proxy: clients' addresses are "
                       + "taken as its own (rate limits, hashes) and console cookies go out without Secure",
                       fix: "set LINKRUNWAY_TRUSTED_PROXIES=\(proxy) (or its range) and restart")
    }

    /// The server's `Date` header against this machine's clock.
    func clockFinding(_ answer: Answer) -> Finding {
        guard let text = answer.header("Date"), let date = Self.httpDate(text) else {
            return Finding(level: .warning, subject: "clock", message: "the server sent no Date header to compare clocks with")
        }
        let skew = date.timeIntervalSince(now())
        guard abs(skew) <= Self.clockTolerance else {
            return Finding(level: .failure, subject: "clock", message: "the server's clock is \(Int(skew.rounded())) s off this machine's",
                           fix: "run NTP (systemd-timesyncd or chrony) on both; signed click ids, App Attest and App Store notifications depend on time")
        }
        return Finding(level: .ok, subject: "clock", message: "within \(Int(Self.clockTolerance)) s of this machine's")
    }

    /// Stored rows whose amounts are beyond what the API accepts now (kept from before amounts were bounded).
    static func storedTotalFindings(_ location: DatabaseLocation) async -> [Finding] {
        if case .sqlite(let path) = location, !FileManager.default.fileExists(atPath: path) {
            return [Finding(level: .failure, subject: "stored amounts", message: "there is no database at \(path)")]
        }
        let store: any Store
        do {
            store = try StoreFactory.open(location)
        } catch {
            return [Finding(level: .failure, subject: "stored amounts", message: "cannot open the database: \(error)")]
        }
        do {
            let found = try await StoredTotals.findings(store)
            await store.close()
            guard !found.isEmpty else {
                return [Finding(level: .ok, subject: "stored amounts", message: "every stored amount is within the API's bounds")]
            }
            return found.map { finding in
                Finding(level: .warning, subject: "stored amounts", message: "\(finding.rows) row(s) of \(finding.table) beyond the API's bounds; "
                        + "reports that add them answer 422 total_out_of_range",
                        fix: "correct or delete them: \(finding.query)")
            }
        } catch {
            await store.close()
            return [Finding(level: .failure, subject: "stored amounts", message: "cannot read the database: \(error)")]
        }
    }

    func readiness() async -> Finding {
        let answer: Answer
        do {
            answer = try await readyz()
        } catch {
            return Finding(level: .failure, subject: "database", message: "/readyz did not answer: \(error.localizedDescription)")
        }
        if answer.status == 404 {
            return Finding(level: .warning, subject: "database", message: "not checked: /readyz answers only the server's machine, its trusted proxies and the metrics token",
                           fix: "run doctor on the server's machine, or set LINKRUNWAY_METRICS_TOKEN to the server's")
        }
        guard let status = try? JSONDecoder().decode(ReadinessStatus.self, from: answer.body) else {
            return Finding(level: .failure, subject: "database", message: "/readyz answered \(answer.status) without a readiness status")
        }
        guard answer.status == 200 else {
            return Finding(level: .failure, subject: "database", message: "unreachable: \(status.store)",
                           fix: "check LINKRUNWAY_DATABASE_URL, that the database runs, and its credentials")
        }
        let known = Schema.migrations.map(\.id)
        switch status.schema {
        case known.last?:
            return Finding(level: .ok, subject: "database", message: "reachable, schema at \(status.schema ?? "")")
        case let schema? where !known.contains(schema):
            return Finding(level: .warning, subject: "database", message: "schema at \(schema), newer than this CLI knows",
                           fix: "upgrade this linkrunway binary to the server's version")
        case let schema:
            return Finding(level: .warning, subject: "database", message: "schema at \(schema ?? "unknown"), older than this CLI's \(known.last ?? "")",
                           fix: "upgrade the server; it migrates on start (or run linkrunway migrate)")
        }
    }

    /// The association file: served directly (no redirect), as JSON, naming the apps that have links on the domain.
    func associationFindings(_ domain: URL, apps: [App]?) async -> [Finding] {
        let subject = "\(domain.host ?? domain.absoluteString) AASA"
        var findings: [Finding] = []
        if domain.scheme != "https", !Self.isLocal(domain) {
            findings.append(Finding(level: .failure, subject: subject, message: "checked over \(domain.scheme ?? "?"); Apple fetches it only over HTTPS",
                                    fix: "terminate TLS for this domain (deploy/nginx.conf or deploy/Caddyfile)"))
        }
        let answer: Answer
        do {
            answer = try await Self.fetch(domain.appendingPathComponent(".well-known/apple-app-site-association"))
        } catch {
            if Self.hasNoDNS(error) { return findings + [Self.noDNSFinding(domain, subject: subject)] }
            return findings + [Finding(level: .failure, subject: subject, message: "cannot fetch: \(error.localizedDescription)",
                                       fix: "check DNS for the domain, the certificate, and that the proxy forwards it to LinkRunway")]
        }
        if (300..<400).contains(answer.status) {
            return findings + [Finding(level: .failure, subject: subject, message: "redirects (\(answer.status)) to \(answer.header("Location") ?? "?"); Apple does not follow redirects for this file",
                                       fix: "serve /.well-known/apple-app-site-association on this exact host, without a www or https redirect")]
        }
        guard answer.status == 200 else {
            return findings + [Finding(level: .failure, subject: subject, message: "answered \(answer.status)",
                                       fix: "add the domain (linkrunway domain add) and forward /.well-known/ to LinkRunway")]
        }
        let contentType = answer.header("Content-Type") ?? "none"
        if !contentType.lowercased().hasPrefix("application/json") {
            findings.append(Finding(level: .failure, subject: subject, message: "served as \(contentType); Apple needs application/json",
                                    fix: "let the proxy pass LinkRunway's Content-Type (no default_type or add_header override for this path)"))
        }
        guard let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
              let applinks = object["applinks"] as? [String: Any], let details = applinks["details"] as? [[String: Any]] else {
            return findings + [Finding(level: .failure, subject: subject, message: "is not an applinks association file",
                                       fix: "forward this path to LinkRunway instead of serving a file")]
        }
        let named = Set(details.flatMap { ($0["appIDs"] as? [String]) ?? [($0["appID"] as? String)].compactMap { $0 } })
        if let apps {
            let expected = Set(apps.filter { $0.platforms.contains { $0 != .tvos } }.map { "\($0.teamId).\($0.bundleId)" })
            for stranger in named.subtracting(expected).sorted() {
                findings.append(Finding(level: .failure, subject: subject, message: "names \(stranger), which is not an app of this domain's workspace",
                                        fix: "a stale file is being served: forward the path to LinkRunway"))
            }
            for missing in expected.subtracting(named).sorted() {
                findings.append(Finding(level: .warning, subject: subject, message: "does not name \(missing): it has no live link on this domain",
                                        fix: "create a link for the app on this domain (linkrunway link create --help)"))
            }
        }
        if !findings.contains(where: { $0.level == .failure }) {
            findings.append(Finding(level: .ok, subject: subject, message: "application/json, no redirect, \(named.count) app ID(s)"))
        }
        return findings
    }

    /// The paths Apple posts SKAdNetwork and AdAttributionKit copies to: a GET must reach LinkRunway's POST-only route
    /// (405), never a 404 or a redirect.
    func postbackFindings(_ domain: URL) async -> [Finding] {
        var findings: [Finding] = []
        for path in Self.postbackPaths {
            let subject = "\(domain.host ?? domain.absoluteString)\(path)"
            let answer: Answer
            do {
                guard let url = URL(string: path, relativeTo: domain) else { throw URLError(.badURL) }
                answer = try await Self.fetch(url)
            } catch {
                // A domain without DNS yet was reported once, for its association file.
                if !Self.hasNoDNS(error) { findings.append(Finding(level: .failure, subject: subject, message: "cannot fetch")) }
                continue
            }
            if answer.status == 405, answer.header("Allow")?.contains("POST") == true {
                findings.append(Finding(level: .ok, subject: subject, message: "reaches LinkRunway"))
            } else if (300..<400).contains(answer.status) {
                findings.append(Finding(level: .failure, subject: subject, message: "redirects (\(answer.status)); Apple posts once and does not follow",
                                        fix: "forward this path to LinkRunway on this exact host, keeping the trailing slash"))
            } else {
                findings.append(Finding(level: .failure, subject: subject, message: "missing (answered \(answer.status) where LinkRunway answers 405 to a GET)",
                                        fix: "forward /.well-known/ on this domain to LinkRunway; postback copies sent here are lost"))
            }
        }
        return findings
    }

    /// `https://host`; for a local development domain, the server's own scheme and port.
    func linkDomainURL(_ hostname: String) -> URL {
        if hostname == "localhost" || hostname == "127.0.0.1", var parts = URLComponents(url: server, resolvingAgainstBaseURL: false) {
            parts.host = hostname
            parts.path = ""
            if let url = parts.url { return url }
        }
        // A stored hostname is one the API accepted (letters, digits, dots, hyphens), which always makes a URL.
        return URL(string: "https://\(hostname)") ?? server
    }

    static func isLocal(_ url: URL) -> Bool { ["localhost", "127.0.0.1", "::1"].contains(url.host ?? "") }

    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }

    /// GET without following redirects.
    /// The name does not resolve: a domain whose DNS is not set up yet, not a broken deployment.
    static func hasNoDNS(_ error: any Error) -> Bool {
        guard let code = (error as? URLError)?.code else { return false }
        return code == .cannotFindHost || code == .dnsLookupFailed
    }

    static func noDNSFinding(_ domain: URL, subject: String) -> Finding {
        Finding(level: .warning, subject: subject, message: "\(domain.host ?? "the domain") has no DNS record yet, so nothing can reach it",
                fix: "point its DNS at this server (A/AAAA or CNAME), or run doctor --local on a development machine")
    }

    static func fetch(_ url: URL, bearer: String? = nil) async throws -> Answer {
        var request = URLRequest(url: url, timeoutInterval: 15)
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        request.setValue("linkrunway-doctor/\(LinkRunwayVersion.current)", forHTTPHeaderField: "User-Agent")
        let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        return try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                    return
                }
                let http = response as? HTTPURLResponse
                var headers: [String: String] = [:]
                for (name, value) in http?.allHeaderFields ?? [:] { headers["\(name)"] = "\(value)" }
                continuation.resume(returning: Answer(status: http?.statusCode ?? 0, headers: headers, body: data ?? Data()))
            }.resume()
        }
    }

    final class NoRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
            completionHandler(nil)
        }
    }
}
