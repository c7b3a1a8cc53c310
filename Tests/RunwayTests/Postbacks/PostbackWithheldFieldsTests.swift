@testable import AppleFormats
import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
import RunwayJSON
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

/// The fields Apple withholds below the postback data tier that allows them (country, marketplace, source identifier
/// digits, publisher), counted per tier in the postback report, with postbacks of every tier signed by a test authority.
@Suite("Postback fields withheld by tier")
struct PostbackWithheldFieldsTests {
    typealias Authority = PostbackTestAuthority
    static let network = "example.adattributionkit"
    static let store = "com.apple.AppStore"

    static func missing(_ counts: [(Int, Int)]) -> PostbackMissingFields {
        PostbackMissingFields(countryCode: MissingFieldCount(missing: counts[0].0, outOf: counts[0].1),
                              marketplaceIdentifier: MissingFieldCount(missing: counts[1].0, outOf: counts[1].1),
                              sourceIdentifierDigits: MissingFieldCount(missing: counts[2].0, outOf: counts[2].1),
                              publisher: MissingFieldCount(missing: counts[3].0, outOf: counts[3].1))
    }

    @Test("per tier, the report counts the verified postbacks lacking country, marketplace, source digits and publisher, out of those whose format has each",
          arguments: StoreBackend.all)
    func sharesByTier(_ backend: StoreBackend) async throws {
        let w = try await PostbackAPITests.world(backend)
        let apple = try Authority()
        func aak(_ source: String, _ publisher: Int64?, _ marketplace: String?) -> [(String, JSONValue)] {
            Authority.adAttributionKitPayload(network: Self.network, source: source, publisher: publisher, marketplace: marketplace)
        }
        let full = try apple.adAttributionKit(aak("5239", 5838492, Self.store), unsigned: [("conversion-value", 20), ("country-code", "US")])
        let sent: [([UInt8], PostbackVerdict.Framework)] = [
            // Tier 3: everything; then tier 3 in a country whose own crowd is smaller, so without it.
            (full, .adattributionkit),
            (try apple.adAttributionKit(aak("5239", 5838492, Self.store), unsigned: [("conversion-value", 20)]), .adattributionkit),
            // Tier 2: a fine value and three digits; tier 1: a coarse value and two; tier 0: two digits and no marketplace.
            (try apple.adAttributionKit(aak("239", nil, Self.store), unsigned: [("conversion-value", 20)]), .adattributionkit),
            (try apple.adAttributionKit(aak("39", nil, Self.store), unsigned: [("coarse-conversion-value", "low")]), .adattributionkit),
            (try apple.adAttributionKit(aak("39", nil, nil)), .adattributionkit),
            // SKAdNetwork 4.0 at tiers 3 and 0 (it has no country or marketplace at any tier), and 3.0 (no tiers, no digits).
            (try apple.skadnetwork(Authority.skadnetwork40(network: "example.skadnetwork", source: "5239", sourceApp: 1234, fine: 10)), .skadnetwork),
            (try apple.skadnetwork(Authority.skadnetwork40(network: "example.skadnetwork", source: "39")), .skadnetwork),
            (try apple.skadnetwork(Authority.skadnetwork30(network: "example.skadnetwork", campaign: 42)), .skadnetwork),
        ]
        for (body, framework) in sent {
            let receipt = try await apple.receive(body, framework, by: w.server)
            #expect(receipt.status == "valid", "\(receipt.reason ?? "")")
            w.clock.advance(seconds: 1)
        }
        // A copy counts once, and a postback Apple's key did not sign counts only as invalid (its fields are anyone's).
        #expect(try await apple.receive(full, .adattributionkit, by: w.server).status == "duplicate")
        #expect(try await PostbackReceiver.receive(full, framework: .adattributionkit, host: "localhost", services: w.server.services).status == "invalid")

        let workspace = w.server.defaultWorkspace.id
        let report = try await w.server.admin.get("/v1/reports/postbacks?groupBy=tier&workspaceId=\(workspace)&from=2026-01-01T00:00:00Z")
            .decoded(PostbackReport.self)
        let byTier = Dictionary(uniqueKeysWithValues: report.rows.map { ($0.key, $0) })
        #expect(report.rows.map(\.key) == ["(none)", "0", "1", "2", "3"])
        #expect(byTier["3"]?.postbacks == 3)
        #expect(byTier["3"]?.missingFields == Self.missing([(1, 2), (0, 2), (0, 3), (0, 3)]))
        #expect(byTier["3"]?.missingFields.countryCode.share == 0.5)
        #expect(byTier["2"]?.missingFields == Self.missing([(1, 1), (0, 1), (1, 1), (1, 1)]))
        #expect(byTier["1"]?.missingFields == Self.missing([(1, 1), (0, 1), (1, 1), (1, 1)]))
        #expect(byTier["0"]?.missingFields == Self.missing([(1, 1), (1, 1), (2, 2), (2, 2)]))
        #expect(byTier["0"]?.missingFields.sourceIdentifierDigits.share == 1)
        #expect(byTier["(none)"]?.missingFields == Self.missing([(0, 0), (0, 0), (0, 0), (1, 1)]), "3.0 has a publisher, never a tier")

        // Every grouping carries them; by framework, the totals.
        let byFramework = try await w.server.admin.get("/v1/reports/postbacks?groupBy=framework&workspaceId=\(workspace)&from=2026-01-01T00:00:00Z")
            .decoded(PostbackReport.self)
        #expect(byFramework.rows.map(\.missingFields) == [Self.missing([(4, 5), (1, 5), (3, 5), (3, 5)]), Self.missing([(0, 0), (0, 0), (1, 2), (2, 3)])])

        let csv = await w.server.admin.get("/v1/reports/postbacks?groupBy=tier&workspaceId=\(workspace)&from=2026-01-01T00:00:00Z",
                                           headers: [("Accept", "text/csv")]).bodyText
        #expect(csv.hasPrefix("tier,postbacks,installs,redownloads,reengagements,non_winning,withheld,fine_values,coarse_values,invalid,duplicates,label,"
                              + "country_code_missing,country_code_of,country_code_share,marketplace_identifier_missing,"))
        #expect(csv.contains("\r\n3,3,3,0,0,0,0,3,0,1,1,,1,2,0.5,0,2,0.0,0,3,0.0,0,3,0.0\r\n"), "\(csv)")

        // The decoded view shows the marketplace Apple sent.
        let listed = try await w.server.admin.get("/v1/postbacks?status=valid&workspaceId=\(workspace)&limit=100").decoded(Page<StoredPostback>.self)
        #expect(Set(listed.items.compactMap(\.marketplace)) == [Self.store])
        #expect(listed.items.filter { $0.framework == "adattributionkit" && $0.marketplace == nil }.count == 1)
        await w.server.stop()
    }

    @Test("step 0060 fills in what older postbacks' columns tell, and leaves the marketplace it never kept out of every share",
          arguments: StoreBackend.all)
    func backfill(_ backend: StoreBackend) async throws {
        let (location, store) = try await backend.opened(migratedBy: Schema.migrations.filter { $0.id < "0060" })
        let rows: [(id: String, framework: String, status: String, version: String?, source: String?, app: String?, domain: String?, country: String?)] = [
            ("pb_aak", "adattributionkit", "valid", nil, "39", "5838492", nil, nil),
            ("pb_skan10", "skadnetwork", "valid", "1.0", nil, nil, nil, nil),
            ("pb_skan40", "skadnetwork", "duplicate", "4.0", "5239", nil, "example.com", nil),
            ("pb_bad", "adattributionkit", "invalid", nil, "39", nil, nil, nil),
        ]
        try await store.write { db in
            for row in rows {
                try db.execute("""
                    INSERT INTO postbacks (id, received_at, framework, body, status, version, environment, source_identifier, source_app_id,
                        source_domain, country_code, sequence_index)
                    VALUES (\(row.id), 1, \(row.framework), \(Array("{}".utf8)), \(row.status), \(row.version), 'production', \(row.source), \(row.app),
                        \(row.domain), \(row.country), 0)
                    """)
            }
        }
        _ = try await store.migrate(Schema.migrations)
        let flags = try await store.read { db in
            try db.query("SELECT id, lacks_country, lacks_marketplace, lacks_source_digits, lacks_publisher FROM postbacks ORDER BY id").map { row in
                [try row.string("id")] + (try ["lacks_country", "lacks_marketplace", "lacks_source_digits", "lacks_publisher"].map {
                    try row.optionalInt($0).map(String.init) ?? "-"
                })
            }
        }
        #expect(flags == [["pb_aak", "1", "-", "1", "0"], ["pb_bad", "-", "-", "-", "-"], ["pb_skan10", "-", "-", "-", "-"],
                          ["pb_skan40", "-", "-", "0", "0"]])
        await store.close()
        withExtendedLifetime(location) {}
    }

    @Test("what a verdict lacks: AdAttributionKit's four fields, SKAdNetwork's publisher and digits, nothing a format never has")
    func tierFieldsOfOneVerdict() throws {
        let apple = try PostbackTestAuthority()
        let aak = AdAttributionKitPostback.verify(try apple.adAttributionKit(
            PostbackTestAuthority.adAttributionKitPayload(network: Self.network, source: "123", publisher: 0, marketplace: Self.store)),
            allowDevelopment: false, keys: apple.keys)
        #expect(aak.valid)
        #expect(PostbackTierFields(aak) == PostbackTierFields(countryCode: true, marketplace: false, sourceIdentifierDigits: true, publisher: true),
                "a publisher item identifier of 0 is a test build's, not a publisher")
        let web = SKAdNetworkPostback.verify(try apple.skadnetwork(PostbackTestAuthority.skadnetwork40(network: "n.skadnetwork", source: "5239")
            + [("source-domain", "example.com")]), keys: apple.keys)
        #expect(web.valid && PostbackTierFields(web) == PostbackTierFields(sourceIdentifierDigits: false, publisher: false), "a web ad's publisher is its domain")
        let first = SKAdNetworkPostback.verify(try apple.skadnetwork([("ad-network-id", "n.skadnetwork"), ("campaign-id", 7), ("app-id", 525463029),
                                                                     ("transaction-id", "t-1")]), keys: PostbackKeys(
            skadnetworkP256: nil, skadnetworkP192: apple.key.publicKey, adAttributionKit: [:]))
        #expect(first.version == "1.0" && PostbackTierFields(first) == PostbackTierFields(), "1.0 has no publisher and no source identifier")
    }
}
