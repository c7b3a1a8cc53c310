import Foundation
import LinkRunwayAPI
@testable import RunwayCLI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayHTTP
@testable import RunwayKit
@testable import RunwayServer
import RunwayTestKit
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
        _ = try await server.admin.post("/v1/domains", CreateLinkDomainRequest(workspaceId: other.id, hostname: "other.example.com"))
            .decoded(LinkDomain.self, status: 201)
        let theirs = try await server.createLink(CreateLinkRequest(workspaceId: other.id, path: "theirs"))
        _ = try await server.admin.post("/v1/users", CreateConsoleUserRequest(workspaceId: server.defaultWorkspace.id, email: "Ana@Example.com",
                                                                             password: "correct horse battery"))
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

    @Test("sign-in attempts per account and address are limited across server processes, end a minute after the last, and never hold the owner back elsewhere")
    func accountLimitAcrossProcesses() async throws {
        let clock = ManualClock()
        let server = try await TestServer.start(clock: clock.wall)
        _ = try await server.admin.post("/v1/users", CreateConsoleUserRequest(workspaceId: server.defaultWorkspace.id, email: "lee@example.com",
                                                                             password: "a good long password"))
            .decoded(ConsoleUser.self, status: 201)
        // A second process on the same database: its own in-process limits, the same table of attempts.
        let other = ServerApplication.make(server.services, maxBodyBytes: 1024 * 1024, rateLimits: RateLimitSettings())
        var statuses: [Int] = []
        for attempt in 0..<6 {
            let visitor = Visitor(attempt % 2 == 0 ? server.application : other)
            visitor.address = "198.51.100.1"
            statuses.append(await visitor.signIn(email: "lee@example.com", password: "wrong guess \(attempt)").status)
        }
        #expect(statuses == [401, 401, 401, 401, 401, 429], "five wrong guesses from one address across two processes, then a wait")
        let guesser = Visitor(other)
        guesser.address = "198.51.100.1"
        let held = await guesser.signIn(email: "lee@example.com", password: "a good long password")
        #expect(held.status == 429 && held.headers["Retry-After"] == "60", "even the right password waits at the guessing address")
        // The owner, somewhere else, is not locked out by someone else's wrong guesses.
        let owner = Visitor(other)
        owner.address = "203.0.113.77"
        #expect(await owner.signIn(email: "lee@example.com", password: "a good long password").status == 303)
        clock.advance(seconds: 61)
        #expect(await guesser.signIn(email: "lee@example.com", password: "a good long password").status == 303)
        let rows = try await server.store.read { try $0.query("SELECT account_hash FROM console_sign_in_attempts").map { try $0.string("account_hash") } }
        #expect(rows.count == 7 && rows.allSatisfy { !$0.contains("lee") }, "attempts are kept as hashes, the held ones not counted")

        // The window is a minute: five guesses eleven seconds apart still hold the sixth, until the first is a minute old.
        let patient = Visitor(server.application)
        patient.address = "198.51.100.2"
        var spaced: [Int] = []
        for attempt in 0..<6 {
            if attempt > 0 { clock.advance(seconds: 11) }
            spaced.append(await patient.signIn(email: "lee@example.com", password: "slow guess \(attempt)").status)
        }
        #expect(spaced == [401, 401, 401, 401, 401, 429], "\(spaced)")
        clock.advance(seconds: 6)
        #expect(await patient.signIn(email: "lee@example.com", password: "slow guess 6").status == 401, "the first guess left the window")
        await server.stop()
    }

    @Test("failed sign-ins of one account from many addresses bring a back-off that doubles, and the owner's sign-in clears it")
    func accountBackoffAcrossAddresses() async throws {
        let clock = ManualClock()
        let server = try await TestServer.start(clock: clock.wall)
        _ = try await server.admin.post("/v1/users", CreateConsoleUserRequest(workspaceId: server.defaultWorkspace.id, email: "ash@example.com",
                                                                             password: "ash's long password"))
            .decoded(ConsoleUser.self, status: 201)
        func attempt(_ password: String, from address: String) async -> HTTPResponse {
            let visitor = Visitor(server.application)
            visitor.address = address
            return await visitor.signIn(email: "ash@example.com", password: password)
        }
        // Ten addresses, one guess each: no per-address limit is reached, and ten failures are free.
        for i in 0..<SignInAttempts.freeFailures {
            #expect(await attempt("guess \(i)", from: "198.51.100.\(100 + i)").status == 401)
        }
        let held = await attempt("guess 10", from: "198.51.100.150")
        #expect(held.status == 429 && held.headers["Retry-After"] == "2", "\(held.status) \(held.headers["Retry-After"] ?? "")")
        clock.advance(seconds: 2)
        #expect(await attempt("guess 11", from: "198.51.100.151").status == 401)
        let longer = await attempt("guess 12", from: "198.51.100.152")
        #expect(longer.status == 429 && longer.headers["Retry-After"] == "4", "the wait doubles with each failure")
        // Another account is not slowed by them.
        #expect(await Visitor(server.application).signIn(email: "other@example.com", password: "x").status == 401)
        clock.advance(seconds: 4)
        #expect(await attempt("ash's long password", from: "203.0.113.40").status == 303, "the owner gets in once the wait is over")
        #expect(await attempt("one typo", from: "203.0.113.40").status == 401, "and the failures before no longer count")
        #expect(await attempt("ash's long password", from: "203.0.113.41").status == 303)
        await server.stop()
    }

    @Test("sign-in attempts from one IPv6 /64 share the per-address limit")
    func attemptsLimitedPerIPv6Network() async throws {
        let server = try await TestServer.start()
        // Each guess names another key, so only the address's limit can hold one back.
        func guess(_ i: Int, from address: String) async -> Int {
            let visitor = Visitor(server.application)
            visitor.address = address
            return await visitor.signIn(key: "lr_ak_" + String(format: "%08d", i) + String(repeating: "x", count: 40)).status
        }
        var statuses: [Int] = []
        for i in 0..<20 { statuses.append(await guess(i, from: "2001:db8:5:5::\(i + 1)")) }
        #expect(statuses.prefix(5).allSatisfy { $0 == 401 } && statuses.last == 429, "\(statuses)")
        #expect(await guess(99, from: "2001:db8:5:6::1") == 401, "the next /64 has its own allowance")
        await server.stop()
    }

    @Test("when the password threads are full, a sign-in is turned away at once without hashing, and gets through once they free up")
    func passwordThreadsFull() async throws {
        let server = try await TestServer.start()
        _ = try await server.admin.post("/v1/users", CreateConsoleUserRequest(workspaceId: server.defaultWorkspace.id, email: "kim@example.com",
                                                                             password: "kim's long password"))
            .decoded(ConsoleUser.self, status: 201)
        // A flood of guesses, held where the hashing happens.
        let pool = server.services.passwords
        let release = DispatchSemaphore(value: 0)
        let held = (0..<pool.maxPending).map { _ in Task { await pool.run { release.wait(); return true } } }
        while pool.pendingCount < pool.maxPending { try await Task.sleep(for: .milliseconds(5)) }
        let owner = Visitor(server.application)
        owner.address = "203.0.113.88"
        let busy = await owner.signIn(email: "kim@example.com", password: "kim's long password")
        #expect(busy.status == 503 && busy.headers["Retry-After"] == "1", "told to retry at once, not queued behind the flood")
        #expect(pool.pendingCount == pool.maxPending, "nothing more was queued")
        for _ in held { release.signal() }
        for task in held { _ = await task.value }
        #expect(await owner.signIn(email: "kim@example.com", password: "kim's long password").status == 303)
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

    @Test("a schema error shows beside its cell, in any window; a valid schema saves as a new version, later windows too")
    func schemaErrors() async throws {
        let server = try await TestServer.start()
        let app = try await server.createApp(in: server.defaultWorkspace.id)
        let visitor = Visitor(server.application)
        _ = await visitor.signIn(key: server.adminKey)
        let token = await visitor.csrf()
        var rows: [(String, String)] = [("csrf", token), ("ws", server.defaultWorkspace.id), ("app", app.id), ("rows", "3"),
                                        ("type0", "INSTALL"), ("fine0", "1"), ("type1", "PURCHASE"), ("fine1", "99"), ("coarse1", "high"), ("type2", ""),
                                        // Window 2: a blank first row, then a rule whose coarse value the form never offers.
                                        ("w2_rows", "2"), ("w2_type0", ""), ("w2_type1", "SUBSCRIPTION"), ("w2_coarse1", "huge"),
                                        ("w3_rows", "1"), ("w3_type0", "PURCHASE"), ("w3_minAmount0", "4999"), ("w3_coarse0", "medium"), ("w3_lock0", "on")]
        let refused = await visitor.send("POST", "/console/schema", form: rows)
        #expect(refused.status == 400)
        #expect(refused.bodyText.contains(#"name="fine1" value="99" aria-label="Fine value, rule 2" aria-invalid="true""#))
        #expect(refused.bodyText.contains("must be 0 to 63"))
        rows[7] = ("fine1", "40")
        let laterRefused = await visitor.send("POST", "/console/schema", form: rows)
        #expect(laterRefused.status == 400)
        #expect(laterRefused.bodyText.contains(#"name="w2_coarse1" aria-label="Coarse value, rule 2, window 2" aria-invalid="true" aria-describedby="error-w2_coarse1""#),
                "the error is beside window 2's second row, not the first window's")
        #expect(laterRefused.bodyText.contains(#"<span class="error" id="error-w2_coarse1">must be low, medium or high</span>"#))
        #expect(laterRefused.bodyText.contains(#"name="w3_minAmount0" value="4999""#), "what was typed is kept")
        rows[13] = ("w2_coarse1", "high")
        let saved = await visitor.send("POST", "/console/schema", form: rows)
        #expect(saved.status == 303)
        let schema = try await server.admin.get("/v1/apps/\(app.id)/conversion-schema").decoded(ConversionSchema.self)
        #expect(schema.rules.map(\.fine) == [1, 40] && schema.rules[1].coarse == "high")
        #expect(schema.laterWindows == [LaterWindow(window: 2, rules: [LaterWindowRule(type: "SUBSCRIPTION", coarse: "high")]),
                                        LaterWindow(window: 3, rules: [LaterWindowRule(type: "PURCHASE", minAmount: 4999, coarse: "medium", lockWindow: true)])])
        // The page shows the saved later windows for the next edit, and saving it unchanged keeps them.
        let page = await visitor.send("GET", "/console/schema?ws=\(server.defaultWorkspace.id)&app=\(app.id)")
        #expect(page.bodyText.contains(#"name="w2_type0" value="SUBSCRIPTION""#) && page.bodyText.contains(#"name="w3_lock0" aria-label="Lock the window, rule 1, window 3" checked"#))
        let again = await visitor.send("POST", "/console/schema", form: [("csrf", token), ("ws", server.defaultWorkspace.id), ("app", app.id)] + Self.formFields(page.bodyText))
        #expect(again.status == 303)
        let next = try await server.admin.get("/v1/apps/\(app.id)/conversion-schema").decoded(ConversionSchema.self)
        #expect(next.version == schema.version + 1 && next.rules == schema.rules && next.laterWindows == schema.laterWindows)
        await server.stop()
    }

    @Test("affiliates are added, given codes and paid from the console; bad amounts and overdrafts are refused on the page")
    func affiliateForms() async throws {
        let w = try await AffiliateAPITests.world(holdDays: 0)
        let token = try await AffiliateAPITests.bind(w)
        let paid = try await AffiliateAPITests.notify(w, w.production, AffiliateAPITests.payment(w, id: "c1", token: token, price: 9990))
            .decoded(AppStoreNotificationResult.self)
        #expect(paid.amount == 299, "30% of 9.99")
        let visitor = Visitor(w.server.application)
        _ = await visitor.signIn(key: w.server.adminKey)
        let csrf = await visitor.csrf()
        let ws = w.workspace
        let page = await visitor.send("GET", "/console/affiliates/\(w.affiliate.id)?ws=\(ws)")
        #expect(page.status == 200 && page.bodyText.contains("Record a payout") && page.bodyText.contains(#"<option value="USD">"#))

        let payouts = "/console/affiliates/\(w.affiliate.id)/payouts"
        let bad = await visitor.send("POST", payouts, form: [("csrf", csrf), ("ws", ws), ("currency", "USD"), ("amount", "12.50")])
        #expect(bad.status == 400 && bad.bodyText.contains(#"id="amount-error">must be a whole number of minor units (cents)"#))
        let over = await visitor.send("POST", payouts, form: [("csrf", csrf), ("ws", ws), ("currency", "USD"), ("amount", "5000")])
        #expect(over.status == 409 && over.bodyText.contains("the payable USD balance is 299"))
        let once = try #require(Visitor.hidden("once", in: page))
        let partForm = [("csrf", csrf), ("ws", ws), ("once", once), ("currency", "USD"), ("amount", "100"), ("reference", "wire-9")]
        let part = await visitor.send("POST", payouts, form: partForm)
        #expect(part.status == 303)
        let again = await visitor.send("POST", payouts, form: partForm)
        #expect(again.status == 303, "the same form again (a double click) is answered")
        #expect(try await AffiliateAPITests.balance(w, "USD")?.paid == 100, "and recorded once")
        let rest = await visitor.send("POST", payouts, form: [("csrf", csrf), ("ws", ws), ("currency", "USD"), ("amount", "")])
        #expect(rest.status == 303, "an empty amount pays everything payable")
        #expect(try await AffiliateAPITests.balance(w, "USD") == CurrencyBalance(currency: "USD", pending: 0, payable: 0, paid: 299, test: false))
        let ledger = await visitor.send("GET", "/console/affiliates/\(w.affiliate.id)?ws=\(ws)")
        #expect(ledger.bodyText.contains("wire-9") && ledger.bodyText.contains("Nothing is payable yet"))
        try await AffiliateAPITests.checkLedger(w.server)

        let nameless = await visitor.send("POST", "/console/affiliates", form: [("csrf", csrf), ("ws", ws), ("name", ""), ("externalId", "x-1")])
        #expect(nameless.status == 400 && nameless.bodyText.contains(#"aria-invalid="true""#) && nameless.bodyText.contains(#"value="x-1""#))
        let added = await visitor.send("POST", "/console/affiliates", form: [("csrf", csrf), ("ws", ws), ("name", "Bob"), ("externalId", "")])
        #expect(added.status == 303)
        let bob = try #require(try await w.server.admin.get("/v1/affiliates?workspaceId=\(ws)").decoded(Page<Affiliate>.self).items.first { $0.name == "Bob" })
        let coded = await visitor.send("POST", "/console/affiliates/\(bob.id)/codes", form: [("csrf", csrf), ("ws", ws), ("programId", w.program.id), ("code", "bobby")])
        #expect(coded.status == 303 && coded.headers["Location"]?.lowercased().contains("bobby") == true, "\(coded.headers["Location"] ?? "")")
        let taken = await visitor.send("POST", "/console/affiliates/\(bob.id)/codes", form: [("csrf", csrf), ("ws", ws), ("programId", w.program.id), ("code", "alice")])
        #expect(taken.status == 409, "Alice's code is hers")
        #expect(try await w.client.post("/v1/app-store/bind", BindRequest(refCode: "BOBBY")).decoded(BindResponse.self).offerCode == "ALICE20")
        await w.server.stop()
    }

    @Test("affiliate programs are added in a form: percentages and fixed amounts, durations, errors beside their fields")
    func programForm() async throws {
        let (server, visitor, csrf, ws) = try await Self.signedIn()
        let app = try await server.createApp(in: ws)
        func send(_ fields: [(String, String)]) async -> HTTPResponse {
            await visitor.send("POST", "/console/affiliate-programs", form: [("csrf", csrf), ("ws", ws), ("app", app.id)] + fields)
        }
        let notNumber = await send([("programName", "Launch"), ("kind", "percent"), ("percent", "lots"), ("duration", "lifetime")])
        #expect(notNumber.status == 400 && notNumber.bodyText.contains(#"id="percent-error">must be a percentage such as 30 or 12.5"#))
        #expect(notNumber.bodyText.contains(#"name="programName" type="text" value="Launch""#), "what was typed is kept")
        let noCurrency = await send([("programName", "Flat"), ("kind", "fixed"), ("amount", "200"), ("duration", "first")])
        #expect(noCurrency.status == 400 && noCurrency.bodyText.contains(#"id="currency-error""#), "the API's error on commission.currency lands on the field")
        let noMonths = await send([("programName", "Half year"), ("kind", "percent"), ("percent", "20"), ("duration", "months"), ("months", "")])
        #expect(noMonths.status == 400 && noMonths.bodyText.contains(#"id="months-error">must be 1 to 120"#))
        let saved = await send([("programName", "Launch"), ("kind", "percent"), ("percent", "12.5"), ("duration", "months"), ("months", "6"),
                                ("holdDays", "14"), ("offerCode", "LAUNCH1")])
        #expect(saved.status == 303)
        let flat = await send([("programName", "Flat"), ("kind", "fixed"), ("amount", "200"), ("currency", "eur"), ("duration", "first")])
        #expect(flat.status == 303)
        let programs = try await server.admin.get("/v1/affiliate-programs?workspaceId=\(ws)").decoded(Page<AffiliateProgram>.self).items
        let launch = try #require(programs.first { $0.name == "Launch" })
        #expect(launch.commission == CommissionRule(kind: "percent", basisPoints: 1250, duration: "months", months: 6))
        #expect(launch.holdDays == 14 && launch.offerCode == "LAUNCH1" && launch.appId == app.id)
        #expect(programs.first { $0.name == "Flat" }?.commission == CommissionRule(kind: "fixed", amount: 200, currency: "EUR", duration: "first"))
        let page = await visitor.send("GET", "/console/affiliates?ws=\(ws)")
        #expect(page.bodyText.contains("12.5% of payments in the first 6 months") && page.bodyText.contains("of the first payment"))
        await server.stop()
    }

    @Test("webhooks are added with the secret shown once, list their deliveries, and are removed")
    func webhookPages() async throws {
        let (server, visitor, csrf, ws) = try await Self.signedIn()
        let app = try await server.createApp(in: ws)
        let key = try await server.createKey(.publishable, app: app.id).secret
        #expect(await visitor.send("GET", "/console/webhooks?ws=\(ws)").bodyText.contains("No webhooks yet"))
        let plain = await visitor.send("POST", "/console/webhooks", form: [("csrf", csrf), ("ws", ws), ("url", "http://hooks.example.com/in"), ("topic_install", "on")])
        #expect(plain.status == 400 && plain.bodyText.contains(#"value="http://hooks.example.com/in""#))
        let none = await visitor.send("POST", "/console/webhooks", form: [("csrf", csrf), ("ws", ws), ("url", "https://hooks.example.com/in")])
        #expect(none.status == 400 && none.bodyText.contains("topics: must list some of install, event, click"))
        let created = await visitor.send("POST", "/console/webhooks", form: [("csrf", csrf), ("ws", ws), ("url", "https://hooks.example.com/in"),
                                                                           ("topic_install", "on"), ("topic_event", "on")])
        #expect(created.status == 201)
        let secret = try #require(created.bodyText.range(of: #"whsec_[A-Za-z0-9]+"#, options: .regularExpression).map { String(created.bodyText[$0]) })
        let listed = await visitor.send("GET", "/console/webhooks?ws=\(ws)")
        #expect(listed.bodyText.contains("https://hooks.example.com/in") && listed.bodyText.contains("install, event") && !listed.bodyText.contains(secret),
                "the secret is shown once")
        let endpoint = try #require(try await server.admin.get("/v1/webhooks?workspaceId=\(ws)").decoded(Page<WebhookEndpoint>.self).items.first)
        // An install makes a delivery (the endpoint is not reachable from here, so it stays pending).
        _ = try await server.client(key).post("/v1/installs/match", MatchInstallRequest(installId: "w1", platform: "ios", consent: true)).decoded(InstallMatch.self)
        let detail = await visitor.send("GET", "/console/webhooks/\(endpoint.id)?ws=\(ws)")
        #expect(detail.status == 200 && detail.bodyText.contains("<td>install</td>"), "\(detail.bodyText)")
        #expect(await visitor.send("GET", "/console/webhooks?ws=\(ws)").bodyText.range(of: #"1 (pending|delivered|failed)"#, options: .regularExpression) != nil)
        // A test ping, and a redelivery of a delivery that is no longer pending, are one button each.
        #expect(detail.bodyText.contains("Send test") && !detail.bodyText.contains(">Redeliver<"), "a pending delivery has no redeliver button")
        let tested = await visitor.send("POST", "/console/webhooks/\(endpoint.id)/test", form: [("csrf", csrf), ("ws", ws)])
        #expect(tested.status == 303 && (tested.headers["Location"] ?? "").contains("notice=Queued"))
        var deliveries = try await server.admin.get("/v1/webhooks/\(endpoint.id)/deliveries").decoded(WebhookDeliveryList.self).items
        let install = try #require(deliveries.first { $0.topic == "install" })
        #expect(deliveries.map(\.topic).sorted() == ["install", "ping"])
        try await server.store.write { db in try db.execute("UPDATE webhook_deliveries SET status = 'failed' WHERE id = \(install.id)") }
        #expect(await visitor.send("GET", "/console/webhooks/\(endpoint.id)?ws=\(ws)").bodyText.contains("Redeliver \(install.id)"))
        let redelivered = await visitor.send("POST", "/console/webhooks/\(endpoint.id)/deliveries/\(install.id)/redeliver", form: [("csrf", csrf), ("ws", ws)])
        #expect(redelivered.status == 303)
        deliveries = try await server.admin.get("/v1/webhooks/\(endpoint.id)/deliveries").decoded(WebhookDeliveryList.self).items
        #expect(deliveries.filter { $0.topic == "install" }.count == 2)
        let removed = await visitor.send("POST", "/console/webhooks/\(endpoint.id)/delete", form: [("csrf", csrf), ("ws", ws)])
        #expect(removed.status == 303)
        #expect(try await server.admin.get("/v1/webhooks?workspaceId=\(ws)").decoded(Page<WebhookEndpoint>.self).items.isEmpty)
        await server.stop()
    }

    @Test("keys record who made them, the console shows it, and removing a user revokes the keys they made and the keys those made")
    func keysOfRemovedUsers() async throws {
        let (server, admin, csrf, ws) = try await Self.signedIn()
        let added = await admin.send("POST", "/console/users", form: [("csrf", csrf), ("ws", ws), ("email", "lou@example.com")])
        let password = try #require(added.bodyText.range(of: #"<p class="secret">[A-Za-z0-9]{20}</p>"#, options: .regularExpression)
            .map { String(added.bodyText[$0].dropFirst(18).prefix(20)) })
        let lou = Visitor(server.application)
        lou.address = "203.0.113.31"
        #expect(await lou.signIn(email: "lou@example.com", password: password).status == 303)
        let made = await lou.send("POST", "/console/keys", form: [("csrf", await lou.csrf()), ("ws", ws), ("kind", "server"), ("name", "lou's backend")])
        let secret = try #require(made.bodyText.range(of: #"lr_sk_[A-Za-z0-9_]+"#, options: .regularExpression).map { String(made.bodyText[$0]) })
        // A key made with that key: removing Lou must reach it too.
        let child = try await server.client(secret).post("/v1/keys", CreateKeyRequest(kind: .server, name: "made by lou's key"))
            .decoded(CreatedKey.self, status: 201)
        let keys = try await server.admin.get("/v1/keys?workspaceId=\(ws)&limit=100").decoded(Page<APIKey>.self).items
        let user = try #require(try await server.admin.get("/v1/users?workspaceId=\(ws)").decoded(Page<ConsoleUser>.self).items.first)
        let lousKey = try #require(keys.first { $0.name == "lou's backend" })
        #expect(lousKey.createdBy == user.id && child.key.createdBy == lousKey.id)
        #expect(await admin.send("GET", "/console/keys?ws=\(ws)").bodyText.contains("lou@example.com"), "the console shows who made the key")

        #expect(await server.admin.send("DELETE", "/v1/users/\(user.id)").status == 204)
        #expect(await server.client(secret).get("/v1/me").status == 401, "the key Lou made is revoked")
        #expect(await server.client(child.secret).get("/v1/me").status == 401, "and the key made with it")
        #expect(await server.admin.get("/v1/me").status == 200, "other keys stay")
        await server.stop()
    }

    @Test("offboarding reaches what was made: a removed user's users, a revoked key's keys and users; the caller's own key and a last admin key stay")
    func offboardingCascades() async throws {
        let (server, admin, csrf, ws) = try await Self.signedIn()
        func addUser(_ visitor: Visitor, _ email: String) async throws -> String {
            let added = await visitor.send("POST", "/console/users", form: [("csrf", await visitor.csrf()), ("ws", ws), ("email", email)])
            return try #require(added.bodyText.range(of: #"<p class="secret">[A-Za-z0-9]{20}</p>"#, options: .regularExpression)
                .map { String(added.bodyText[$0].dropFirst(18).prefix(20)) })
        }
        func users() async throws -> [String] {
            try await server.admin.get("/v1/users?workspaceId=\(ws)&limit=100").decoded(Page<ConsoleUser>.self).items.map(\.email)
        }
        _ = csrf
        // Lou, added by the admin, adds Max; Max signs in.
        let lou = Visitor(server.application)
        lou.address = "203.0.113.51"
        #expect(await lou.signIn(email: "lou@example.com", password: try await addUser(admin, "lou@example.com")).status == 303)
        let max = Visitor(server.application)
        max.address = "203.0.113.52"
        #expect(await max.signIn(email: "max@example.com", password: try await addUser(lou, "max@example.com")).status == 303)
        // A server key Lou made adds Sam and a key of its own.
        let made = await lou.send("POST", "/console/keys", form: [("csrf", await lou.csrf()), ("ws", ws), ("kind", "server"), ("name", "lou's key")])
        let lousKey = try #require(made.bodyText.range(of: #"lr_sk_[A-Za-z0-9_]+"#, options: .regularExpression).map { String(made.bodyText[$0]) })
        let lousKeyId = try await server.client(lousKey).get("/v1/me").decoded(WhoAmI.self).keyId
        _ = try await server.client(lousKey).post("/v1/users", CreateConsoleUserRequest(workspaceId: ws, email: "sam@example.com", password: "sam's long password"))
            .decoded(ConsoleUser.self, status: 201)
        let grandchild = try await server.client(lousKey).post("/v1/keys", CreateKeyRequest(kind: .server, name: "made by lou's key"))
            .decoded(CreatedKey.self, status: 201)
        #expect(try await users().sorted() == ["lou@example.com", "max@example.com", "sam@example.com"])

        // Revoking Lou's key takes the user and the key it made.
        #expect(await server.admin.send("POST", "/v1/keys/\(lousKeyId)/revoke").status == 200)
        #expect(await server.client(grandchild.secret).get("/v1/me").status == 401)
        #expect(try await users().sorted() == ["lou@example.com", "max@example.com"], "Sam, made with the revoked key, is gone")
        // Removing Lou takes Max, whose session ends at once.
        let louId = try #require(try await server.admin.get("/v1/users?workspaceId=\(ws)&limit=100").decoded(Page<ConsoleUser>.self).items.first { $0.email == "lou@example.com" }).id
        #expect(await server.admin.send("DELETE", "/v1/users/\(louId)").status == 204)
        #expect(try await users().isEmpty)
        #expect(await max.send("GET", "/console/keys?ws=\(ws)").status == 303, "Max's session ended with Lou")

        // Rotating the first admin key: the new one, made with it, revokes it and stays.
        let rotated = try await server.admin.post("/v1/keys", CreateKeyRequest(kind: .admin, name: "rotated")).decoded(CreatedKey.self, status: 201)
        let firstId = try await server.admin.get("/v1/me").decoded(WhoAmI.self).keyId
        let byFirst = try await server.admin.post("/v1/keys", CreateKeyRequest(kind: .server, name: "made by the first", workspaceId: ws))
            .decoded(CreatedKey.self, status: 201)
        #expect(await server.admin.send("POST", "/v1/keys/\(firstId)/revoke").errorCode == "last_admin_key",
                "revoked by itself it would take the rotated key with it, and no admin key would be left")
        #expect(await server.client(rotated.secret).send("POST", "/v1/keys/\(firstId)/revoke").status == 200)
        #expect(await server.client(rotated.secret).get("/v1/me").status == 200, "the caller's own key is spared")
        #expect(await server.client(byFirst.secret).get("/v1/me").status == 401, "the other keys the first made go with it")
        await server.stop()
    }

    @Test("users are added with a password shown once that signs in, and removing one ends their session")
    func userPages() async throws {
        let (server, admin, csrf, ws) = try await Self.signedIn()
        #expect(await admin.send("GET", "/console/users?ws=\(ws)").bodyText.contains("No console users"))
        let bad = await admin.send("POST", "/console/users", form: [("csrf", csrf), ("ws", ws), ("email", "not-an-email")])
        #expect(bad.status == 400 && bad.bodyText.contains(#"id="email-error">must be an email address"#) && bad.bodyText.contains(#"value="not-an-email""#))
        let added = await admin.send("POST", "/console/users", form: [("csrf", csrf), ("ws", ws), ("email", "Kim@Example.com")])
        #expect(added.status == 201)
        let password = try #require(added.bodyText.range(of: #"<p class="secret">[A-Za-z0-9]{20}</p>"#, options: .regularExpression)
            .map { String(added.bodyText[$0].dropFirst(18).prefix(20)) })
        let again = await admin.send("POST", "/console/users", form: [("csrf", csrf), ("ws", ws), ("email", "kim@example.com")])
        #expect(again.status == 409 && again.bodyText.contains("already has a console user"))
        let kim = Visitor(server.application)
        #expect(await kim.signIn(email: "kim@example.com", password: password).status == 303)
        #expect(await kim.send("GET", "/console").status == 200)
        let listed = await admin.send("GET", "/console/users?ws=\(ws)")
        #expect(listed.bodyText.contains("kim@example.com") && !listed.bodyText.contains(password), "the password is shown once")
        let user = try #require(try await server.admin.get("/v1/users?workspaceId=\(ws)").decoded(Page<ConsoleUser>.self).items.first)
        #expect(await admin.send("POST", "/console/users/\(user.id)/delete", form: [("csrf", csrf), ("ws", ws)]).status == 303)
        #expect(await kim.send("GET", "/console").status != 200, "their session ended")
        await server.stop()
    }

    @Test("ad network identities are added (a key made here, or a bad one refused) and list the public key for Apple")
    func adNetworkPages() async throws {
        let (server, visitor, csrf, ws) = try await Self.signedIn()
        let short = await visitor.send("POST", "/console/ad-networks", form: [("csrf", csrf), ("ws", ws), ("adNetworkId", "x")])
        #expect(short.status == 400 && short.bodyText.contains(#"id="adNetworkId-error""#))
        let badKey = await visitor.send("POST", "/console/ad-networks", form: [("csrf", csrf), ("ws", ws), ("adNetworkId", "example.adattributionkit"),
                                                                             ("privateKeyPem", "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----")])
        #expect(badKey.status == 400 && badKey.bodyText.contains(#"id="privateKeyPem-error">must be a P-256 private key in PEM"#))
        let added = await visitor.send("POST", "/console/ad-networks", form: [("csrf", csrf), ("ws", ws), ("adNetworkId", "example.adattributionkit")])
        #expect(added.status == 303)
        let network = try #require(try await server.admin.get("/v1/ad-networks?workspaceId=\(ws)").decoded(Page<AdNetwork>.self).items.first)
        let page = await visitor.send("GET", "/console/ad-networks?ws=\(ws)")
        #expect(page.bodyText.contains("example.adattributionkit") && page.bodyText.contains(network.publicKey))
        #expect(!page.bodyText.contains("PRIVATE KEY-----\n"), "the private key is never shown")
        let twice = await visitor.send("POST", "/console/ad-networks", form: [("csrf", csrf), ("ws", ws), ("adNetworkId", "example.adattributionkit")])
        #expect(twice.status == 409)
        await server.stop()
    }

    /// A fresh server and a visitor signed in with its admin key: the CSRF token and the default workspace's id.
    static func signedIn() async throws -> (server: TestServer, visitor: Visitor, csrf: String, ws: String) {
        let server = try await TestServer.start()
        let visitor = Visitor(server.application)
        _ = await visitor.signIn(key: server.adminKey)
        return (server, visitor, await visitor.csrf(), server.defaultWorkspace.id)
    }

    /// The schema form's fields as a browser would submit them: inputs with their values, checked boxes, selected options.
    static func formFields(_ html: String) -> [(String, String)] {
        var fields: [(String, String)] = []
        func attribute(_ name: String, in tag: Substring) -> String? {
            guard let start = tag.range(of: " \(name)=\"") else { return nil }
            return String(tag[start.upperBound...].prefix { $0 != "\"" })
        }
        var rest = Substring(html)
        while let open = [rest.range(of: "<input "), rest.range(of: "<select ")].compactMap({ $0 }).min(by: { $0.lowerBound < $1.lowerBound }) {
            let isSelect = rest[open].hasPrefix("<select")
            let end = isSelect ? (rest.range(of: "</select>", range: open.upperBound..<rest.endIndex)?.upperBound ?? rest.endIndex)
                               : (rest[open.upperBound...].firstIndex(of: ">") ?? rest.endIndex)
            let tag = rest[open.lowerBound..<end]
            rest = rest[end...]
            guard let name = attribute("name", in: tag), !["csrf", "ws", "app"].contains(name) else { continue }
            if isSelect {
                let options = tag.components(separatedBy: "<option ")
                let chosen = options.first { $0.contains(" selected") } ?? options.dropFirst().first ?? ""
                fields.append((name, attribute("value", in: Substring(" " + chosen)) ?? ""))
            } else if attribute("type", in: tag) == "checkbox" {
                if tag.contains(" checked") { fields.append((name, "on")) }
            } else {
                let value = attribute("value", in: tag) ?? ""
                fields.append((name, value.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
                    .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&amp;", with: "&")))
            }
        }
        return fields
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
