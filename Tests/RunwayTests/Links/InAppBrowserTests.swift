import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
import RunwayHTTP
@testable import RunwayKit
@testable import RunwayOutbound
@testable import RunwayServer
import RunwayTestKit
import Testing

/// People who follow a link inside Instagram, TikTok and the rest: the click names the app, rules and figures can use
/// it, and a link that asks gives them a page with the ways out of the app's browser instead of a redirect it
/// cannot follow into the app.
@Suite("In-app browsers")
struct InAppBrowserTests {
    static let instagram = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 356.0.0.23.109 (iPhone15,3; iOS 18_1; en_US; en; scale=3.00; 1290x2796; 654932120; IABMV/1)"
    static let tiktokAndroid = "Mozilla/5.0 (Linux; Android 13; Pixel 7 Build/TQ3A.230805.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/116.0.0.0 Mobile Safari/537.36 trill_2023105030 JsSdk/1.0 AppName/trill BytedanceWebview/d8a21c6"
    static let safari = UserAgents.iPhone

    /// A server whose default app also has an Android package, and a link to it that asks for the page.
    static func world(_ backend: StoreBackend = .sqlite, page: Bool = true) async throws -> (TestServer, Link) {
        let server = try await TestServer.start(backend)
        let ws = server.defaultWorkspace.id
        _ = try await server.admin.post("/v1/apps", CreateAppRequest(
            workspaceId: ws, name: "Example", teamId: "ABCDE12345", bundleId: "com.example.app", appStoreId: "123456789", platforms: [.ios],
            android: AndroidApp(packageName: "com.example.droid", sha256CertFingerprints: [String(repeating: "AB:", count: 31) + "AB"])
        )).decoded(App.self, status: 201)
        let link = try await server.createLink(CreateLinkRequest(
            workspaceId: ws, path: "promo", appPath: "/promo",
            destinations: LinkDestinations(android: .init(url: "https://play.google.com/store/apps/details?id=com.example.droid"), web: "https://example.com/promo"),
            inAppBrowserPage: page))
        return (server, link)
    }

    /// An attribute of the element with this id, unescaped, or nil.
    static func attribute(_ name: String, of id: String, in html: String) -> String? {
        guard let tag = html.components(separatedBy: "<").first(where: { $0.contains(" id=\"\(id)\"") }) else { return nil }
        return tag.components(separatedBy: " \(name)=\"").dropFirst().first?.components(separatedBy: "\"").first
            .map { $0.replacingOccurrences(of: "&amp;", with: "&") }
    }

    @Test("Instagram on iPhone gets the page, not the redirect: Safari with the same click, the App Store, the link to copy; one click named instagram",
          arguments: StoreBackend.all)
    func iosPage(_ backend: StoreBackend) async throws {
        let (server, link) = try await Self.world(backend)
        defer { Task { await server.stop() } }
        let page = await server.follow("/promo", userAgent: Self.instagram)
        #expect(page.status == 200 && page.headers["Content-Type"]?.hasPrefix("text/html") == true, "\(page.status)")
        #expect(page.headers["Cache-Control"] == "no-store")
        let html = page.bodyText
        #expect(html.contains("You are in Instagram\u{2019}s own browser, which cannot open Example."))
        let safari = try #require(Self.attribute("href", of: "open", in: html))
        #expect(safari.hasPrefix("x-safari-http://localhost/promo?lr_continue="), "\(safari)")
        #expect(Self.attribute("href", of: "get", in: html) == "https://apps.apple.com/app/id123456789")
        let signed = try #require(Self.attribute("data-click", of: "get", in: html))
        #expect(Self.attribute("data-link", of: "copy", in: html) == "http://localhost/promo?lr_continue=" + signed)
        #expect(safari == "x-safari-http://localhost/promo?lr_continue=" + signed)
        #expect(html.contains("Open in external browser"), "Instagram's own menu is named")
        let click = try SignedClickId.verify(signed, key: server.services.secrets.clickSigningKey, now: Date()).get()
        #expect(click.linkId == link.id)
        let clicks = try await server.clicks()
        #expect(try clicks.map { try $0.string("token") } == [click.clickToken])
        #expect(try clicks.map { try $0.optionalString("in_app_browser") } == ["instagram"])
        #expect(try clicks[0].optionalString("os_version") == "18.1")
    }

    @Test("the continue link opened in Safari answers as the link does and counts no second click; a forged or another link's one is a new click")
    func continued() async throws {
        let (server, link) = try await Self.world()
        defer { Task { await server.stop() } }
        _ = try await server.createLink(CreateLinkRequest(workspaceId: server.defaultWorkspace.id, path: "other",
                                                                         destinations: LinkDestinations(web: "https://example.com/o"), inAppBrowserPage: true))
        let signed = try #require(Self.attribute("data-click", of: "get", in: await server.follow("/promo", userAgent: Self.instagram).bodyText))
        let followed = await server.follow("/promo?lr_continue=\(signed)", userAgent: Self.safari)
        #expect(followed.status == 302 && followed.headers["Location"] == "https://apps.apple.com/app/id123456789", "\(followed.status)")
        #expect(try await server.clicks().count == 1, "the same click, followed from Safari")
        // Opened again inside the app's browser, it is still the page, not another click.
        let again = await server.follow("/promo?lr_continue=\(signed)", userAgent: Self.instagram)
        #expect(again.status == 302, "a continued click is answered as the link, whatever browser holds it")
        #expect(try await server.clicks().count == 1)
        // A token that does not verify, or one of another link, is just a query parameter: a click of its own.
        // The first character: every one of its bits is the payload's (the last one's may be only padding).
        let forged = (signed.hasPrefix("A") ? "B" : "A") + String(signed.dropFirst())
        #expect(await server.follow("/promo?lr_continue=\(forged)", userAgent: Self.safari).status == 302)
        let elsewhere = try #require(Self.attribute("data-link", of: "copy", in: await server.follow("/other", userAgent: Self.instagram).bodyText))
        #expect(elsewhere.contains("/other?lr_continue="))
        let foreign = try #require(elsewhere.components(separatedBy: "lr_continue=").last)
        #expect(await server.follow("/promo?lr_continue=\(foreign)", userAgent: Self.safari).status == 302)
        // The marker is the server's own: never passed on to a destination.
        _ = try await server.createLink(CreateLinkRequest(workspaceId: server.defaultWorkspace.id, path: "passing",
                                                                         destinations: LinkDestinations(web: "https://example.com/p"), passQuery: true))
        #expect(await server.follow("/passing?lr_continue=\(signed)&a=1", userAgent: UserAgents.desktop).headers["Location"] == "https://example.com/p?a=1")
        let clicks = try await server.clicks().filter { try $0.optionalString("platform") != "desktop" }
        #expect(clicks.count == 4, "instagram, forged, other link's page, foreign token")
        #expect(try clicks.filter { try $0.string("link_id") == link.id }.map { try $0.optionalString("in_app_browser") } == ["instagram", nil, nil])
    }

    @Test("TikTok on Android gets an intent for the app's package that falls back to the link; HEAD and prefetch get the page and count nothing")
    func androidPage() async throws {
        let (server, _) = try await Self.world()
        defer { Task { await server.stop() } }
        let head = await server.follow("/promo", userAgent: Self.tiktokAndroid, method: "HEAD")
        #expect(head.status == 200)
        let prefetch = await server.follow("/promo", userAgent: Self.tiktokAndroid, headers: [("Sec-Purpose", "prefetch")])
        #expect(prefetch.status == 200 && !prefetch.bodyText.contains("lr_continue"), "no click, so no click on the page")
        #expect(try await server.clicks().isEmpty)
        let html = await server.follow("/promo", userAgent: Self.tiktokAndroid).bodyText
        #expect(html.contains("You are in TikTok\u{2019}s own browser"))
        let intent = try #require(Self.attribute("href", of: "open", in: html))
        let copied = try #require(Self.attribute("data-link", of: "copy", in: html))
        let rest = try #require(copied.components(separatedBy: "http://").last)
        let fallback = try #require(copied.addingPercentEncoding(withAllowedCharacters: CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))))
        #expect(intent == "intent://\(rest)#Intent;scheme=http;package=com.example.droid;S.browser_fallback_url=\(fallback);end", "\(intent)")
        #expect(Self.attribute("href", of: "get", in: html) == nil, "Android's intent opens the app or its store itself")
        #expect(try await server.clicks().map { try $0.optionalString("in_app_browser") } == ["tiktok"])
    }

    @Test("Gmail's custom tab on Android, named by its Referer, gets the page and its click is named gmail")
    func gmail() async throws {
        let (server, _) = try await Self.world()
        defer { Task { await server.stop() } }
        let page = await server.follow("/promo", userAgent: UserAgents.android, headers: [("Referer", "android-app://com.google.android.gm/")])
        #expect(page.status == 200 && page.bodyText.contains("You are in Gmail\u{2019}s own browser"), "\(page.status)")
        #expect(await server.follow("/promo", userAgent: UserAgents.android).status == 302, "Chrome itself is redirected")
        #expect(try await server.clicks().map { try $0.optionalString("in_app_browser") } == ["gmail", nil])
    }

    @Test("without the page, or with no app to open, the in-app browser is redirected as any browser is, its click still named")
    func noPage() async throws {
        let (server, _) = try await Self.world(page: false)
        defer { Task { await server.stop() } }
        // With a second app in the workspace, a link that names none opens no app.
        _ = try await server.createApp(in: server.defaultWorkspace.id, bundleId: "com.example.other")
        let web = try await server.createLink(CreateLinkRequest(workspaceId: server.defaultWorkspace.id, path: "web-only",
                                                                               destinations: LinkDestinations(web: "https://example.com/w"), inAppBrowserPage: true))
        #expect(web.inAppBrowserPage && web.appId == nil)
        #expect(await server.follow("/promo", userAgent: Self.instagram).headers["Location"] == "https://apps.apple.com/app/id123456789")
        #expect(await server.follow("/web-only", userAgent: Self.instagram).headers["Location"] == "https://example.com/w")
        #expect(await server.follow("/promo", userAgent: Self.safari).status == 302)
        #expect(try await server.clicks().map { try $0.optionalString("in_app_browser") } == ["instagram", "instagram", nil])
    }

    @Test("a rule on in-app browsers: named apps, any of them, none; an unknown app is refused beside its field")
    func rules() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let ws = server.defaultWorkspace.id
        let web = LinkDestinations(web: "https://example.com")
        _ = try await server.createLink(CreateLinkRequest(workspaceId: ws, path: "ruled", destinations: web, rules: [
            LinkRule(when: LinkCondition(inAppBrowsers: ["tiktok", "instagram"]), url: "https://example.com/social"),
            LinkRule(when: LinkCondition(inAppBrowsers: ["any"]), url: "https://example.com/other-app"),
            LinkRule(when: LinkCondition(platforms: ["ios"], inAppBrowsers: ["none"]), url: "https://example.com/browser"),
        ]))
        #expect(await server.follow("/ruled", userAgent: Self.instagram).headers["Location"] == "https://example.com/social")
        #expect(await server.follow("/ruled", userAgent: Self.tiktokAndroid).headers["Location"] == "https://example.com/social")
        #expect(await server.follow("/ruled", userAgent: UserAgents.facebookInApp).headers["Location"] == "https://example.com/other-app")
        #expect(await server.follow("/ruled", userAgent: Self.safari).headers["Location"] == "https://example.com/browser")
        #expect(await server.follow("/ruled", userAgent: UserAgents.desktop).headers["Location"] == "https://example.com")
        let bad = try await server.admin.post("/v1/links", CreateLinkRequest(workspaceId: ws, path: "bad", destinations: web, rules: [
            LinkRule(when: LinkCondition(inAppBrowsers: ["myspace"]), url: "https://example.com/x"),
        ]))
        #expect(bad.status == 400 && bad.errorField == "rules[0].when.inAppBrowsers[0]", "\(bad.bodyText)")
        let empty = try await server.admin.post("/v1/links", CreateLinkRequest(workspaceId: ws, path: "bad", destinations: web, rules: [
            LinkRule(when: LinkCondition(inAppBrowsers: []), url: "https://example.com/x"),
        ]))
        #expect(empty.status == 400 && empty.errorField == "rules[0].when.inAppBrowsers", "\(empty.bodyText)")
        let flag = await server.admin.post("/v1/links", json: #"{"workspaceId":"\#(ws)","path":"bad","inAppBrowserPage":"yes","destinations":{"web":"https://example.com"}}"#)
        #expect(flag.status == 400 && flag.errorField == "inAppBrowserPage", "\(flag.bodyText)")
    }

    @Test("the link's figures, its CSV, the funnel and the click webhook name the in-app browser", arguments: StoreBackend.all)
    func figures(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend, outbound: WebhookTests.privateNetwork)
        defer { Task { await server.stop() } }
        let ws = server.defaultWorkspace.id
        let receiver = try WebhookTests.Receiver(failures: 0)
        defer { Task { await receiver.server.shutdown() } }
        _ = try await server.admin.post("/v1/webhooks", CreateWebhookRequest(workspaceId: ws, url: receiver.url, topics: ["click"]))
            .decoded(CreatedWebhook.self, status: 201)
        let link = try await server.createLink(CreateLinkRequest(workspaceId: ws, path: "counted", destinations: LinkDestinations(web: "https://example.com")))
        for agent in [Self.instagram, Self.instagram, Self.tiktokAndroid, Self.safari] {
            #expect(await server.follow("/counted", userAgent: agent).status == 302)
        }
        let stats = try await server.admin.get("/v1/links/\(link.id)/stats").decoded(LinkStats.self)
        let rows = stats.breakdowns.first { $0.dimension == "inAppBrowser" }?.rows ?? []
        #expect(Dictionary(uniqueKeysWithValues: rows.map { ($0.key, $0.clicks) }) == ["instagram": 2, "tiktok": 1, "(none)": 1], "\(rows)")
        let csv = await server.admin.get("/v1/links/\(link.id)/stats", headers: [("Accept", "text/csv")]).bodyText
        #expect(csv.contains("inAppBrowser,instagram,2,"), "\(csv)")
        let funnel = try await server.admin.get("/v1/reports/funnel?groupBy=inAppBrowser&workspaceId=\(ws)").decoded(FunnelReport.self)
        #expect(funnel.groupBy == "inAppBrowser")
        #expect(Dictionary(uniqueKeysWithValues: funnel.rows.map { ($0.key, $0.clicks) }) == ["instagram": 2, "tiktok": 1, "(none)": 1], "\(funnel.rows)")
        let dispatcher = OutboxDispatcher(services: server.services, queue: Webhooks.outbox, settings: .init(baseDelayMilliseconds: 0, timeoutSeconds: 60))
        #expect(try await dispatcher.sendDue() == 4)
        let named = try receiver.requests.map { request -> String? in
            let data = try #require((try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])?["data"] as? [String: Any])
            return data["inAppBrowser"] as? String
        }
        #expect(named.sorted { ($0 ?? "") < ($1 ?? "") } == [nil, "instagram", "instagram", "tiktok"], "\(named)")
    }
}
