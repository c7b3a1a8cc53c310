import AppleFormats
import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
import RunwayJSON
import RunwayTestKit
import Testing

/// Apple Ads as an ad network: its SKAdNetwork postbacks (campaign ids 10–40 standing for App Store placements) and its
/// AdAttributionKit ones (from iOS 26.2), signed by a test authority since Apple publishes no sample of either.
@Suite("Apple Ads postbacks")
struct AppleAdsPostbackTests {
    typealias Authority = PostbackTestAuthority
    static let appleAds = AppleAdsPostbacks.adNetworkId

    @Test("Apple Ads' numbers name its placements; another network's numbers name none")
    func placementOfEachNumber() {
        let expected: [(String, AppleAdsPostbacks.Placement?)] = [("10", .searchResults), ("20", .searchTab), ("30", .todayTab),
                                                                  ("40", .productPages), ("50", .other), ("9999", .other)]
        for (number, placement) in expected {
            #expect(AppleAdsPostbacks.placement(adNetworkId: Self.appleAds, identifier: number) == placement, "\(number)")
            #expect(AppleAdsPostbacks.placement(adNetworkId: "example.skadnetwork", identifier: number) == nil)
        }
        #expect(AppleAdsPostbacks.placement(adNetworkId: Self.appleAds, identifier: nil) == nil)
        #expect(AppleAdsPostbacks.networkName(Self.appleAds) == "Apple Ads" && AppleAdsPostbacks.networkName("com.apple.ads.other") == nil)
    }

    @Test("postbacks from com.apple.ads are Apple Ads with the placement their campaign id (SKAdNetwork) or source identifier (AdAttributionKit) encodes, in the list and the report",
          arguments: StoreBackend.all)
    func labelledWithPlacements(_ backend: StoreBackend) async throws {
        let w = try await PostbackAPITests.world(backend)
        let apple = try Authority()
        // Apple Ads signs SKAdNetwork 1.0–3.0 through iOS 26.1, one campaign id per placement; from 26.2, AdAttributionKit.
        var sent: [(String, [UInt8], PostbackVerdict.Framework)] = []
        for campaign in [10, 20, 30, 40, 50] {
            sent.append(("skan-\(campaign)", try apple.skadnetwork(Authority.skadnetwork30(network: Self.appleAds, campaign: campaign)), .skadnetwork))
        }
        sent.append(("aak-20", try apple.adAttributionKit(Authority.adAttributionKitPayload(network: Self.appleAds, source: "20", marketplace: "com.apple.AppStore"),
                                                          unsigned: [("conversion-value", 3)]), .adattributionkit))
        sent.append(("other-10", try apple.skadnetwork(Authority.skadnetwork30(network: "example.skadnetwork", campaign: 10)), .skadnetwork))
        var ids: [String: String] = [:]
        for (name, body, framework) in sent {
            let receipt = try await apple.receive(body, framework, by: w.server)
            #expect(receipt.status == "valid", "\(name): \(receipt.reason ?? "")")
            ids[name] = receipt.id
            w.clock.advance(seconds: 1)
        }

        let workspace = w.server.defaultWorkspace.id
        let listed = try await w.server.admin.get("/v1/postbacks?workspaceId=\(workspace)&limit=100").decoded(Page<StoredPostback>.self)
        func stored(_ name: String) -> StoredPostback? { listed.items.first { $0.id == ids[name] } }
        let placements = ["skan-10": "search_results", "skan-20": "search_tab", "skan-30": "today_tab", "skan-40": "product_pages",
                          "skan-50": "other", "aak-20": "search_tab"]
        for (name, placement) in placements {
            #expect(stored(name)?.adNetworkName == "Apple Ads" && stored(name)?.placement == placement, "\(name): \(String(describing: stored(name)))")
        }
        #expect(stored("skan-50")?.campaignId == "50", "a number no placement is known for is kept as sent")
        #expect(stored("other-10")?.adNetworkName == nil && stored("other-10")?.placement == nil, "campaign 10 of another network is no placement")

        func report(_ groupBy: String) async throws -> [PostbackReportRow] {
            try await w.server.admin.get("/v1/reports/postbacks?groupBy=\(groupBy)&workspaceId=\(workspace)&from=2026-01-01T00:00:00Z")
                .decoded(PostbackReport.self).rows
        }
        let byPlacement = try await report("placement")
        #expect(byPlacement.map(\.key) == ["(none)", "other", "product_pages", "search_results", "search_tab", "today_tab"])
        #expect(byPlacement.map(\.postbacks) == [1, 1, 1, 1, 2, 1], "Search tab: one SKAdNetwork and one AdAttributionKit postback")
        #expect(byPlacement.map(\.label) == [nil, "Apple Ads: another placement", "Apple Ads: product pages", "Apple Ads: search results",
                                             "Apple Ads: Search tab", "Apple Ads: Today tab"])
        let byNetwork = try await report("network")
        #expect(byNetwork.map(\.key) == [Self.appleAds, "example.skadnetwork"] && byNetwork.map(\.label) == ["Apple Ads", nil])
        #expect(byNetwork.first?.postbacks == 6 && byNetwork.first?.installs == 6)
        let byCampaign = try await report("campaign")
        #expect(byCampaign.first { $0.key == "com.apple.ads:30" }?.label == "Apple Ads: Today tab")
        #expect(byCampaign.first { $0.key == "example.skadnetwork:10" }?.label == nil)

        let csv = await w.server.admin.get("/v1/reports/postbacks?groupBy=placement&workspaceId=\(workspace)&from=2026-01-01T00:00:00Z",
                                           headers: [("Accept", "text/csv")]).bodyText
        #expect(csv.contains("\r\nsearch_tab,2,2,0,0,0,0,2,0,0,0,Apple Ads: Search tab,"), "\(csv)")
        await w.server.stop()
    }
}
