import Foundation
import LinkRunwayAPI
import RunwayCapabilities
import RunwayCrypto
import RunwayHTTP
import RunwayKit

/// What a console page handler returns.
enum ConsoleResult: Sendable {
    case page(ConsolePage)
    /// 303 to a console path (a notice rides along as `?notice=`).
    case redirect(String)
    case response(HTTPResponse)
}

struct ConsolePage: Sendable {
    var title: String
    var body: Markup
    var status = 200
    /// What was wrong with the form sent, listed at the top of the page.
    var problems: [FormProblem] = []
}

/// Everything a page handler gets: the request, the session, the API as the session's principal, the workspace shown.
struct ConsoleContext: Sendable {
    let request: HTTPRequest
    let parameters: [String: String]
    let session: ConsoleSession
    let api: ConsoleAPI
    let services: ServerServices
    let workspaces: [Workspace]
    let workspace: Workspace
    let format: ConsoleFormat

    var form: FormFields { request.formFields }

    func parameter(_ name: String) -> String { parameters[name] ?? "" }

    /// A console URL in the current workspace.
    func link(_ path: String, _ extra: [(String, String?)] = []) -> String {
        path + consoleQuery([("ws", workspace.id)] + extra)
    }

    /// The hidden field every form that changes something carries.
    var csrfField: Markup { "<input type=\"hidden\" name=\"csrf\" value=\"\(session.csrf)\">" }

    /// The apps of the workspace shown.
    func apps() async throws -> [App] { try await api.all("/v1/apps", query: [("workspaceId", workspace.id)], as: App.self) }
}

extension HTTPRequest {
    /// The form sent, URL-encoded or (with a file) multipart.
    var formFields: FormFields { FormFields(body, contentType: headers["Content-Type"]) }
}

typealias ConsoleHandler = @Sendable (ConsoleContext) async throws -> ConsoleResult

struct ConsoleRoute: Sendable {
    let method: HTTPMethod
    let pattern: String
    let handler: ConsoleHandler

    /// The path parameters when `path` fits the pattern (`/console/links/{id}`).
    func match(_ path: String) -> [String: String]? {
        let want = pattern.split(separator: "/"), have = path.split(separator: "/")
        guard want.count == have.count else { return nil }
        var parameters: [String: String] = [:]
        for (w, h) in zip(want, have) {
            if w.hasPrefix("{") { parameters[String(w.dropFirst().dropLast())] = String(h) } else if w != h { return nil }
        }
        return parameters
    }
}

/// The web console under `/console`: sessions, CSRF, security headers, then a page. Pages call the API's own handlers
/// as the signed-in principal (`ConsoleAPI`), so the console can show and change only what that principal may.
package struct ConsoleMiddleware: Middleware {
    let services: ServerServices
    let router: Router
    let pages: [ConsoleRoute]
    /// Ten sign-in attempts a minute per client address (in this process); five per email or key prefix are counted
    /// in the database (`SignInAttempts`), across processes.
    let attemptsByAddress: RateLimiter

    package init(services: ServerServices, router: Router) {
        self.services = services
        attemptsByAddress = RateLimiter(capacity: 10, perMinute: 10, clock: services.monotonic)
        self.router = router
        self.pages = ConsolePages.routes
    }

    /// The console's pages are its own, whatever the router holds.
    package func answersBeforeRouting(_ path: String) -> Bool { Self.isConsole(path) }

    static func isConsole(_ request: HTTPRequest) -> Bool { isConsole(request.path) }
    static func isConsole(_ path: String) -> Bool { path == "/console" || path.hasPrefix("/console/") }

    package func handle(_ request: HTTPRequest, context: RequestContext, next: Responder) async throws -> HTTPResponse {
        guard Self.isConsole(request) else { return try await next(request, context) }
        var response = await respond(request)
        Self.secure(&response, static: request.path.hasPrefix("/console/static/"))
        return response
    }

    static func secure(_ response: inout HTTPResponse, static isStatic: Bool) {
        response.headers.set("Content-Security-Policy",
                             "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
        response.headers.set("X-Content-Type-Options", "nosniff")
        response.headers.set("X-Frame-Options", "DENY")
        response.headers.set("Referrer-Policy", "same-origin")
        if response.headers["Cache-Control"] == nil { response.headers.set("Cache-Control", isStatic ? "public, max-age=3600" : "no-store") }
    }

    private func respond(_ request: HTTPRequest) async -> HTTPResponse {
        let format = ConsoleFormat(request: request)
        do {
            switch (request.method, request.path) {
            case ("GET", "/console/static/console.css"): return .text(ConsoleAssets.css, contentType: "text/css; charset=utf-8")
            case ("GET", "/console/static/console.js"): return .text(ConsoleAssets.script, contentType: "text/javascript; charset=utf-8")
            case ("GET", "/console/login"): return ConsoleLogin.page(request, error: nil)
            case ("POST", "/console/login"): return try await ConsoleLogin.signIn(request, middleware: self)
            default: break
            }
            guard let cookie = request.cookie(ConsoleSessions.cookieName),
                  let session = try await ConsoleSessions.find(cookie, services: services) else {
                guard request.method == "GET" || request.method == "HEAD" else {
                    return ConsoleLayout.bare(title: "Signed out", status: 403, body: "<p>Your session has ended. <a href=\"/console/login\">Sign in again</a>.</p>")
                }
                return Self.redirect("/console/login" + consoleQuery([("next", request.path)]))
            }
            if request.method == "POST" {
                guard Self.sameOrigin(request), let token = request.formFields["csrf"],
                      ConstantTime.equal(Array(token.utf8), Array(session.csrf.utf8)) else {
                    return ConsoleLayout.bare(title: "Refused", status: 403,
                                              body: "<p>This form was not sent from this console (its security token is missing or old). Go back, reload the page and try again.</p>")
                }
                if request.path == "/console/logout" {
                    try await ConsoleSessions.end(idHash: session.idHash, services: services)
                    var response = Self.redirect("/console/login")
                    response.headers.add("Set-Cookie", ConsoleLogin.clearedCookie(request))
                    return response
                }
            }
            return try await page(request, session: session, format: format)
        } catch let error as ConsoleAPIError {
            return ConsoleLayout.bare(title: error.status == 404 || error.status == 403 ? "Not found" : "Something went wrong",
                                      status: error.status == 403 ? 404 : error.status,
                                      body: error.status == 404 || error.status == 403
                                        ? "<p>This page does not exist, or it belongs to a workspace you cannot see.</p><p><a href=\"/console\">Back to the overview</a></p>"
                                        : "<p>\(error.message)</p>")
        } catch {
            services.logger.error("console error", ["error": .string(String(describing: error))])
            let mapped = ErrorMapping.httpError(for: error)
            return ConsoleLayout.bare(title: "Something went wrong", status: mapped.status >= 500 ? mapped.status : 500,
                                      body: "<p>The server could not answer this page. Try again in a moment.</p>")
        }
    }

    private func page(_ request: HTTPRequest, session: ConsoleSession, format: ConsoleFormat) async throws -> HTTPResponse {
        let method = request.method == "HEAD" ? "GET" : request.method
        guard let (route, parameters) = pages.lazy.compactMap({ route in route.match(request.path).map { (route, $0) } })
            .first(where: { $0.0.method.rawValue == method }) else {
            return ConsoleLayout.bare(title: "Not found", status: 404, body: "<p>There is no such page. <a href=\"/console\">Back to the overview</a></p>")
        }
        let api = ConsoleAPI(router: router, principal: session.principal,
                             idempotency: IdempotencyMiddleware(store: services.store, clock: services.clock))
        let workspaces: [Workspace]
        if let own = session.principal.workspaceId {
            workspaces = [try await api.get("/v1/workspaces/\(own)", as: Workspace.self)]
        } else {
            workspaces = try await api.all("/v1/workspaces", as: Workspace.self)
        }
        let chosen = request.queryValue("ws") ?? request.formFields["ws"]
        guard let workspace = chosen.map({ id in workspaces.first { $0.id == id } }) ?? workspaces.first else {
            throw ConsoleAPIError(status: 404, code: ErrorCode.notFound, message: "no such workspace", field: nil)
        }
        let context = ConsoleContext(request: request, parameters: parameters, session: session, api: api, services: services,
                                     workspaces: workspaces, workspace: workspace, format: format)
        switch try await route.handler(context) {
        case .page(let page): return ConsoleLayout.page(page, context: context)
        case .redirect(let location): return Self.redirect(location)
        case .response(let response): return response
        }
    }

    static func redirect(_ location: String) -> HTTPResponse {
        var response = HTTPResponse(status: 303)
        response.headers.set("Location", location)
        return response
    }

    /// A browser's Origin, when it sends one, must be this host.
    static func sameOrigin(_ request: HTTPRequest) -> Bool {
        guard let origin = request.headers["Origin"] else { return true }
        guard let host = request.headers["Host"], let url = URL(string: origin), let originHost = url.host else { return false }
        return originHost + (url.port.map { ":\($0)" } ?? "") == host
    }
}
