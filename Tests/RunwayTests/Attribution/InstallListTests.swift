import Foundation
import LinkRunwayAPI
import RunwayHTTP
import Testing

@Suite("Installs list")
struct InstallListTests {
    /// A world with two installs: `real` matched by the app, `pretend` simulated; and a server key's client.
    static func realAndSimulated(_ backend: StoreBackend) async throws -> (MatchingTests.World, TestClient) {
        let w = try await MatchingTests.world(backend)
        let server = w.server.client(try await w.server.createKey(.server, workspace: w.server.defaultWorkspace.id).secret)
        _ = try await MatchingTests.match(w, install: "real")
        _ = try await server.post("/v1/simulate/installs", json: #"{"appId":"\#(w.app.id)","ip":"198.51.100.9","installId":"pretend"}"#).decoded(InstallMatch.self)
        return (w, server)
    }

    @Test("GET /v1/installs lists installs newest first, marks simulated ones, filters and pages", arguments: StoreBackend.all)
    func list(_ backend: StoreBackend) async throws {
        let (w, server) = try await Self.realAndSimulated(backend)

        let all = try await server.get("/v1/installs").decoded(Page<InstallSummary>.self)
        #expect(Set(all.items.map(\.installId)) == ["real", "pretend"] && all.nextCursor == nil)
        #expect(all.items.first { $0.installId == "pretend" }?.simulated == true && all.items.first { $0.installId == "real" }?.simulated == false)
        #expect(try await server.get("/v1/installs?simulated=true").decoded(Page<InstallSummary>.self).items.map(\.installId) == ["pretend"])
        #expect(try await server.get("/v1/installs?simulated=false&appId=\(w.app.id)").decoded(Page<InstallSummary>.self).items.map(\.installId) == ["real"])
        #expect(try await server.get("/v1/installs?source=nowhere").decoded(Page<InstallSummary>.self).items.isEmpty)

        let first = try await server.get("/v1/installs?limit=1").decoded(Page<InstallSummary>.self)
        let cursor = try #require(first.nextCursor)
        let second = try await server.get("/v1/installs?limit=1&cursor=\(cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
            .decoded(Page<InstallSummary>.self)
        #expect(first.items.count == 1 && second.items.count == 1 && second.nextCursor == nil)
        #expect(Set((first.items + second.items).map(\.installId)) == ["real", "pretend"])

        #expect(await server.get("/v1/installs?simulated=maybe").errorField == "simulated")
        #expect(await server.get("/v1/installs?cursor=nonsense").errorField == "cursor")
        await w.server.stop()
    }
}
