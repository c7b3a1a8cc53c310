import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayTestKit
import Testing

/// The console's postback page: Apple Ads' placements by name, and the fields Apple withheld, in a table of their own.
@Suite("Console postback report")
struct ConsolePostbackReportTests {
    @Test("grouped by placement, Apple Ads' rows are named; every grouping has a table of the fields Apple withheld")
    func placementsAndWithheldFields() async throws {
        let (server, visitor, _, ws) = try await ConsoleTests.signedIn()
        _ = try await server.admin.post("/v1/apps", CreateAppRequest(workspaceId: ws, name: "Ads", teamId: "ABCDE12345", bundleId: "com.example.ads", appStoreId: "525463029"))
            .decoded(App.self, status: 201)
        let apple = try PostbackTestAuthority()
        let skadnetwork = try apple.skadnetwork(PostbackTestAuthority.skadnetwork30(network: "com.apple.ads", campaign: 30))
        #expect(try await apple.receive(skadnetwork, .skadnetwork, by: server).status == "valid")
        let tier0 = try apple.adAttributionKit(PostbackTestAuthority.adAttributionKitPayload(network: "example.adattributionkit", source: "39"))
        #expect(try await apple.receive(tier0, .adattributionkit, by: server).status == "valid")

        let byPlacement = await visitor.send("GET", "/console/postbacks?ws=\(ws)&groupBy=placement")
        #expect(byPlacement.status == 200)
        #expect(byPlacement.bodyText.contains("today_tab (Apple Ads: Today tab)"), "\(byPlacement.bodyText)")
        #expect(byPlacement.bodyText.contains("<option value=\"placement\" selected>Apple Ads placement</option>"))
        let byTier = await visitor.send("GET", "/console/postbacks?ws=\(ws)&groupBy=tier")
        #expect(byTier.bodyText.contains("Fields Apple withheld"))
        // Tier 0 of AdAttributionKit: no country, no marketplace, two digits, no publisher, each out of one; and SKAdNetwork
        // 3.0, of no tier, without its publisher.
        #expect(byTier.bodyText.components(separatedBy: "100% (1 of 1)").count - 1 == 5, "\(byTier.bodyText)")
        await server.stop()
    }
}
