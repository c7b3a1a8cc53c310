import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayTestKit
import Testing

enum ProxyTools {
    static let present = ["/usr/sbin/nginx", "/usr/bin/curl", "/usr/bin/openssl"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
}

/// The server behind a real nginx from Debian, configured from `deploy/nginx.conf`, with TLS from a certificate made by
/// `openssl` in the test, and two link domains.
@Suite("Behind nginx with TLS", .enabled(if: ProxyTools.present, "nginx, curl or openssl is missing: run make test, which installs them"))
struct ProxyTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Answer {
        let status: Int
        let headers: String
        let body: String
    }

    /// Runs a program to the end, on a thread of its own; returns its standard output.
    @discardableResult
    static func run(_ program: String, _ arguments: [String], in directory: String? = nil) async throws -> String {
        try await offloaded { try runBlocking(program, arguments, in: directory) }
    }

    private static func runBlocking(_ program: String, _ arguments: [String], in directory: String?) throws -> String {
        let run = try Subprocess.run(program, arguments, directory: directory)
        guard run.status == 0 else {
            throw ServerProcess.Failure(description: "\(program) \(arguments.joined(separator: " ")): \(run.stderr)")
        }
        return run.stdout
    }

    /// curl with its answer split into status, headers and body.
    static func curl(_ arguments: [String]) async throws -> Answer {
        let text = try await run("/usr/bin/curl", ["-sS", "-D", "-", "--max-time", "10"] + arguments)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? ""
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        return Answer(status: status, headers: head.lowercased(), body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    static func freePort() -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return UInt16(bigEndian: address.sin_port)
    }


    @Test("host routing, the .well-known paths and the client's address through TLS; a forged X-Forwarded-For from elsewhere is ignored")
    func throughNginx() async throws {
        let directory = TemporaryDirectory()
        let dir = directory.path("")
        try await Self.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                                          "-subj", "/CN=go.example.test", "-addext", "subjectAltName=DNS:go.example.test,DNS:links.example.test",
                                          "-keyout", "key.pem", "-out", "cert.pem"], in: dir)
        let server = try await ServerProcess(databaseURL: "sqlite:" + directory.path("proxy.db"),
                                             environment: ["LINKRUNWAY_TRUSTED_PROXIES": "127.0.0.1", "LINKRUNWAY_LINK_DOMAIN": "go.example.test"])
        let admin = SDKEndToEndTests.Admin(base: "http://127.0.0.1:\(server.port)", key: try #require(server.printedAdminKey))
        let workspaceA = try #require(((try await admin.call("GET", "/v1/workspaces")).1["items"] as? [[String: Any]])?.first?["id"] as? String)
        let appA = try #require((try await admin.call("POST", "/v1/apps", CreateAppRequest(
            workspaceId: workspaceA, name: "A", teamId: "ABCDE12345", bundleId: "com.example.a", appStoreId: "11",
            attribution: AttributionSettingsUpdate(probabilisticMinutes: 60)))).1["id"] as? String)
        _ = try await admin.call("POST", "/v1/links", CreateLinkRequest(workspaceId: workspaceA, appId: appA, path: "tap", appPath: "/x"))
        let workspaceB = try #require((try await admin.call("POST", "/v1/workspaces", CreateWorkspaceRequest(name: "B"))).1["id"] as? String)
        _ = try await admin.call("POST", "/v1/domains", CreateLinkDomainRequest(workspaceId: workspaceB, hostname: "links.example.test"))
        let appB = try #require((try await admin.call("POST", "/v1/apps", CreateAppRequest(
            workspaceId: workspaceB, name: "B", teamId: "FGHIJ67890", bundleId: "com.example.b"))).1["id"] as? String)
        // The association file lists the apps that have links on the domain.
        _ = try await admin.call("POST", "/v1/links", CreateLinkRequest(workspaceId: workspaceB, appId: appB, domain: "links.example.test", path: "b"))
        let key = try #require((try await admin.call("POST", "/v1/keys", CreateKeyRequest(kind: .publishable, appId: appA))).1["secret"] as? String)

        // The shipped example, with this test's port, names, certificate and upstream.
        let port = Self.freePort(), plainPort = Self.freePort()
        var site = try String(contentsOf: Self.root.appendingPathComponent("deploy/nginx.conf"), encoding: .utf8)
        site = site.replacingOccurrences(of: "listen 443 ", with: "listen 127.0.0.1:\(port) ")
            .replacingOccurrences(of: "listen 80", with: "listen 127.0.0.1:\(plainPort)")
            .replacingOccurrences(of: "go.example.com links.example.com", with: "go.example.test links.example.test")
            .replacingOccurrences(of: "/etc/ssl/linkrunway/fullchain.pem", with: directory.path("cert.pem"))
            .replacingOccurrences(of: "/etc/ssl/linkrunway/privkey.pem", with: directory.path("key.pem"))
            .replacingOccurrences(of: "server 127.0.0.1:8080;", with: "server 127.0.0.1:\(server.port);")
        let conf = """
            pid \(dir)/nginx.pid;
            error_log \(dir)/error.log;
            events { worker_connections 64; }
            http {
                access_log off;
                client_body_temp_path \(dir)/body; proxy_temp_path \(dir)/proxy; fastcgi_temp_path \(dir)/fastcgi;
                uwsgi_temp_path \(dir)/uwsgi; scgi_temp_path \(dir)/scgi;
            \(site)
            }
            """
        try conf.write(toFile: directory.path("nginx.conf"), atomically: true, encoding: .utf8)
        let nginx = try Subprocess("/usr/sbin/nginx", ["-p", dir, "-c", directory.path("nginx.conf"), "-g", "daemon off; user root;"])
        defer {
            nginx.signal(SIGTERM)
            nginx.wait()
        }
        let deadline = Date().addingTimeInterval(60)
        while (try? await Self.curl(["--cacert", directory.path("cert.pem"), "--resolve", "go.example.test:\(port):127.0.0.1", "https://go.example.test:\(port)/healthz"]))?.status != 200 {
            guard Date() < deadline else { throw ServerProcess.Failure(description: "nginx did not start") }
            try await Task.sleep(for: .milliseconds(50))
        }
        func tls(_ host: String, _ path: String, _ extra: [String] = []) async throws -> Answer {
            try await Self.curl(["--cacert", directory.path("cert.pem"), "--resolve", "\(host):\(port):127.0.0.1"] + extra + ["https://\(host):\(port)\(path)"])
        }

        // Each domain serves its own workspace's apps, as JSON, without a redirect.
        let aasaA = try await tls("go.example.test", "/.well-known/apple-app-site-association")
        #expect(aasaA.status == 200 && aasaA.headers.contains("content-type: application/json"))
        #expect(aasaA.body.contains("ABCDE12345.com.example.a") && !aasaA.body.contains("com.example.b"))
        let aasaB = try await tls("links.example.test", "/.well-known/apple-app-site-association")
        #expect(aasaB.body.contains("FGHIJ67890.com.example.b") && !aasaB.body.contains("com.example.a"), "\(aasaB.status) \(aasaB.body)")
        // The operations routes are the operator's: not through the proxy, whatever the Host; and a Host that is not a
        // link domain gets no answer at all (no TLS handshake, and nothing over plain HTTP).
        for path in ["/readyz", "/metrics"] {
            #expect(try await tls("go.example.test", path).status == 404, "\(path) through the proxy")
            let otherHost = (try? await tls("go.example.test", path, ["-H", "Host: 127.0.0.1"]))?.status
            #expect(otherHost == nil || otherHost == 404, "\(path) with another Host: \(otherHost ?? 0)")
        }
        await #expect(throws: (any Error).self, "an unknown name gets no TLS handshake") {
            try await tls("unknown.example.test", "/metrics")
        }
        await #expect(throws: (any Error).self, "an unknown Host over plain HTTP gets no answer") {
            try await Self.curl(["-H", "Host: unknown.example.test", "http://127.0.0.1:\(plainPort)/metrics"])
        }
        let redirected = try await Self.curl(["-H", "Host: go.example.test", "http://127.0.0.1:\(plainPort)/tap"])
        #expect(redirected.status == 308 && redirected.headers.contains("location: https://go.example.test/tap"))
        let local = try await Self.curl(["http://127.0.0.1:\(server.port)/readyz"])
        #expect(local.status == 200 && local.body.contains(#""status":"ready""#) && !local.body.contains("untrustedProxy"), "\(local.body)")
        // Link pages carry their Content-Security-Policy through the proxy, and may not be framed.
        let missing = try await tls("go.example.test", "/no-such-link")
        #expect(missing.status == 404 && missing.headers.contains("content-security-policy: default-src 'none';"))
        #expect(missing.headers.contains("frame-ancestors 'none'") && missing.headers.contains("x-frame-options: deny"))

        let postback = try await tls("go.example.test", "/.well-known/skadnetwork/report-attribution/", ["-X", "POST", "-H", "Content-Type: application/json", "--data", "{}"])
        #expect(postback.status == 200 && postback.body.contains(#""status":"invalid""#))

        // A phone at 127.0.0.2 taps the link through the proxy.
        let tap = try await tls("go.example.test", "/tap", ["--interface", "127.0.0.2", "-A", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)"])
        #expect(tap.status == 302)
        // Someone else, straight to the server, claims to be that phone: not believed.
        let forged = try await Self.curl(["--interface", "127.0.0.3", "-H", "X-Forwarded-For: 127.0.0.2", "-H", "Authorization: Bearer \(key)",
                                    "-H", "Content-Type: application/json",
                                    "--data", TestClient.json(MatchInstallRequest(installId: "forger", platform: "ios", consent: true)),
                                    "http://127.0.0.1:\(server.port)/v1/installs/match"])
        #expect(forged.body.contains(#""method":"unmatched""#), "\(forged.body)")
        // The phone itself, through the proxy: matched by its address.
        let real = try await tls("go.example.test", "/v1/installs/match", ["--interface", "127.0.0.2", "-H", "Authorization: Bearer \(key)",
                                                                     "-H", "Content-Type: application/json",
                                                                     "--data", TestClient.json(MatchInstallRequest(installId: "phone", platform: "ios", consent: true))])
        #expect(real.body.contains(#""method":"probabilistic""#), "\(real.body)")
        _ = try await server.stop(signal: SIGTERM)
    }
}
