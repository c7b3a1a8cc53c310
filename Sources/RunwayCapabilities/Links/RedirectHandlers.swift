import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayJSON
import RunwayKit
import RunwayStore
import Synchronization

/// What a link domain serves: the links themselves (`GET /<path>`), Apple's and Android's association files.
struct RedirectHandlers: Sendable {
    let services: ServerServices

    /// The domain named by Host, or the same 404 the router gives for an unknown route.
    func domain(_ request: HTTPRequest) async throws -> LinkDirectory.DomainEntry {
        guard let host = request.hostName, let domain = try await services.links.domain(hostname: LinkDirectory.linkHostname(host)) else {
            throw RequestError.notFound("no route for \(request.method) \(request.path)")
        }
        return domain
    }

    /// `/v1` and below are the API's, whose clients expect its JSON error, never a link page: no link may take such a
    /// path, so one that reaches here is a route that does not exist.
    static func isAPIPath(_ path: String) -> Bool {
        path.utf8.starts(with: "v1".utf8) && (path.utf8.count == 2 || path.utf8.dropFirst(2).first == UInt8(ascii: "/"))
    }

    func follow(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let path = context.parameters["path"] ?? ""
        if Self.isAPIPath(path) { throw RequestError.notFound("no route for \(request.method) \(request.path)") }
        let domain = try await domain(request)
        let found = path.isEmpty ? nil : try await services.links.link(domain: domain.hostname, path: path)
        guard let link = Self.usable(found, on: domain) else { return LinkPages.notFound() }
        let app = try await link.appId.asyncMap { try await services.apps.app(id: $0) } ?? nil
        var limitChecked = false
        while true {
            switch plan(request, link: link, app: app, limitChecked: limitChecked) {
            case .answer(let response):
                return response
            case .click(let visit, let respond):
                return respond(try await Clicks.record(visit, of: link, services: services))
            case .reserveClicks:
                try await services.clickAllowances.reserve(link)
            case .checkClickLimit:
                _ = try await services.clickAllowances.learn(link)
                limitChecked = true
            }
        }
    }

    /// The same answer on libmicrohttpd's thread, from what this process has cached (the domain, the link, its app,
    /// the day's address key, the webhook subscriptions); nil when anything is not cached, and the asynchronous path
    /// does it all. A click is handed to the group-committing writer, and the 302 goes out once it is durable.
    func followImmediately(_ request: HTTPRequest, _ context: RequestContext) -> HTTPResponse? {
        // An unknown host gets the router's 404 from the asynchronous path.
        let path = context.parameters["path"] ?? ""
        guard !Self.isAPIPath(path), let host = request.hostName,
              case .some(let cachedDomain) = services.links.cachedDomain(hostname: LinkDirectory.linkHostname(host)),
              let domain = cachedDomain else { return nil }
        var found: LinkRecord?
        if !path.isEmpty {
            guard case .some(let cached) = services.links.cachedLink(domain: domain.hostname, path: path) else { return nil }
            found = cached
        }
        guard let link = Self.usable(found, on: domain) else { return LinkPages.notFound() }
        var app: App?
        if let appId = link.appId {
            guard case .some(let cached) = services.apps.cachedApp(id: appId) else { return nil }
            app = cached
        }
        switch plan(request, link: link, app: app) {
        case .answer(let response):
            return response
        case .reserveClicks, .checkClickLimit:
            return nil
        case .click(let visit, let respond):
            guard let click = Clicks.prepareFromCache(visit, of: link, services: services) else {
                services.clickAllowances.giveBack(link)
                return nil
            }
            var response = respond(click.token)
            response.release = ResponseRelease { response, done in
                // Answered off the writer's thread (the store hands a commit's completions over together).
                click.write(to: services.store) { error in
                    if let error {
                        done(ErrorMapping.httpError(for: error).response)
                    } else {
                        click.counted()
                        done(response)
                    }
                }
            }
            return response
        }
    }

    /// A link this domain serves: enabled, and of the domain's workspace.
    static func usable(_ link: LinkRecord?, on domain: LinkDirectory.DomainEntry) -> LinkRecord? {
        guard let link, link.enabled, link.workspaceId == domain.workspaceId else { return nil }
        return link
    }

    /// What following a link comes to, once the link and its app are known: an answer, a click to store first and
    /// the answer to give with its token, or, for a capped link, places to reserve (a click) or the limit to read
    /// (HEAD and prefetches, which take none) before it can say.
    enum Plan {
        case answer(HTTPResponse)
        case click(Clicks.Visit, respond: @Sendable (String) -> HTTPResponse)
        case reserveClicks
        case checkClickLimit
    }

    /// The order of precedence is docs/links.md's table: a link not yet started or expired, then previews and bots,
    /// then the rules' choice for everyone else, HEAD and prefetches answered without a click, then the click limit.
    /// `limitChecked`: the store was just read for the click limit, so HEAD and prefetches answer what this process now knows.
    func plan(_ request: HTTPRequest, link: LinkRecord, app: App?, limitChecked: Bool = false) -> Plan {
        let now = services.clock.nowMilliseconds()
        if let closed = LinkGates.closed(link, at: now, metrics: services.metrics) { return .answer(closed) }
        let appStore = (link.iosAppStoreId ?? app?.appStoreId).map { "https://apps.apple.com/app/id\($0)" }
        let automated = services.automatedClients
        let userAgent = request.headers["User-Agent"]
        let client = automated.classify(userAgent).referred(by: request.headers["Referer"])
        let routing = link.routing.value ?? LinkRouting(link)
        var facts = RequestFacts(client: client, userAgent: userAgent, acceptLanguage: request.headers["Accept-Language"],
                                 address: request.remoteAddress, countries: services.countries, now: now)
        var random = SystemRandomNumberGenerator()
        let choice = routing.choose(&facts, random: &random)
        let shown = choice.variant?.preview.map { link.showing($0) } ?? link
        if case .crawler(let token) = client {
            services.metrics.increment("linkrunway_link_previews_total")
            AutomatedVisits.count(automated.kind(of: token), agent: token, link: link, services: services)
            return .answer(LinkPages.preview(link: shown, url: link.url(services), appName: app?.name,
                                             target: choice.destination?.tagged ?? routing.web?.tagged ?? appStore))
        }
        let query = link.passQuery ? request.query.filter { !LinkRouting.markers.contains($0.name) } : []
        let (target, interstitialStore, web) = routing.target(choice, client: client, appStore: appStore, interstitial: link.interstitial, query: query)
        guard let target else { return .answer(LinkPages.noDestination()) }
        // The click of this link's "open in the app" page, followed again from a browser: its answer, not a second click.
        if let continued = continuedClick(request, link: link) {
            guard let store = interstitialStore else { return .answer(Self.redirect(to: target)) }
            return .answer(LinkPages.interstitial(link: shown, appName: app?.name, appStore: store, web: web, signedClickId: continued))
        }
        // People in an app's own browser, on a link that asks for it: the page that helps them out, given the click.
        let exit = link.inAppBrowserPage && (app != nil || appStore != nil) ? client.inAppBrowser : nil
        let exitPage: (@Sendable (String) -> HTTPResponse)? = exit.map { [services, app] exit in
            let android = client.platform == "android"
            let url = link.url(services)
            let store = interstitialStore ?? appStore
            return { signedClickId in
                let continueURL = signedClickId.isEmpty ? url : appendingQuery(url, [(LinkRouting.continueMarker, signedClickId)])
                return LinkPages.inAppBrowser(link: shown, appName: app?.name, exit: LinkPages.InAppBrowserExit(
                    inApp: exit, android: android, continueURL: continueURL, appStore: store,
                    androidPackage: app?.android?.packageName, signedClickId: signedClickId))
            }
        }
        // HEAD asks what would happen without it happening, and a prefetch may never be followed: the same answer, no
        // click (so no click id on the page), counted as a bot or a preview.
        let prefetch = AutomatedClients.isPrefetch(purpose: request.headers["Purpose"], secPurpose: request.headers["Sec-Purpose"])
        guard request.method != "HEAD" && !prefetch else {
            let limit = link.clickLimit == nil ? .granted : services.clickAllowances.peek(link)
            if limit == .unknown && !limitChecked { return .checkClickLimit }
            AutomatedVisits.count(prefetch ? .preview : .bot, agent: prefetch ? AutomatedVisits.prefetchAgent : AutomatedVisits.headAgent,
                                  link: link, services: services)
            if limit == .exhausted { return .answer(LinkGates.overLimit(link, metrics: services.metrics)) }
            if let exitPage { return .answer(exitPage("")) }
            guard let store = interstitialStore else { return .answer(Self.redirect(to: target)) }
            return .answer(LinkPages.interstitial(link: shown, appName: app?.name, appStore: store, web: web, signedClickId: ""))
        }
        switch link.clickLimit == nil ? .granted : services.clickAllowances.take(link) {
        case .granted: break
        case .exhausted: return .answer(LinkGates.overLimit(link, metrics: services.metrics))
        case .unknown: return .reserveClicks
        }
        let visit = Clicks.Visit(kind: "click", platform: client.platform, osVersion: client.osVersion, address: request.remoteAddress,
                                 referrerHost: request.referrerHost, installId: nil, variant: choice.variant?.name, country: facts.country,
                                 qr: request.queryValue(LinkRouting.qrMarker) == "1", inAppBrowser: client.inAppBrowser?.rawValue)
        let appName = app?.name
        return .click(visit) { token in
            if let exitPage { return exitPage(Clicks.signedClickId(token: token, link: link, services: services)) }
            if let store = interstitialStore {
                return LinkPages.interstitial(link: shown, appName: appName, appStore: store, web: web,
                                              signedClickId: Clicks.signedClickId(token: token, link: link, services: services))
            }
            return Self.redirect(to: target)
        }
    }

    /// The signed click of this link that the request carries (`LinkRouting.continueMarker`), if it is valid.
    func continuedClick(_ request: HTTPRequest, link: LinkRecord) -> String? {
        guard let text = request.queryValue(LinkRouting.continueMarker),
              case .success(let click) = SignedClickId.verify(text, key: services.secrets.clickSigningKey, now: services.clock.now()),
              click.linkId == link.id else { return nil }
        return text
    }

    static func redirect(to target: String) -> HTTPResponse {
        if let known = redirects.withLock({ $0[target] }) { return HTTPResponse(known) }
        var response = HTTPResponse(status: 302)
        response.headers.set("Location", target)
        response.headers.set("Cache-Control", "no-store")
        response.headers.set("Referrer-Policy", "no-referrer")
        let prepared = PreparedResponse(response)
        redirects.withLock { redirects in
            if redirects.count >= redirectLimit { redirects.removeAll(keepingCapacity: true) }
            redirects[target] = prepared
        }
        return HTTPResponse(prepared)
    }

    /// The 302s sent lately, by target, prepared once so the transport sends each without making it again; emptied
    /// when full.
    private static let redirects = Mutex<[String: PreparedResponse]>([:])
    private static let redirectLimit = 4096

    /// Most paths an app's entry lists one by one before it claims the whole domain instead.
    static let componentLimit = 500

    /// `applinks` for the apps of the domain's workspace that have links on it: each app claims its links' paths
    /// (matched without case), or the whole domain but the server's own routes when it has very many.
    func appleAppSiteAssociation(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let domain = try await domain(request)
        // Cached per domain until one of its links or an app changes: every unauthenticated GET would read them all.
        let body = try await services.links.association(hostname: domain.hostname) { [services] in
            let now = services.clock.nowMilliseconds()
            let rows = try await services.store.read { db in try LinkQueries.associatedPaths(db, domain, now: now) }
            return Self.association(rows).serializedBytes()
        }
        var response = HTTPResponse(status: 200, body: body)
        response.headers.set("Content-Type", "application/json")
        response.headers.set("Cache-Control", "public, max-age=3600")
        return response
    }

    /// The association file's JSON for a domain's links.
    static func association(_ rows: [(appID: String, platforms: String, path: String)]) -> JSONValue {
        var order: [String] = []
        var paths: [String: [String]] = [:]
        for row in rows where row.platforms.split(separator: ",").contains(where: { $0 != "tvos" }) {
            if paths[row.appID] == nil { order.append(row.appID) }
            paths[row.appID, default: []].append(row.path)
        }
        let details: [JSONValue] = order.map { appID in
            let appPaths = paths[appID] ?? []
            let components: [JSONValue]
            if appPaths.count > componentLimit {
                components = LinkValidate.reservedSegments.sorted().map { .object([("/", .string("/\($0)/*")), ("exclude", true)]) }
                    + [.object([("/", "/*"), ("caseSensitive", false)])]
            } else {
                components = appPaths.map { .object([("/", .string("/\($0)")), ("caseSensitive", false)]) }
            }
            return .object([("appIDs", .array([.string(appID)])), ("components", .array(components))])
        }
        return .object([("applinks", .object([("details", .array(details))]))])
    }

    /// Digital Asset Links for the workspace's apps that have an Android identity.
    func assetLinks(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let domain = try await domain(request)
        let apps = try await services.store.read { db in try LinkQueries.androidApps(db, workspaceId: domain.workspaceId) }
        guard !apps.isEmpty else { throw RequestError.notFound("no Android app is configured for \(domain.hostname)") }
        let statements: [JSONValue] = apps.compactMap(\.android).map { android in
            .object([
                ("relation", ["delegate_permission/common.handle_all_urls"]),
                ("target", .object([("namespace", "android_app"), ("package_name", .string(android.packageName)),
                                    ("sha256_cert_fingerprints", .array(android.sha256CertFingerprints.map { .string($0) }))])),
            ])
        }
        var response = HTTPResponse.json(.array(statements))
        response.headers.set("Cache-Control", "public, max-age=3600")
        return response
    }
}

