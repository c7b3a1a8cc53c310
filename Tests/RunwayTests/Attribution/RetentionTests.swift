import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayCrypto
@testable import RunwayKit
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

@Suite("Retention")
struct RetentionTests {
    static func count(_ store: any Store, _ sql: String) async throws -> Int64 {
        try await store.read { db -> Int64 in
            let query: SQL = "\(raw: sql)"
            return try db.first(query)?.int("n") ?? -1
        }
    }

    @Test("address hashes go after their hours, impressions with them, raw clicks after their days", arguments: StoreBackend.all)
    func enforced(_ backend: StoreBackend) async throws {
        let w = try await MatchingTests.world(backend, settings: AttributionSettingsUpdate(probabilisticMinutes: 30, viewThroughHours: 24))
        let store = w.server.store
        _ = await w.server.follow("/promo", userAgent: UserAgents.iPhone)
        _ = try await w.server.admin.post("/v1/impressions", ImpressionRequest(appId: w.app.id, ip: "203.0.113.7", network: "adnet")).decoded(Impression.self, status: 201)
        #expect(try await MatchingTests.match(w, install: "early").method == "probabilistic")

        w.clock.advance(seconds: 47 * 3600)
        _ = await w.server.follow("/promo", userAgent: UserAgents.iPhone)
        _ = try await w.server.admin.post("/v1/impressions", ImpressionRequest(appId: w.app.id, ip: "203.0.113.7", network: "adnet")).decoded(Impression.self, status: 201)
        var policy = RetentionPolicy()
        #expect(try await Maintenance.run(w.server.services, policy: policy).addressHashesCleared == 0)
        #expect(try await Self.count(store, "SELECT COUNT(*) AS n FROM clicks WHERE address_hash IS NOT NULL") == 2)

        // 49 hours after the first click: its hash, the install's and the first impression go; the second click's stays.
        w.clock.advance(seconds: 2 * 3600)
        #expect(try await Maintenance.run(w.server.services, policy: policy).addressHashesCleared == 3)
        #expect(try await Self.count(store, "SELECT COUNT(*) AS n FROM clicks WHERE address_hash IS NOT NULL") == 1)
        #expect(try await Self.count(store, "SELECT COUNT(*) AS n FROM clicks") == 2)
        #expect(try await Self.count(store, "SELECT COUNT(*) AS n FROM installs WHERE address_hash IS NOT NULL") == 0)
        #expect(try await Self.count(store, "SELECT COUNT(*) AS n FROM impressions") == 1)
        // The install keeps its attribution.
        let kept = try await w.server.admin.get("/v1/installs/early/attribution").decoded(AttributionExplanation.self)
        #expect(kept.match.method == "probabilistic")

        policy.clickDays = 30
        w.clock.advance(seconds: 31 * 86_400)
        _ = try await Maintenance.run(w.server.services, policy: policy)
        #expect(try await Self.count(store, "SELECT COUNT(*) AS n FROM clicks") == 0)
        #expect(try await Self.count(store, "SELECT COUNT(*) AS n FROM impressions") == 0)
        await w.server.stop()
    }

    @Test("address keys are kept for today and yesterday only; a forgotten day's addresses hash anew")
    func addressKeys() async throws {
        let server = try await TestServer.start()
        let hasher = AddressHasher(store: server.store, box: SecretBox(key: SecureRandom.bytes(32))!)
        let noon = try #require(ISOTime.milliseconds("2026-03-10T12:00:00Z"))
        let days = (0..<4).map { noon + Int64($0) * 86_400_000 }
        var first: [String] = []
        for day in days { first.append(try await hasher.hash("198.51.100.4", at: day)) }
        #expect(Set(first).count == 4, "a key per day")
        let kept = { try await server.store.read { db in try db.query("SELECT day FROM address_keys ORDER BY day").map { try $0.string("day") } } }
        #expect(try await AddressHasher.forgetOldKeys(store: server.store, now: days[3]) == 2)
        #expect(try await kept() == ["2026-03-12", "2026-03-13"])
        #expect(try await AddressHasher.forgetOldKeys(store: server.store, now: days[3] + 11 * 3_600_000 + 59 * 60_000) == 0, "until midnight")
        let fresh = AddressHasher(store: server.store, box: SecretBox(key: SecureRandom.bytes(32))!)
        #expect(try await fresh.hash("198.51.100.4", at: days[0]) != first[0], "the old hash can no longer be made")
        await server.stop()
    }

    @Test("retention settings are read from the environment and refuse values that would break matching")
    func settings() throws {
        let configuration = try ServerConfiguration.load(environment: [
            "LINKRUNWAY_RETAIN_CLICKS_DAYS": "45", "LINKRUNWAY_RETAIN_ADDRESS_HASHES_HOURS": "6",
            "LINKRUNWAY_RETAIN_POSTBACKS_DAYS": "365", "LINKRUNWAY_RETAIN_EVENTS_DAYS": "90",
        ], flags: [:])
        #expect(configuration.retention.clickDays == 45 && configuration.retention.addressHashHours == 6)
        #expect(configuration.retention.postbackDays == 365 && configuration.retention.eventDays == 90)
        #expect(configuration.retention.tables.first { $0.name == "impressions" }?.retentionDays == 1)
        #expect(throws: ServerConfiguration.InvalidSetting.self) {
            try ServerConfiguration.load(environment: ["LINKRUNWAY_RETAIN_CLICKS_DAYS": "7"], flags: [:])
        }
        #expect(throws: ServerConfiguration.InvalidSetting.self) {
            try ServerConfiguration.load(environment: [:], flags: ["--retain-address-hashes-hours": "0"])
        }
    }
}
