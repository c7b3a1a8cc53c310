import Foundation
import LinkRunwayAPI
import RunwayCapabilities
import RunwayCrypto
import RunwayHTTP
import RunwayKit

/// Signing in with an admin or server key, or a console user's email and password.
enum ConsoleLogin {
    static let loginCookie = "lr_login"

    /// The sign-in page; its forms carry a token that must match a cookie set here (no session exists yet).
    static func page(_ request: HTTPRequest, error: String?, status: Int = 200) -> HTTPResponse {
        let token = request.cookie(loginCookie) ?? ByteEncoding.base64url(SecureRandom.bytes(18))
        let next = request.queryValue("next") ?? FormFields(request.body)["next"] ?? "/console"
        let hidden: Markup = "<input type=\"hidden\" name=\"login_csrf\" value=\"\(token)\"><input type=\"hidden\" name=\"next\" value=\"\(next)\">"
        // A refused sign-in is announced like any refused form: a focused summary, and "Error:" in the title.
        let notice = ConsoleForms.summary(error.map { [FormProblem(fieldId: nil, message: $0)] } ?? [])
        let body: Markup = """
            \(notice)
            <div class="columns">
            <form method="post" action="/console/login" class="card">
              <h2>With a key</h2>
              \(hidden)<input type="hidden" name="method" value="key">
              <label for="key">Admin or server key</label>
              <input id="key" name="key" type="password" autocomplete="off" required placeholder="lr_ak_… or lr_sk_…">
              <button type="submit">Sign in</button>
            </form>
            <form method="post" action="/console/login" class="card">
              <h2>With a password</h2>
              \(hidden)<input type="hidden" name="method" value="password">
              <label for="email">Email</label>
              <input id="email" name="email" type="email" autocomplete="username" required>
              <label for="password">Password</label>
              <input id="password" name="password" type="password" autocomplete="current-password" required>
              <button type="submit">Sign in</button>
            </form>
            </div>
            <p class="hint">Users are added with <code>linkrunway user create</code>. Keys are never stored in your browser: the console keeps a session cookie for at most 12 hours (2 idle).</p>
            """
        var response = ConsoleLayout.bare(title: "Sign in", status: status, body: body, refused: error != nil)
        response.headers.add("Set-Cookie", "\(loginCookie)=\(token); Path=/console; HttpOnly; SameSite=Strict; Max-Age=3600" + secureFlag(request))
        return response
    }

    static func signIn(_ request: HTTPRequest, middleware: ConsoleMiddleware) async throws -> HTTPResponse {
        let form = FormFields(request.body)
        guard let cookie = request.cookie(loginCookie), let sent = form["login_csrf"],
              ConstantTime.equal(Array(cookie.utf8), Array(sent.utf8)), ConsoleMiddleware.sameOrigin(request) else {
            return page(request, error: "The sign-in form was old or not from this console. Try again.", status: 403)
        }
        // The limits apply before any hashing: per address (IPv6 by /64), per account from that address, and per account
        // from anywhere once it has failed many times (a back-off, so guesses spread over many addresses stay slow
        // while the owner is only delayed, never locked out).
        let address = AddressBucket.key(for: request.remoteAddress ?? "unknown")
        let account = form.text("email")?.lowercased() ?? String((form.text("key") ?? "").prefix(14))
        let byAddress = middleware.attemptsByAddress.take("address:" + address)
        var wait: Int? = if let byAddress { byAddress } else { try await SignInAttempts.limited(account, from: address, services: middleware.services) }
        if wait == nil { wait = try await SignInAttempts.backoff(account, services: middleware.services) }
        if let wait {
            var response = page(request, error: "Too many attempts. Wait \(wait) seconds and try again.", status: 429)
            response.headers.set("Retry-After", String(wait))
            return response
        }
        let services = middleware.services
        var principal: Principal?
        var userId: String?
        if form["method"] == "key", let key = form.text("key") {
            if case .valid(let found) = try await services.authenticator.authenticate(key), found.kind != .publishable {
                principal = found
            }
        } else if form["method"] == "password", let email = form.text("email")?.lowercased(), let password = form["password"] {
            let row = try await services.store.read { db in
                try db.first("SELECT id, workspace_id, password_hash FROM console_users WHERE email = \(email)", as: UserCredentials.self)
            }
            let stored = row?.passwordHash ?? Passwords.decoy
            guard let matches = await services.passwords.run({ Passwords.verify(password, against: stored) }) else {
                var response = page(request, error: "Sign-ins are busy. Try again in a second.", status: 503)
                response.headers.set("Retry-After", "1")
                return response
            }
            if matches, let row {
                userId = row.id
                principal = Principal(keyId: row.id, kind: .server, workspaceId: row.workspaceId, appId: nil)
            }
        }
        guard let principal else {
            try await SignInAttempts.recordFailure(account, services: services)
            return page(request, error: "That key, email or password is not right.", status: 401)
        }
        try await SignInAttempts.clearFailures(account, services: services)
        let session = try await ConsoleSessions.start(principal: principal, userId: userId, keyId: userId == nil ? principal.keyId : nil,
                                                     services: services)
        let next = form["next"].flatMap { $0.hasPrefix("/console") && !$0.contains("//") && !$0.contains("\\") ? $0 : nil } ?? "/console"
        var response = ConsoleMiddleware.redirect(next)
        response.headers.add("Set-Cookie", "\(ConsoleSessions.cookieName)=\(session); Path=/console; HttpOnly; SameSite=Strict; Max-Age=\(ConsoleSessions.absoluteMilliseconds / 1000)"
                             + secureFlag(request))
        response.headers.add("Set-Cookie", "\(loginCookie)=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0")
        return response
    }

    static func clearedCookie(_ request: HTTPRequest) -> String {
        "\(ConsoleSessions.cookieName)=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0" + secureFlag(request)
    }

    /// `; Secure` when the browser came over TLS (through a trusted proxy).
    static func secureFlag(_ request: HTTPRequest) -> String { request.scheme == "https" ? "; Secure" : "" }

    private struct UserCredentials: Decodable {
        let id: String
        let workspaceId: String
        let passwordHash: String
    }
}
