import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayTestKit
import Testing

@Suite("Installs list")
struct InstallListTests {
    /// A world with two installs: `real` matched by the app, `pretend` simulated; and a server key's client.
    static func realAndSimulated(_ backend: StoreBackend) async throws -> (MatchingTests.World, TestClient) {
        let w = try await MatchingTests.world(backend)
        let server = w.server.client(try await w.server.createKey(.server, workspace: w.server.defaultWorkspace.id).secret)
        _ = try await MatchingTests.match(w, install: "real")
        _ = try await server.post("/v1/simulate/installs", SimulateInstallRequest(appId: w.app.id, installId: "pretend", ip: "198.51.100.9")).decoded(InstallMatch.self)
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

    @Test("GET /v1/events lists events newest first with their install, marks simulated installs' events, filters and pages",
          arguments: StoreBackend.all)
    func events(_ backend: StoreBackend) async throws {
        let (w, server) = try await Self.realAndSimulated(backend)
        for (id, install) in [("e1", "real"), ("e2", "pretend"), ("e3", "real")] {
            _ = try await server.post("/v1/events", EventTests.event(id, type: "SIGNUP", install: install, app: w.app.id))
                .decoded(EventResult.self, status: 201)
        }
        let all = try await server.get("/v1/events?type=SIGNUP").decoded(Page<RecentEvent>.self)
        #expect(Set(all.items.map(\.eventId)) == ["e1", "e2", "e3"] && all.items.allSatisfy { $0.simulated == ($0.installId == "pretend") })
        #expect(try await server.get("/v1/events?simulated=true").decoded(Page<RecentEvent>.self).items.map(\.eventId) == ["e2"])
        #expect(Set(try await server.get("/v1/events?installId=real&type=SIGNUP").decoded(Page<RecentEvent>.self).items.map(\.eventId)) == ["e1", "e3"])
        let first = try await server.get("/v1/events?type=SIGNUP&limit=2").decoded(Page<RecentEvent>.self)
        let cursor = try #require(first.nextCursor).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let rest = try await server.get("/v1/events?type=SIGNUP&limit=2&cursor=\(cursor)").decoded(Page<RecentEvent>.self)
        #expect(Set((first.items + rest.items).map(\.eventId)) == ["e1", "e2", "e3"] && rest.nextCursor == nil)
        #expect(await server.get("/v1/events?simulated=1").errorField == "simulated")
        await w.server.stop()
    }
}
