import Foundation
import LinkRunwayAPI
@testable import RunwayCLI
import RunwayHTTP
@testable import RunwayServer
import Testing

/// The console at the HTTP level: sign-in, sessions, CSRF, headers, scope. (The browser tests drive it in Chromium.)
@Suite("Console")
struct ConsoleTests {
    /// A browser without a browser: keeps cookies, sends forms.
    final class Visitor: @unchecked Sendable {
        let application: HTTPApplication
        var cookies: [String: String] = [:]
        var scheme = "http"
        var address = "203.0.113.9"

        init(_ application: HTTPApplication) { self.application = application }

        @discardableResult
        func send(_ method: String, _ target: String, form: [(String, String)] = [], headers: [(String, String)] = []) async -> HTTPResponse {
            let parts = target.split(separator: "?", maxSplits: 1)
            let query = parts.count > 1 ? parts[1].split(separator: "&").map { pair -> (String, String) in
                let kv = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
                return (kv[0], kv.count > 1 ? kv[1] : "")
            } : []
            var all = HTTPHeaders(headers)
            all.set("Host", "localhost")
            if !cookies.isEmpty { all.set("Cookie", cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")) }
            let body = form.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0.1)" }.joined(separator: "&")
            var request = HTTPRequest(method: method, path: String(parts[0]), query: query, headers: all, body: Array(body.utf8), remoteAddress: address)
            request.scheme = scheme
            let response = await application.respond(to: request)
            for field in response.headers where field.name == "Set-Cookie" {
                let pair = field.value.split(separator: ";")[0].split(separator: "=", maxSplits: 1).map(String.init)
                if field.value.contains("Max-Age=0") || pair.count < 2 || pair[1].isEmpty { cookies[pair[0]] = nil } else { cookies[pair[0]] = pair[1] }
            }
            return response
        }

        /// The value of a hidden field of the last page.
        static func hidden(_ name: String, in response: HTTPResponse) -> String? {
            let text = response.bodyText
            guard let range = text.range(of: "name=\"\(name)\" value=\"") else { return nil }
            return String(text[range.upperBound...].prefix { $0 != "\"" })
        }

        func signIn(key: String) async -> HTTPResponse {
            let page = await send("GET", "/console/login")
            return await send("POST", "/console/login", form: [("login_csrf", Self.hidden("login_csrf", in: page) ?? ""), ("method", "key"), ("key", key), ("next", "/console")])
        }

        func signIn(email: String, password: String) async -> HTTPResponse {
            let page = await send("GET", "/console/login")
            return await send("POST", "/console/login", form: [("login_csrf", Self.hidden("login_csrf", in: page) ?? ""), ("method", "password"),
                                                               ("email", email), ("password", password)])
        }

        /// The CSRF token of a signed-in page.
        func csrf() async -> String { Self.hidden("csrf", in: await send("GET", "/console/keys")) ?? "" }
    }

    @Test("pages need a session; signing in needs the sign-in token and an admin or server key; the cookie is HttpOnly, SameSite=Strict, and Secure over TLS")
    func signIn() async throws {
        let server = try await TestServer.start()
        let visitor = Visitor(server.application)
        let first = await visitor.send("GET", "/console/links")
        #expect(first.status == 303 && first.headers["Location"] == "/console/login?next=%2Fconsole%2Flinks")

        let forged = await visitor.send("POST", "/console/login", form: [("method", "key"), ("key", server.adminKey)])
        #expect(forged.status == 403, "no sign-in token")
        #expect(await visitor.signIn(key: "lr_ak_wrongwrongwrongwrongwrongwrongwrongwrongwrongwron").status == 401)
        let app = try await server.createApp(in: server.defaultWorkspace.id)
        let publishable = try await server.createKey(.publishable, app: app.id)
        #expect(await visitor.signIn(key: publishable.secret).status == 401, "publishable keys cannot sign in")
        #expect(visitor.cookies["lr_session"] == nil)

        visitor.scheme = "https"
        let signedIn = await visitor.signIn(key: server.adminKey)
        #expect(signedIn.status == 303 && signedIn.headers["Location"] == "/console")
        let cookie = try #require(signedIn.headers.first { $0.name == "Set-Cookie" && $0.value.hasPrefix("lr_session=") }?.value)
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Secure") && cookie.contains("Path=/console"))
        let stored = try await server.store.read { try $0.query("SELECT id_hash FROM console_sessions").map { try $0.string("id_hash") } }
        #expect(stored.count == 1 && stored[0] != visitor.cookies["lr_session"], "only the cookie's hash is stored")

        let overview = await visitor.send("GET", "/console")
        #expect(overview.status == 200 && overview.bodyText.contains("<h1>Overview</h1>"))
        for header in ["Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy"] {
            #expect(overview.headers[header] != nil, "\(header)")
        }
        #expect(overview.headers["Content-Security-Policy"]!.contains("frame-ancestors 'none'"))
        #expect(overview.headers["Cache-Control"] == "no-store")
        #expect(!overview.bodyText.contains(server.adminKey), "the key never reaches a page")

        let token = await visitor.csrf()
        let out = await visitor.send("POST", "/console/logout", form: [("csrf", token)])
        #expect(out.status == 303 && visitor.cookies["lr_session"] == nil)
        #expect(try await server.store.read { try $0.query("SELECT id_hash FROM console_sessions") }.isEmpty)
        await server.stop()
    }

    @Test("a form without the session's token, or from another origin, changes nothing")
    func csrf() async throws {
        let server = try await TestServer.start()
        let visitor = Visitor(server.application)
        _ = await visitor.signIn(key: server.adminKey)
        let key = try await server.createKey(.server, workspace: server.defaultWorkspace.id)
        let token = await visitor.csrf()
        let none = await visitor.send("POST", "/console/keys/\(key.key.id)/revoke", form: [("ws", server.defaultWorkspace.id)])
        #expect(none.status == 403)
        let wrong = await visitor.send("POST", "/console/keys/\(key.key.id)/revoke", form: [("csrf", token + "x")])
        #expect(wrong.status == 403)
        let elsewhere = await visitor.send("POST", "/console/keys/\(key.key.id)/revoke", form: [("csrf", token)],
                                           headers: [("Origin", "https://evil.example")])
        #expect(elsewhere.status == 403)
        #expect(try await server.admin.get("/v1/keys/\(key.key.id)").decoded(APIKey.self).revokedAt == nil)
        let done = await visitor.send("POST", "/console/keys/\(key.key.id)/revoke", form: [("csrf", token), ("ws", server.defaultWorkspace.id)],
                                      headers: [("Origin", "http://localhost")])
        #expect(done.status == 303)
        #expect(try await server.admin.get("/v1/keys/\(key.key.id)").decoded(APIKey.self).revokedAt != nil)
        await server.stop()
    }

    @Test("a user sees only their workspace: another workspace's link, install and name answer 404")
    func scope() async throws {
        let server = try await TestServer.start()
        let other = try await server.createWorkspace("Other")
        _ = try await server.admin.post("/v1/domains", json: #"{"workspaceId":"\#(other.id)","hostname":"other.example.com"}"#)
            .decoded(LinkDomain.self, status: 201)
        let theirs = try await server.createLink(#"{"workspaceId":"\#(other.id)","path":"theirs"}"#)
        _ = try await server.admin.post("/v1/users", json: #"{"workspaceId":"\#(server.defaultWorkspace.id)","email":"Ana@Example.com","password":"correct horse battery"}"#)
            .decoded(ConsoleUser.self, status: 201)
        let visitor = Visitor(server.application)
        #expect(await visitor.signIn(email: "ana@example.com", password: "wrong password!!").status == 401)
        #expect(await visitor.signIn(email: "ana@example.com", password: "correct horse battery").status == 303)
        let links = await visitor.send("GET", "/console/links")
        #expect(links.status == 200 && !links.bodyText.contains("theirs"))
        #expect(await visitor.send("GET", "/console/links/\(theirs.id)").status == 404)
        #expect(await visitor.send("GET", "/console/links?ws=\(other.id)").status == 404)
        #expect(await visitor.send("GET", "/console/links/\(theirs.id)/qr.svg").status == 404)
        #expect(!(await visitor.send("GET", "/console").bodyText.contains("Other")))

        // Removing the user ends the session at once.
        let users = try await server.admin.get("/v1/users").decoded(Page<ConsoleUser>.self)
        #expect(users.items.map(\.email) == ["ana@example.com"])
        #expect(await server.admin.send("DELETE", "/v1/users/\(users.items[0].id)").status == 204)
        #expect(await visitor.send("GET", "/console/links").status == 303)
        await server.stop()
    }

    @Test("a session ends when its key is revoked, after two idle hours, and after twelve hours in all")
    func expiry() async throws {
        let clock = ManualClock()
        let server = try await TestServer.start(clock: clock.wall)
        let key = try await server.createKey(.server, workspace: server.defaultWorkspace.id)
        let visitor = Visitor(server.application)
        #expect(await visitor.signIn(key: key.secret).status == 303)
        clock.advance(seconds: 100 * 60)
        #expect(await visitor.send("GET", "/console").status == 200, "100 idle minutes")
        for _ in 0..<5 {
            clock.advance(seconds: 110 * 60)
            #expect(await visitor.send("GET", "/console").status == 200, "kept alive by use")
        }
        clock.advance(seconds: 80 * 60)
        #expect(await visitor.send("GET", "/console").status == 303, "past twelve hours")

        #expect(await visitor.signIn(key: key.secret).status == 303)
        clock.advance(seconds: 121 * 60)
        #expect(await visitor.send("GET", "/console").status == 303, "two idle hours")

        #expect(await visitor.signIn(key: key.secret).status == 303)
        _ = try await server.admin.post("/v1/keys/\(key.key.id)/revoke", json: "{}").decoded(APIKey.self)
        #expect(await visitor.send("GET", "/console").status == 303, "revoked")
        await server.stop()
    }

    @Test("sign-in attempts are limited per address")
    func attemptsLimited() async throws {
        let server = try await TestServer.start()
        let visitor = Visitor(server.application)
        var statuses: [Int] = []
        // Well past the ten an address may try in a minute, so a token refilled on a slow machine changes nothing.
        for _ in 0..<20 { statuses.append(await visitor.signIn(key: "lr_ak_nopenopenopenopenopenopenopenopenopenopenopenope").status) }
        #expect(statuses.prefix(5).allSatisfy { $0 == 401 })
        let limited = await visitor.signIn(key: server.adminKey)
        #expect(limited.status == 429 && limited.headers["Retry-After"] != nil)
        visitor.address = "203.0.113.10"
        #expect(await visitor.signIn(key: server.adminKey).status == 303, "another address is not held back")
        await server.stop()
    }

    @Test("a schema error shows beside its cell; a valid schema saves as a new version")
    func schemaErrors() async throws {
        let server = try await TestServer.start()
        let app = try await server.createApp(in: server.defaultWorkspace.id)
        let visitor = Visitor(server.application)
        _ = await visitor.signIn(key: server.adminKey)
        let token = await visitor.csrf()
        let rows: [(String, String)] = [("csrf", token), ("ws", server.defaultWorkspace.id), ("app", app.id), ("rows", "3"),
                                        ("type0", "INSTALL"), ("fine0", "1"), ("type1", "PURCHASE"), ("fine1", "99"), ("coarse1", "high"), ("type2", "")]
        let refused = await visitor.send("POST", "/console/schema", form: rows)
        #expect(refused.status == 400)
        #expect(refused.bodyText.contains(#"name="fine1" value="99" aria-label="Fine value, rule 2" aria-invalid="true""#))
        #expect(refused.bodyText.contains("must be 0 to 63"))
        var fixed = rows
        fixed[7] = ("fine1", "40")
        let saved = await visitor.send("POST", "/console/schema", form: fixed)
        #expect(saved.status == 303)
        let schema = try await server.admin.get("/v1/apps/\(app.id)/conversion-schema").decoded(ConversionSchema.self)
        #expect(schema.rules.map(\.fine) == [1, 40] && schema.rules[1].coarse == "high")
        await server.stop()
    }

    @Test("linkrunway user create makes a password that signs in; user list shows it; user remove ends it")
    func userCommands() async throws {
        let (runtime, directory, environment) = try await CLITests.startServer()
        _ = directory
        let workspace = try #require(runtime.bootstrap?.workspace.id)
        let created = await CLITests.run(["user", "create", "--email", "Bo@Example.com", "--workspace", workspace], environment: environment)
        #expect(created.status == 0, "\(created.errors)")
        let password = try #require(created.output.split(whereSeparator: \.isWhitespace).last.map(String.init))
        #expect(password.count == 20)
        let visitor = Visitor(runtime.application)
        #expect(await visitor.signIn(email: "bo@example.com", password: password).status == 303)
        let listed = await CLITests.run(["user", "list", "--json"], environment: environment)
        let users = try JSONDecoder().decode([ConsoleUser].self, from: Data(listed.output.utf8))
        #expect(users.map(\.email) == ["bo@example.com"])
        let again = await CLITests.run(["user", "create", "--email", "bo@example.com", "--workspace", workspace], environment: environment)
        #expect(again.status == 1 && again.errors.contains("email_taken"))
        #expect(await CLITests.run(["user", "remove", users[0].id], environment: environment).status == 0)
        #expect(await visitor.send("GET", "/console").status == 303, "the session ended with the user")
        #expect(await visitor.signIn(email: "bo@example.com", password: password).status == 401)
        await runtime.stop()
    }

    @Test("markup escapes what it interpolates")
    func escaping() {
        let name = "<script>alert('x')</script>"
        let markup: Markup = "<td>\(name)</td>"
        #expect(markup.html == "<td>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;</td>")
    }
}
