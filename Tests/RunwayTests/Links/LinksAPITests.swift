import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayCrypto
import RunwayHTTP
@testable import RunwayKit
import RunwayOutbound
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

@Suite("Links")
struct LinksAPITests {
    static func fixture(_ backend: StoreBackend = .sqlite) async throws -> (TestServer, App) {
        let server = try await TestServer.start(backend)
        let app = try await server.createApp(in: server.defaultWorkspace.id)
        return (server, app)
    }

    @Test("each kind of client goes where it belongs, the click is recorded first, paths ignore case", arguments: StoreBackend.all)
    func clientClasses(_ backend: StoreBackend) async throws {
        let (server, app) = try await Self.fixture(backend)
        let link = try await server.createLink(CreateLinkRequest(
            workspaceId: server.defaultWorkspace.id, path: "Summer", appPath: "/promo/summer",
            destinations: LinkDestinations(android: .init(url: "https://play.google.com/store/apps/details?id=com.example"), web: "https://example.com/summer")))
        #expect(link.appId == app.id)
        #expect(link.url == "http://localhost/Summer", "the local domain's links are plain http (no port known in process)")

        let ios = await server.follow("/summer", userAgent: UserAgents.iPhone, headers: [("Referer", "https://news.example.org/a/b?c=d")])
        #expect(ios.status == 302)
        #expect(ios.headers["Location"] == "https://apps.apple.com/app/id123456789")
        #expect(ios.headers["Cache-Control"] == "no-store")
        let android = await server.follow("/SUMMER", userAgent: UserAgents.android)
        #expect(android.headers["Location"] == "https://play.google.com/store/apps/details?id=com.example")
        let desktop = await server.follow("/Summer", userAgent: UserAgents.desktop)
        #expect(desktop.headers["Location"] == "https://example.com/summer")
        let inApp = await server.follow("/summer", userAgent: UserAgents.facebookInApp)
        #expect(inApp.status == 302, "an in-app browser is a person, not a crawler")

        let clicks = try await server.clicks()
        #expect(clicks.count == 4)
        #expect(try clicks.map { try $0.string("platform") } == ["ios", "android", "desktop", "ios"])
        #expect(try clicks[0].optionalString("os_version") == "17.4")
        #expect(try clicks[1].optionalString("os_version") == "14")
        #expect(try clicks[0].optionalString("referrer_host") == "news.example.org")
        let hash = try #require(try clicks[0].optionalString("address_hash"))
        #expect(hash.count == 32 && !hash.contains("203.0.113.7"))
        #expect(try clicks.allSatisfy { try $0.optionalString("address_hash") == hash }, "one address, one hash within a day")
        #expect(try clicks.allSatisfy { try $0.string("token").count == 32 && $0.string("kind") == "click" })
        #expect(Set(try clicks.map { try $0.string("token") }).count == 4)

        // A host that is not a link domain is the API's plain 404.
        let elsewhere = await server.follow("/summer", userAgent: UserAgents.iPhone, host: "api.internal")
        #expect(elsewhere.status == 404)
        #expect(elsewhere.errorCode == "not_found")
        await server.stop()
    }

    @Test("the local domain: 127.0.0.1 and ::1 open its links as localhost does, and its links print with the server's port")
    func localDomain() async throws {
        let (server, _) = try await Self.fixture()
        defer { Task { await server.stop() } }
        server.services.listening.set(8080)
        let link = try await server.createLink(CreateLinkRequest(workspaceId: server.defaultWorkspace.id, path: "summer",
                                                                       destinations: LinkDestinations(web: "https://example.com/s")))
        #expect(link.url == "http://localhost:8080/summer")
        for host in ["localhost:8080", "127.0.0.1:8080", "[::1]:8080", "127.0.0.1"] {
            let followed = await server.follow("/summer", userAgent: UserAgents.desktop, host: host)
            #expect(followed.status == 302 && followed.headers["Location"] == "https://example.com/s", "Host \(host)")
        }
        // Only this machine's own addresses stand for localhost.
        #expect(await server.follow("/summer", userAgent: UserAgents.desktop, host: "127.0.0.2:8080").status == 404)
        let key = try await server.createKey(.publishable, app: link.appId)
        let resolved = try await server.client(key.secret).post("/v1/resolve", ResolveRequest(url: "http://127.0.0.1:8080/summer", platform: "web"))
        #expect(try resolved.decoded(ResolvedLink.self).url == "http://localhost:8080/summer")
        server.services.listening.set(80)
        #expect(try await server.admin.get("/v1/links/\(link.id)").decoded(Link.self).url == "http://localhost/summer")
    }

    @Test("preview fetchers get Open Graph and Twitter tags and are never counted", arguments: UserAgents.crawlers)
    func crawlers(_ userAgent: String) async throws {
        let (server, _) = try await Self.fixture()
        _ = try await server.createLink(CreateLinkRequest(
            workspaceId: server.defaultWorkspace.id, path: "preview", destinations: LinkDestinations(web: "https://example.com/p"),
            preview: LinkPreview(title: "Summer <sale>", description: #"Half price "today""#, imageUrl: "https://example.com/i.png")))
        let page = await server.follow("/preview", userAgent: userAgent)
        #expect(page.status == 200)
        #expect(page.headers["Content-Type"]?.hasPrefix("text/html") == true)
        let html = page.bodyText
        #expect(html.contains(#"<meta property="og:title" content="Summer &lt;sale&gt;">"#))
        #expect(html.contains(#"<meta property="og:description" content="Half price &quot;today&quot;">"#))
        #expect(html.contains(#"<meta property="og:image" content="https://example.com/i.png">"#))
        #expect(html.contains(#"<meta name="twitter:card" content="summary_large_image">"#))
        #expect(html.contains(#"<meta property="og:url" content="http://localhost/preview">"#))
        #expect(try await server.clicks().isEmpty)
        await server.stop()
    }

    @Test("expired links answer 410, disabled and unknown ones the same 404, HEAD counts nothing")
    func lifecycle() async throws {
        let (server, _) = try await Self.fixture()
        let ws = server.defaultWorkspace.id
        _ = try await server.createLink(CreateLinkRequest(workspaceId: ws, path: "old", destinations: LinkDestinations(web: "https://example.com"),
                                                                expiresAt: "2020-01-01T00:00:00Z"))
        let live = try await server.createLink(CreateLinkRequest(workspaceId: ws, path: "live", destinations: LinkDestinations(web: "https://example.com")))
        #expect(await server.follow("/old", userAgent: UserAgents.iPhone).status == 410)
        let head = await server.follow("/live", userAgent: UserAgents.iPhone, method: "HEAD")
        #expect(head.status == 302)
        #expect(head.body.isEmpty)
        #expect(try await server.clicks().isEmpty)

        let disabled = try await server.admin.post("/v1/links/\(live.id)/disable", json: "{}").decoded(Link.self)
        #expect(!disabled.enabled)
        let gone = await server.follow("/live", userAgent: UserAgents.iPhone)
        let unknown = await server.follow("/never-made", userAgent: UserAgents.iPhone)
        #expect(gone.status == 404)
        #expect(gone.body == unknown.body)
        // Enabled again through PATCH, it works at once.
        _ = try await server.admin.patch("/v1/links/\(live.id)", UpdateLinkRequest(destinations: LinkDestinations(web: "https://example.com/new"), enabled: true))
            .decoded(Link.self)
        #expect(await server.follow("/live", userAgent: UserAgents.desktop).headers["Location"] == "https://example.com/new")
        await server.stop()
    }

    @Test("the query string passes through only where the link allows it")
    func queryPassThrough() async throws {
        let (server, _) = try await Self.fixture()
        let ws = server.defaultWorkspace.id
        _ = try await server.createLink(CreateLinkRequest(workspaceId: ws, path: "pass", destinations: LinkDestinations(web: "https://example.com/x?a=1#top"),
                                                                passQuery: true))
        _ = try await server.createLink(CreateLinkRequest(workspaceId: ws, path: "keep", destinations: LinkDestinations(web: "https://example.com/x")))
        #expect(await server.follow("/pass?utm_source=mail&q=a%20b", userAgent: UserAgents.desktop).headers["Location"]
                == "https://example.com/x?a=1&utm_source=mail&q=a%20b#top")
        #expect(await server.follow("/keep?utm_source=mail", userAgent: UserAgents.desktop).headers["Location"] == "https://example.com/x")
        await server.stop()
    }

    @Test("the iOS interstitial counts the click and carries a signed click id that verifies; HEAD gives the page's answer and counts nothing")
    func interstitial() async throws {
        let (server, app) = try await Self.fixture()
        let link = try await server.createLink(CreateLinkRequest(workspaceId: server.defaultWorkspace.id, path: "branded",
                                                                       destinations: LinkDestinations(web: "https://example.com"), interstitial: true))
        let head = await server.follow("/branded", userAgent: UserAgents.iPhone, method: "HEAD")
        #expect(head.status == 200 && head.headers["Content-Type"]?.hasPrefix("text/html") == true, "HEAD answers as GET does")
        #expect(try await server.clicks().isEmpty)
        let page = await server.follow("/branded", userAgent: UserAgents.iPhone)
        #expect(page.status == 200)
        #expect(page.bodyText.contains("https://apps.apple.com/app/id123456789"))
        #expect(page.bodyText.contains(app.name))
        let signed = try #require(page.bodyText.components(separatedBy: "data-click=\"").dropFirst().first?.split(separator: "\"").first)
        let verified = try SignedClickId.verify(String(signed), key: server.services.secrets.clickSigningKey, now: Date()).get()
        #expect(verified.linkId == link.id)
        #expect(try await server.clicks().map { try $0.string("token") } == [verified.clickToken])
        await server.stop()
    }

    @Test("Safari 26 is routed and counted as iOS 26; a web view whose OS is frozen has no version and matches no version rule",
          arguments: StoreBackend.all)
    func safari26(_ backend: StoreBackend) async throws {
        let (server, _) = try await Self.fixture(backend)
        _ = try await server.createLink(CreateLinkRequest(
            workspaceId: server.defaultWorkspace.id, path: "new-ios", destinations: LinkDestinations(web: "https://example.com"),
            rules: [LinkRule(when: LinkCondition(platforms: ["ios"], osVersion: LinkVersionRange(min: "26.0")), url: "https://example.com/ios26"),
                    LinkRule(when: LinkCondition(platforms: ["ios"]), url: "https://example.com/older")]))
        let safari26 = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 Mobile/15E148 Safari/604.1"
        let safari18 = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.6 Mobile/15E148 Safari/604.1"
        let webView = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"
        #expect(await server.follow("/new-ios", userAgent: safari26).headers["Location"] == "https://example.com/ios26")
        #expect(await server.follow("/new-ios", userAgent: safari18).headers["Location"] == "https://example.com/older")
        #expect(await server.follow("/new-ios", userAgent: webView).headers["Location"] == "https://example.com/older")
        let versions = try await server.clicks().map { try? $0.string("os_version") }
        #expect(versions == ["26.0", "18.6", nil], "\(versions)")
        await server.stop()
    }

    @Test("every link page has a Content-Security-Policy that admits exactly its own style and script, and no frame")
    func pagePolicy() async throws {
        let (server, _) = try await Self.fixture()
        let ws = server.defaultWorkspace.id
        let web = LinkDestinations(web: "https://example.com")
        _ = try await server.createLink(CreateLinkRequest(workspaceId: ws, path: "branded", destinations: web,
                                                                preview: LinkPreview(title: "T", imageUrl: "https://cdn.example.com/a.png"), interstitial: true))
        _ = try await server.createLink(CreateLinkRequest(workspaceId: ws, path: "gone", destinations: web, expiresAt: "2020-01-01T00:00:00Z"))
        _ = try await server.createLink(CreateLinkRequest(workspaceId: ws, path: "helped", destinations: web, inAppBrowserPage: true))
        let pages = [
            ("interstitial", await server.follow("/branded", userAgent: UserAgents.iPhone)),
            ("preview", await server.follow("/branded", userAgent: UserAgents.crawlers[3])),
            ("not found", await server.follow("/no-such-link", userAgent: UserAgents.iPhone)),
            ("expired", await server.follow("/gone", userAgent: UserAgents.iPhone)),
            ("in-app browser", await server.follow("/helped", userAgent: UserAgents.facebookInApp)),
        ]
        func inline(_ tag: String, _ html: String) -> [String] {
            html.components(separatedBy: "<\(tag)>").dropFirst().compactMap { $0.components(separatedBy: "</\(tag)>").first }
        }
        for (name, page) in pages {
            #expect(page.headers["Content-Type"]?.hasPrefix("text/html") == true, "\(name)")
            let policy = try #require(page.headers["Content-Security-Policy"], "\(name) has no policy")
            let directives = Dictionary(policy.split(separator: ";").map { part -> (String, [String]) in
                let words = part.split(separator: " ").map(String.init)
                return (words.first ?? "", Array(words.dropFirst()))
            }, uniquingKeysWith: { a, _ in a })
            #expect(directives["default-src"] == ["'none'"] && directives["frame-ancestors"] == ["'none'"], "\(name): \(policy)")
            #expect(directives["base-uri"] == ["'none'"] && directives["form-action"] == ["'none'"], "\(name)")
            #expect(page.headers["X-Frame-Options"] == "DENY", "\(name)")
            // What the browser would hash: the text between the tags, byte for byte.
            for (tag, directive) in [("style", "style-src"), ("script", "script-src")] {
                for text in inline(tag, page.bodyText) {
                    let hash = "'sha256-" + Data(Digest.sha256(Array(text.utf8))).base64EncodedString() + "'"
                    #expect(directives[directive]?.contains(hash) == true, "\(name): its \(tag) is not admitted by \(policy)")
                }
            }
            #expect(!policy.contains("unsafe-inline") && !policy.contains("*"), "\(name)")
        }
        #expect(inline("script", pages[0].1.bodyText).count == 1, "the interstitial has its clipboard script")
        #expect(inline("script", pages[4].1.bodyText).count == 2, "the in-app browser's page has its copy and clipboard scripts")
        #expect(pages[0].1.bodyText.contains("https://cdn.example.com/a.png"), "a preview image from the tenant's https host is allowed by img-src https:")
        await server.stop()
    }

    @Test("bad links are refused with the field named, and paths are unique per domain without regard to case")
    func validation() async throws {
        let (server, _) = try await Self.fixture()
        let ws = server.defaultWorkspace.id
        func create(_ request: CreateLinkRequest) async throws -> HTTPResponse { try await server.admin.post("/v1/links", request) }
        #expect(try await create(CreateLinkRequest(workspaceId: ws, destinations: LinkDestinations(web: "http://example.com"))).errorField == "destinations.web")
        #expect(try await create(CreateLinkRequest(workspaceId: ws, destinations: LinkDestinations(web: "javascript:alert(1)"))).errorField == "destinations.web")
        #expect(try await create(CreateLinkRequest(workspaceId: ws, destinations: LinkDestinations(ios: .init(url: "https://")))).errorField == "destinations.ios.url")
        #expect(try await create(CreateLinkRequest(workspaceId: ws, preview: LinkPreview(imageUrl: "data:image/png;base64,AA"))).errorField == "preview.imageUrl")
        #expect(try await create(CreateLinkRequest(workspaceId: ws, path: "v1/apps")).errorField == "path")
        #expect(try await create(CreateLinkRequest(workspaceId: ws, path: "a//b")).errorField == "path")
        #expect(try await create(CreateLinkRequest(workspaceId: ws, path: "../x")).errorField == "path")
        #expect(try await create(CreateLinkRequest(workspaceId: ws, appPath: "no-slash")).errorField == "appPath")
        #expect(try await create(CreateLinkRequest(workspaceId: ws, expiresAt: "tomorrow")).errorField == "expiresAt")
        #expect(try await create(CreateLinkRequest(workspaceId: ws, domain: "other.example.com")).errorField == "domain")
        let big = try await create(CreateLinkRequest(workspaceId: ws, metadata: ["blob": .string(String(repeating: "x", count: 9000))]))
        #expect(big.status == 413)
        #expect(big.errorCode == "metadata_too_large")
        #expect(try await create(CreateLinkRequest(workspaceId: ws, path: "Taken")).status == 201)
        let clash = try await create(CreateLinkRequest(workspaceId: ws, path: "tAKEN"))
        #expect(clash.status == 409)
        #expect(clash.errorCode == "path_taken")
        await server.stop()
    }

    @Test("domains: checked hostnames, one owner each, removable only without links; links of one workspace never show on another's")
    func domains() async throws {
        let (server, _) = try await Self.fixture()
        let other = try await server.createWorkspace("Other")
        _ = try await server.createApp(in: other.id)
        #expect(try await server.admin.post("/v1/domains", CreateLinkDomainRequest(workspaceId: other.id, hostname: "https://x.com")).errorField == "hostname")
        #expect(try await server.admin.post("/v1/domains", CreateLinkDomainRequest(workspaceId: other.id, hostname: "localhost")).errorCode == "hostname_taken")
        let domain = try await server.admin.post("/v1/domains", CreateLinkDomainRequest(workspaceId: other.id, hostname: "Go.Other.Example."))
            .decoded(LinkDomain.self, status: 201)
        #expect(domain.hostname == "go.other.example")
        let theirs = try await server.createLink(CreateLinkRequest(workspaceId: other.id, path: "theirs", destinations: LinkDestinations(web: "https://other.example")))
        #expect(theirs.domain == "go.other.example")
        // Their path on our domain is just unknown.
        #expect(await server.follow("/theirs", userAgent: UserAgents.desktop).status == 404)
        #expect(await server.follow("/theirs", userAgent: UserAgents.desktop, host: "go.other.example:443").status == 302)
        let busy = await server.admin.send("DELETE", "/v1/domains/\(domain.id)")
        #expect(busy.errorCode == "domain_in_use")
        // A workspace without a domain cannot make links.
        let bare = try await server.createWorkspace("Bare")
        #expect(try await server.admin.post("/v1/links", CreateLinkRequest(workspaceId: bare.id)).errorCode == "no_link_domain")
        await server.stop()
    }

    @Test("links list with filters and pages")
    func listing() async throws {
        let (server, _) = try await Self.fixture()
        let ws = server.defaultWorkspace.id
        for i in 0..<5 { _ = try await server.createLink(CreateLinkRequest(workspaceId: ws, campaign: i % 2 == 0 ? "even" : "odd")) }
        let even = try await server.admin.get("/v1/links?campaign=even").decoded(Page<Link>.self)
        #expect(even.items.count == 3)
        #expect(even.items.allSatisfy { $0.path.count == 8 })
        _ = try await server.admin.post("/v1/links/\(even.items[0].id)/disable", json: "{}").decoded(Link.self)
        #expect(try await server.admin.get("/v1/links?enabled=false").decoded(Page<Link>.self).items.map(\.id) == [even.items[0].id])
        #expect(await server.admin.get("/v1/links?enabled=maybe").errorCode == "invalid_query")
        _ = try await server.createLink(CreateLinkRequest(workspaceId: ws, path: "Summer-Sale", campaign: "50%_off"))
        #expect(try await server.admin.get("/v1/links?q=summer").decoded(Page<Link>.self).items.map(\.path) == ["Summer-Sale"])
        #expect(try await server.admin.get("/v1/links?q=%25_OFF").decoded(Page<Link>.self).items.map(\.path) == ["Summer-Sale"])
        #expect(try await server.admin.get("/v1/links?q=ODD").decoded(Page<Link>.self).items.count == 2)
        #expect(try await server.admin.get("/v1/links?q=%25").decoded(Page<Link>.self).items.map(\.path) == ["Summer-Sale"], "% is not a wildcard")
        await server.stop()
    }

    @Test("a domain added with a server key serves only once its DNS TXT record proves control; one added with an admin key serves at once")
    func domainVerification() async throws {
        let dns = try FakeDNS()
        let server = try await TestServer.start(dnsServer: TXTLookup.Server("127.0.0.1:\(dns.port)"))
        let ws = server.defaultWorkspace.id
        let tenant = server.client(try await server.createKey(.server, workspace: ws).secret)
        let pending = try await tenant.post("/v1/domains", CreateLinkDomainRequest(hostname: "go.tenant.example")).decoded(LinkDomain.self, status: 201)
        let record = try #require(pending.verification)
        #expect(!pending.verified && record.recordName == "_linkrunway-challenge.go.tenant.example" && record.recordType == "TXT")
        #expect(record.recordValue.hasPrefix("linkrunway-verification="))
        _ = try await tenant.post("/v1/links", CreateLinkRequest(domain: "go.tenant.example", path: "promo", destinations: LinkDestinations(web: "https://example.com/p")))
            .decoded(Link.self, status: 201)
        #expect(await server.follow("/promo", userAgent: UserAgents.desktop, host: "go.tenant.example").status == 404, "not served before it is proven")

        // A 503 means DNS gave no answer in time (a loaded machine); the documented answer to it is to try again.
        func verify() async -> HTTPResponse {
            var response = await tenant.post("/v1/domains/\(pending.id)/verify", json: "")
            for _ in 0..<3 where response.status == 503 { response = await tenant.post("/v1/domains/\(pending.id)/verify", json: "") }
            return response
        }
        // No record, then a record with another value: still not proven (409, an answer that proves nothing).
        let unpublished = await verify()
        #expect(unpublished.status == 409 && unpublished.errorCode == "domain_unverified")
        dns.publish(record.recordName, ["v=spf1 -all", "linkrunway-verification=someone-elses-token"])
        let mismatched = await verify()
        #expect(mismatched.status == 409 && mismatched.errorCode == "domain_unverified")
        dns.publish(record.recordName, ["v=spf1 -all", record.recordValue])
        let verified = try await verify().decoded(LinkDomain.self)
        #expect(verified.verified && verified.verification == nil)
        #expect(await server.follow("/promo", userAgent: UserAgents.desktop, host: "go.tenant.example").headers["Location"] == "https://example.com/p")
        #expect(try await tenant.get("/v1/domains").decoded(Page<LinkDomain>.self).items.allSatisfy(\.verified))

        // An operator's admin key is trusted with what it adds.
        let trusted = try await server.admin.post("/v1/domains", CreateLinkDomainRequest(workspaceId: ws, hostname: "go.operator.example"))
            .decoded(LinkDomain.self, status: 201)
        #expect(trusted.verified && trusted.verification == nil)
        await server.stop()
    }
}
