import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
import RunwayHTTP
@testable import RunwayKit
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

/// A click limit holds under concurrency: many redirects at once on both paths, two processes on one database; a
/// click over the limit is never stored.
@Suite("Click limits")
struct ClickLimitTests {
    static let tap = HTTPRequest(method: "GET", path: "/capped", headers: HTTPHeaders([("Host", "localhost"), ("User-Agent", UserAgents.iPhone)]),
                                 remoteAddress: "203.0.113.7")

    /// The answer as the transport would give it: immediately when the caches allow, else asynchronously.
    static func follow(_ server: TestServer) async -> HTTPResponse {
        if let held = server.application.respondImmediately(to: tap) { return await ImmediateTests.released(held) }
        return await server.application.respond(to: tap)
    }

    @Test("many redirects at once, on both paths, store exactly the limit; the rest go to the fallback and count nothing", arguments: StoreBackend.all)
    func concurrent(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let ws = server.defaultWorkspace.id
        let link = try await server.createLink(CreateLinkRequest(workspaceId: ws, path: "capped", destinations: LinkDestinations(ios: .init(url: "https://example.com/in")),
                                                                 clickLimit: 40, fallbacks: LinkFallbacks(overLimit: "https://example.com/sold-out")))
        let answers = await withTaskGroup(of: HTTPResponse.self) { group in
            for _ in 0..<120 { group.addTask { await Self.follow(server) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let locations = answers.map { $0.headers["Location"] ?? "\($0.status)" }
        #expect(locations.filter { $0 == "https://example.com/in" }.count == 40, "\(Dictionary(grouping: locations) { $0 }.mapValues(\.count))")
        #expect(locations.filter { $0 == "https://example.com/sold-out" }.count == 80)
        #expect(try await server.clicks().count == 40)
        #expect(try await server.store.read { try $0.first("SELECT reserved FROM link_click_allowances WHERE link_id = \(link.id)")!.int("reserved") } == 40)
        // HEAD now answers what a click would get, and a preview is still served; neither takes anything.
        var head = Self.tap
        head.method = "HEAD"
        #expect(await server.application.respond(to: head).headers["Location"] == "https://example.com/sold-out")
        #expect(await server.follow("/capped", userAgent: "Slackbot-LinkExpanding 1.0").status == 200)

        // A higher limit lets more in at once; no limit lets everything in; the stored clicks count towards a new limit.
        _ = try await server.admin.patch("/v1/links/\(link.id)", UpdateLinkRequest(clickLimit: 45)).decoded(Link.self)
        var more: [String?] = []
        for _ in 0..<8 { more.append(await Self.follow(server).headers["Location"]) }
        #expect(more.filter { $0 == "https://example.com/in" }.count == 5)
        #expect(try await server.clicks().count == 45)
        _ = try await server.admin.patch("/v1/links/\(link.id)", UpdateLinkRequest(clickLimit: 0)).decoded(Link.self)
        #expect(await Self.follow(server).headers["Location"] == "https://example.com/in")
        #expect(try await server.clicks().count == 46)
    }

    @Test("a limit set on a link that already has clicks counts them; without a fallback the answer is 410")
    func existingClicks() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let link = try await server.createLink(CreateLinkRequest(workspaceId: server.defaultWorkspace.id, path: "capped",
                                                                 destinations: LinkDestinations(web: "https://example.com/w")))
        for _ in 0..<3 { _ = await Self.follow(server) }
        _ = try await server.admin.patch("/v1/links/\(link.id)", UpdateLinkRequest(clickLimit: 4)).decoded(Link.self)
        #expect(await Self.follow(server).status == 302)
        let over = await Self.follow(server)
        #expect(over.status == 410 && over.bodyText.contains("no longer available") && over.bodyText.contains("https://example.com/w"))
        #expect(try await server.clicks().count == 4)
        // Simulated clicks take places like any other.
        let simulated = try await server.admin.post("/v1/simulate/clicks", SimulateClickRequest(url: "http://localhost/capped"))
        #expect(simulated.status == 410 && simulated.errorCode == "link_expired")
    }

    @Test("two processes on one PostgreSQL database store exactly the limit between them",
          .enabled(if: StoreBackend.postgresURL != nil, "LINKRUNWAY_TEST_POSTGRES_URL is not set"))
    func twoProcesses() async throws {
        let location = try await StoreBackend.postgres.makeLocation()
        async let startA = ServerProcess(databaseURL: location.url)
        async let startB = ServerProcess(databaseURL: location.url)
        let (a, b) = try await (startA, startB)
        let admin = try #require([a.printedAdminKey, b.printedAdminKey].compactMap { $0 }.first)
        let auth = ["Authorization": "Bearer \(admin)"]
        let listed = try await offloaded { try RawHTTPConnection(port: a.port).request("GET", "/v1/workspaces", headers: auth) }
        let ws = try JSONDecoder().decode(Page<Workspace>.self, from: Data(listed.body.utf8)).items[0].id
        let link = try TestClient.json(CreateLinkRequest(workspaceId: ws, path: "capped", destinations: LinkDestinations(web: "https://example.com/in"),
                                                                  clickLimit: 30, fallbacks: LinkFallbacks(overLimit: "https://example.com/out")))
        let created = try await offloaded { try RawHTTPConnection(port: b.port).request("POST", "/v1/links", headers: auth, body: link) }
        #expect(created.status == 201)
        let answers = try await MultiProcessTests.burst([a.port, b.port], count: 100) { _ in
            ("GET", "/capped", ["User-Agent": UserAgents.desktop], "")
        }
        let locations = answers.map { $0.headers["location"] ?? "\($0.status)" }
        #expect(locations.filter { $0 == "https://example.com/in" }.count == 30, "\(Dictionary(grouping: locations) { $0 }.mapValues(\.count))")
        #expect(locations.filter { $0 == "https://example.com/out" }.count == 70)
        let store = try StoreBackend.postgres.open(location.url, nil)
        let stored = try await store.read { try $0.first("SELECT COUNT(*) AS n FROM clicks")!.int("n") }
        await store.close()
        #expect(stored == 30)
    }
}
