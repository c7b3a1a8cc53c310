import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
import RunwayHTTP
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

/// `POST /v1/links/import` against the real route table and store.
@Suite("Link import")
struct LinkImportAPITests {
    /// Rows and options as JSON text, for rows of the wrong shape and unknown members.
    static func importing(_ server: TestServer, _ rows: [String], options: String = "") async -> HTTPResponse {
        let prefix = options.isEmpty ? "" : options + ","
        return await server.admin.post("/v1/links/import", json: #"{\#(prefix)"workspaceId":"\#(server.defaultWorkspace.id)","links":[\#(rows.joined(separator: ","))]}"#)
    }

    static func importing(_ server: TestServer, _ rows: [CreateLinkRequest], dryRun: Bool? = nil, update: Bool? = nil,
                          key: String? = nil) async throws -> HTTPResponse {
        let request = ImportLinksRequest(workspaceId: server.defaultWorkspace.id, dryRun: dryRun, update: update, links: rows)
        return try await server.client(key ?? server.adminKey).post("/v1/links/import", request)
    }

    static func linkCount(_ server: TestServer) async throws -> Int {
        try await server.store.read { try $0.query("SELECT id FROM links").count }
    }

    @Test("a dry run reports every row as the real run would and changes nothing; the real run then does just that", arguments: StoreBackend.all)
    func dryRunThenRun(_ backend: StoreBackend) async throws {
        let (server, _) = try await LinksAPITests.fixture(backend)
        let rows = [
            #"{"path":"summer","appPath":"/promo/summer","destinations":{"web":"https://example.com/summer"},"campaign":"summer"}"#,
            #"{"path":"winter","destinations":{"web":"http://example.com/insecure"}}"#,
            #"{"appPath":"/no/path"}"#,
            #"{"path":"SUMMER","destinations":{"web":"https://example.com/other"}}"#,
            #"{"path":"fall","domain":"go.nowhere.example"}"#,
            #"{"path":"spring","campaign":42}"#,
            #"{"path":"autumn","metadata":{"utm":{"source":"news"}},"preview":{"title":"Autumn"}}"#,
        ]
        let dry = try await Self.importing(server, rows, options: #""dryRun":true"#).decoded(ImportLinksResponse.self)
        #expect(dry.dryRun)
        #expect(dry.results.map(\.status) == ["created", "refused", "refused", "refused", "refused", "refused", "created"])
        #expect(dry.results[1].error?.field == "links[1].destinations.web")
        #expect(dry.results[2].error?.code == ErrorCode.missingField.rawValue && dry.results[2].error?.field == "links[2].path")
        #expect(dry.results[3].error?.code == ErrorCode.pathTaken.rawValue && dry.results[3].error?.message.contains("links[0]") == true,
                "a path named twice (without regard to case) is refused the second time")
        #expect(dry.results[4].error?.field == "links[4].domain")
        #expect(dry.results[5].error?.field == "links[5].campaign", "a row of the wrong shape is refused alone")
        #expect(dry.results[0].linkId == nil && dry.created == 2 && dry.refused == 5)
        #expect(try await Self.linkCount(server) == 0, "a dry run creates nothing")

        let run = try await Self.importing(server, rows).decoded(ImportLinksResponse.self)
        #expect(!run.dryRun)
        #expect(run.results.map(\.status) == dry.results.map(\.status))
        let summer = try #require(run.results[0].linkId)
        #expect(run.results[0].url == "http://localhost/summer")
        let link = try await server.admin.get("/v1/links/\(summer)").decoded(Link.self)
        #expect(link.appPath == "/promo/summer" && link.campaign == "summer" && link.destinations.web == "https://example.com/summer")
        #expect(try await Self.linkCount(server) == 2)
        await server.stop()
    }

    @Test("a second run finds its links unchanged; a row that differs is a conflict until update changes the link, which redirects at once")
    func rerunsConflictsAndUpdates() async throws {
        let (server, _) = try await LinksAPITests.fixture()
        let summer = CreateLinkRequest(path: "summer", appPath: "/promo", destinations: LinkDestinations(web: "https://example.com/summer"), campaign: "summer")
        let winter = CreateLinkRequest(path: "winter", destinations: LinkDestinations(web: "https://example.com/winter"))
        let first = try await Self.importing(server, [summer, winter]).decoded(ImportLinksResponse.self)
        #expect(first.created == 2)
        #expect(await server.follow("/summer", userAgent: UserAgents.desktop).headers["Location"] == "https://example.com/summer")

        let again = try await Self.importing(server, [summer, winter]).decoded(ImportLinksResponse.self)
        #expect(again.results.map(\.status) == ["unchanged", "unchanged"] && again.unchanged == 2)
        #expect(again.results.map(\.linkId) == first.results.map(\.linkId))

        let changed = CreateLinkRequest(path: "summer", appPath: "/promo", destinations: LinkDestinations(web: "https://example.com/autumn"))
        let conflict = try await Self.importing(server, [changed, winter]).decoded(ImportLinksResponse.self)
        #expect(conflict.results.map(\.status) == ["conflict", "unchanged"] && conflict.conflicts == 1)
        #expect(conflict.results[0].differences == ["destinations.web", "campaign"])
        #expect(conflict.results[0].error?.code == ErrorCode.pathTaken.rawValue)
        #expect(await server.follow("/summer", userAgent: UserAgents.desktop).headers["Location"] == "https://example.com/summer",
                "a conflict changes nothing")

        let dryUpdate = try await Self.importing(server, [changed], dryRun: true, update: true).decoded(ImportLinksResponse.self)
        #expect(dryUpdate.results[0].status == "updated")
        #expect(await server.follow("/summer", userAgent: UserAgents.desktop).headers["Location"] == "https://example.com/summer")

        let updated = try await Self.importing(server, [changed], update: true).decoded(ImportLinksResponse.self)
        #expect(updated.results[0].status == "updated" && updated.results[0].linkId == first.results[0].linkId)
        #expect(await server.follow("/summer", userAgent: UserAgents.desktop).headers["Location"] == "https://example.com/autumn",
                "the redirect cache forgets an updated link")
        let link = try await server.admin.get("/v1/links/\(first.results[0].linkId ?? "")").decoded(Link.self)
        #expect(link.campaign == nil, "a row is the whole definition: what it leaves out is cleared")
        #expect(try await Self.importing(server, [changed]).decoded(ImportLinksResponse.self).results[0].status == "unchanged")
        await server.stop()
    }

    @Test("bounds, keys and replays: 1 to 500 rows, no unknown members, management keys only, a workspace of its own, Idempotency-Key")
    func boundsAndKeys() async throws {
        let (server, app) = try await LinksAPITests.fixture()
        let row = CreateLinkRequest(path: "p0")
        for rows in [[CreateLinkRequest](), Array(repeating: row, count: 501)] {
            let answer = try await Self.importing(server, rows)
            #expect(answer.status == 400 && answer.errorField == "links", "\(rows.count) rows")
        }
        let unknown = await Self.importing(server, [#"{"path":"p0"}"#], options: #""force":true"#)
        #expect(unknown.status == 400 && unknown.errorField == "force")
        let publishable = try await server.createKey(.publishable, app: app.id)
        #expect(try await Self.importing(server, [row], key: publishable.secret).status == 403)

        let other = try await server.createWorkspace("Other")
        let serverKey = try await server.createKey(.server, workspace: server.defaultWorkspace.id)
        let elsewhere = try await server.client(serverKey.secret).post("/v1/links/import", ImportLinksRequest(links: [
            CreateLinkRequest(path: "mine"), CreateLinkRequest(workspaceId: other.id, path: "theirs"),
        ])).decoded(ImportLinksResponse.self)
        #expect(elsewhere.results.map(\.status) == ["created", "refused"])
        #expect(elsewhere.results[1].error?.code == ErrorCode.workspaceForbidden.rawValue)

        // Encoded once: a retry sends the same bytes (JSONEncoder's key order can differ from one encoding to the next).
        let rows = (1...3).map { CreateLinkRequest(path: "batch\($0)") }
        let batch = String(decoding: try TestClient.encoded(ImportLinksRequest(workspaceId: server.defaultWorkspace.id, links: rows)), as: UTF8.self)
        let first = await server.admin.post("/v1/links/import", json: batch, headers: [("Idempotency-Key", "import-1")])
        let replay = await server.admin.post("/v1/links/import", json: batch, headers: [("Idempotency-Key", "import-1")])
        #expect(try first.decoded(ImportLinksResponse.self).created == 3)
        #expect(replay.body == first.body, "a retry with the same key gets the first answer, not a report of unchanged rows")
        await server.stop()
    }
}
