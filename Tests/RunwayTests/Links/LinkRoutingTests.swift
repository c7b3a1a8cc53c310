import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
import RunwayGeo
import RunwayHTTP
@testable import RunwayKit
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

@Suite("Link rules, variants and UTM")
struct LinkRoutingTests {
    /// A server with the test country database (203.0.113.0/24 is FR, 198.51.100.0/25 US, 198.51.100.128/25 CA).
    /// `monotonic`: the clock of the caches' ages (a stopped one keeps what they hold however slow the machine).
    static func server(_ backend: StoreBackend = .sqlite, monotonic: MonotonicClock = .system) async throws -> (TestServer, App) {
        let folder = TemporaryDirectory()
        let countries = try CountryDatabase(path: try CountryDatabaseTests.database(in: folder))
        let server = try await TestServer.start(backend, monotonic: monotonic, countries: countries)
        let app = try await server.createApp(in: server.defaultWorkspace.id)
        return (server, app)
    }

    @Test("rules, variants, start, click limit, fallbacks and UTM are fields of the link: created, read, listed, changed and removed", arguments: StoreBackend.all)
    func fields(_ backend: StoreBackend) async throws {
        let (server, _) = try await Self.server(backend)
        let ws = server.defaultWorkspace.id
        let link = try await server.createLink(CreateLinkRequest(
            workspaceId: ws, path: "routed", destinations: LinkDestinations(web: "https://example.com/w"),
            rules: [LinkRule(name: "France", when: LinkCondition(countries: ["fr", "BE"]), url: "https://example.com/fr"),
                    LinkRule(when: LinkCondition(platforms: ["ios"], osVersion: LinkVersionRange(min: "17")),
                             variants: [LinkVariant(name: "store", weight: 1), LinkVariant(name: "page", weight: 0, url: "https://example.com/p")])],
            variants: [LinkVariant(name: "a", weight: 1, preview: LinkPreview(title: "A")), LinkVariant(name: "b", weight: 0)],
            startsAt: "2020-01-01T00:00:00Z", clickLimit: 1000,
            fallbacks: LinkFallbacks(beforeStart: "https://example.com/soon", expired: "https://example.com/over", overLimit: "https://example.com/full"),
            utm: LinkUTM(source: "newsletter", medium: "email")))
        #expect(link.rules?.count == 2 && link.rules?[0].when.countries == ["FR", "BE"], "countries are kept upper case")
        #expect(link.rules?[0].name == "France" && link.rules?[1].variants?.map(\.name) == ["store", "page"])
        #expect(link.variants?.first?.preview?.title == "A" && link.startsAt == "2020-01-01T00:00:00.000Z" && link.clickLimit == 1000)
        #expect(link.fallbacks == LinkFallbacks(beforeStart: "https://example.com/soon", expired: "https://example.com/over", overLimit: "https://example.com/full"))
        #expect(link.utm == LinkUTM(source: "newsletter", medium: "email"))
        #expect(try await server.admin.get("/v1/links/\(link.id)").decoded(Link.self) == link)
        #expect(try await server.admin.get("/v1/links?q=routed").decoded(Page<Link>.self).items == [link])

        let patch = UpdateLinkRequest(rules: [LinkRule(when: LinkCondition(devices: ["tablet"]), url: "https://example.com/tablet")], clickLimit: 5,
                                      utm: LinkUTM(campaign: "fall"))
        let changed = try await server.admin.patch("/v1/links/\(link.id)", patch).decoded(Link.self)
        #expect(changed.rules == [LinkRule(when: LinkCondition(devices: ["tablet"]), url: "https://example.com/tablet")])
        #expect(changed.clickLimit == 5 && changed.utm == LinkUTM(campaign: "fall"), "utm is replaced as a whole")
        #expect(changed.variants == link.variants && changed.fallbacks == link.fallbacks, "what the change leaves out stays")
        let removed = try await server.admin.patch("/v1/links/\(link.id)", UpdateLinkRequest(rules: [], variants: [], clickLimit: 0, fallbacks: LinkFallbacks(),
                                                                                             utm: LinkUTM())).decoded(Link.self)
        #expect(removed.rules == nil && removed.variants == nil && removed.clickLimit == nil && removed.fallbacks == nil && removed.utm == nil)
        #expect(removed.startsAt == link.startsAt)
        let stored = try await server.store.read { try $0.first("SELECT rules, variants, utm_campaign FROM links WHERE id = \(link.id)")! }
        #expect(try stored.optionalString("rules") == nil && stored.optionalString("variants") == nil && stored.optionalString("utm_campaign") == nil)
        await server.stop()
    }

    /// A link of rules alone.
    static func ruled(_ rules: LinkRule...) -> CreateLinkRequest { CreateLinkRequest(rules: rules) }

    /// A rule of one condition to https://a.example.
    static func rule(_ when: LinkCondition) -> LinkRule { LinkRule(when: when, url: "https://a.example") }

    @Test("bad routing fields are refused with invalid_field, named to the rule's index", arguments: [
        (ruled(LinkRule(url: "https://a.example"), LinkRule(when: LinkCondition(countries: ["FRA"]), url: "https://b.example")), "rules[1].when.countries[0]"),
        (ruled(rule(LinkCondition(platforms: ["ios", "windows"]))), "rules[0].when.platforms[1]"),
        (ruled(rule(LinkCondition(platforms: []))), "rules[0].when.platforms"),
        (ruled(rule(LinkCondition(devices: ["phone", "phone"]))), "rules[0].when.devices"),
        (ruled(rule(LinkCondition(languages: ["english"]))), "rules[0].when.languages[0]"),
        (ruled(rule(LinkCondition(osVersion: LinkVersionRange(min: "18", max: "17.4")))), "rules[0].when.osVersion"),
        (ruled(rule(LinkCondition(osVersion: LinkVersionRange(min: "17.x")))), "rules[0].when.osVersion.min"),
        (ruled(rule(LinkCondition(osVersion: LinkVersionRange()))), "rules[0].when.osVersion"),
        (ruled(rule(LinkCondition(from: "2027-02-01T00:00:00Z", until: "2027-01-01T00:00:00Z"))), "rules[0].when.until"),
        (ruled(rule(LinkCondition(from: "soon"))), "rules[0].when.from"),
        (ruled(LinkRule()), "rules[0]"),
        (ruled(LinkRule(url: "http://a.example")), "rules[0].url"),
        (ruled(LinkRule(url: "https://a.example", variants: [])), "rules[0].variants"),
        (ruled(LinkRule(variants: [LinkVariant(name: "a", weight: 1, url: "javascript:alert(1)")])), "rules[0].variants[0].url"),
        (CreateLinkRequest(rules: [LinkRule(url: "https://a.example")], variants: [LinkVariant(name: "a", weight: 0)]), "variants"),
        (CreateLinkRequest(variants: [LinkVariant(name: "a", weight: 1), LinkVariant(name: "a", weight: 1)]), "variants[1].name"),
        (CreateLinkRequest(variants: [LinkVariant(name: "a b", weight: 1)]), "variants[0].name"),
        (CreateLinkRequest(variants: [LinkVariant(name: "a", weight: 10001)]), "variants[0].weight"),
        (CreateLinkRequest(variants: [LinkVariant(name: "a", weight: 1, preview: LinkPreview(imageUrl: "http://x.example/i.png"))]), "variants[0].preview.imageUrl"),
        (CreateLinkRequest(fallbacks: LinkFallbacks(expired: "ftp://x.example")), "fallbacks.expired"),
        (CreateLinkRequest(utm: LinkUTM(source: "")), "utm.source"),
        (CreateLinkRequest(clickLimit: -1), "clickLimit"),
        (CreateLinkRequest(expiresAt: "2027-01-01T00:00:00Z", startsAt: "2027-02-01T00:00:00Z"), "expiresAt"),
    ])
    func refused(_ fields: CreateLinkRequest, _ field: String) async throws {
        let (server, _) = try await Self.server()
        var request = fields
        request.workspaceId = server.defaultWorkspace.id
        let answer = try await server.admin.post("/v1/links", request)
        #expect(answer.status == 400 && answer.errorCode == "invalid_field" && answer.errorField == field, "\(answer.bodyText)")
        await server.stop()
    }

    @Test("too many rules, or a rule with a condition that is not there, are refused before anything is stored")
    func shapes() async throws {
        let (server, _) = try await Self.server()
        let ws = server.defaultWorkspace.id
        let many = Array(repeating: LinkRule(url: "https://a.example"), count: LinkRoutingLimits.rules + 1)
        #expect(try await server.admin.post("/v1/links", CreateLinkRequest(workspaceId: ws, rules: many)).errorField == "rules")
        let unknown = await server.admin.post("/v1/links", json: #"{"workspaceId":"\#(ws)","rules":[{"when":{"weather":"rain"},"url":"https://a.example"}]}"#)
        #expect(unknown.status == 400 && unknown.errorField == "rules[0].when.weather")
        let link = try await server.createLink(CreateLinkRequest(workspaceId: ws, path: "kept"))
        let bad = try await server.admin.patch("/v1/links/\(link.id)", UpdateLinkRequest(expiresAt: "2029-01-01T00:00:00Z", startsAt: "2030-01-01T00:00:00Z"))
        #expect(bad.errorField == "expiresAt")
        #expect(try await server.admin.get("/v1/links/\(link.id)").decoded(Link.self) == link, "a refused change stores nothing")
        #expect(try await server.store.read { try $0.first("SELECT COUNT(*) AS n FROM links")!.int("n") } == 1)
        await server.stop()
    }

    @Test("with the app installed, resolve ignores rules and the click limit, and answers 404 before the start and 410 after the expiry")
    func resolve() async throws {
        let (server, app) = try await Self.server()
        defer { Task { await server.stop() } }
        let ws = server.defaultWorkspace.id
        let key = try await server.createKey(.publishable, app: app.id).secret
        _ = try await server.createLink(CreateLinkRequest(workspaceId: ws, path: "open", appPath: "/promo", rules: [
            LinkRule(when: LinkCondition(countries: ["FR"]), url: "https://example.com/fr"),
        ], clickLimit: 1))
        _ = try await server.createLink(CreateLinkRequest(workspaceId: ws, path: "later", startsAt: "2099-01-01T00:00:00Z",
                                                                         fallbacks: LinkFallbacks(beforeStart: "https://example.com/soon")))
        _ = try await server.createLink(CreateLinkRequest(workspaceId: ws, path: "gone", expiresAt: "2020-01-01T00:00:00Z"))
        func resolve(_ path: String) async throws -> HTTPResponse {
            try await server.client(key).post("/v1/resolve", ResolveRequest(url: "https://localhost/\(path)", platform: "ios", installId: "inst-r"))
        }
        for _ in 0..<3 { #expect(try await resolve("open").decoded(ResolvedLink.self).appPath == "/promo", "opens are not clicks: no limit") }
        #expect(try await resolve("later").errorCode == "link_not_found")
        #expect(try await resolve("gone").errorCode == "link_expired")
        #expect(await server.follow("/open", userAgent: UserAgents.iPhone).headers["Location"] == "https://example.com/fr", "the redirect still has its one click")
    }
}
