import AppleFormats
import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
import RunwayHTTP
@testable import RunwayKit
import RunwayTestKit
import Testing

/// An app's AdAttributionKit settings, the Info.plist keys the server writes from them, and the check route.
@Suite("Info.plist API")
struct InfoPlistAPITests {
    static func settings(_ server: TestServer, _ app: App, _ settings: AdAttributionSettings) async throws -> HTTPResponse {
        await server.admin.send("PUT", "/v1/apps/\(app.id)/ad-attribution", body: try TestClient.encoded(settings))
    }

    /// An app in a workspace of its own, which has no link domain or ad network yet.
    static func app(_ server: TestServer) async throws -> App {
        let workspace = try await server.createWorkspace("Ads")
        return try await server.admin.post("/v1/apps", CreateAppRequest(workspaceId: workspace.id, name: "Ads", teamId: "ABCDE12345", bundleId: "com.example.ads",
                                                                        appStoreId: "684939"))
            .decoded(App.self, status: 201)
    }

    @Test("settings outside Apple's ranges are refused with the field at fault; valid ones are kept and read back", arguments: [
        (AttributionWindowSetting(clickDays: 31), "attributionWindows[0].clickDays"), (AttributionWindowSetting(viewDays: 0), "attributionWindows[0].viewDays"),
        (AttributionWindowSetting(viewDays: 8), "attributionWindows[0].viewDays"),
        (AttributionWindowSetting(ignoreInteractionType: "view"), "attributionWindows[0].ignoreInteractionType"),
        (AttributionWindowSetting(adNetworkId: "Example.AdAttributionKit", clickDays: 2), "attributionWindows[0].adNetworkId"),
        (AttributionWindowSetting(adNetworkId: "example.adattributionkit", ignoreInteractionType: "both"), "attributionWindows[0].ignoreInteractionType"),
        (AttributionWindowSetting(adNetworkId: "example.adattributionkit", viewDays: 2, ignoreInteractionType: "view"), "attributionWindows[0].viewDays"),
        (AttributionWindowSetting(adNetworkId: "example.adattributionkit"), "attributionWindows[0]"),
    ])
    func settingsValidated(_ window: AttributionWindowSetting, _ field: String) async throws {
        let server = try await TestServer.start()
        let app = try await Self.app(server)
        let refused = try await Self.settings(server, app, AdAttributionSettings(attributionWindows: [window]))
        #expect(refused.status == 400 && refused.errorField == field, "\(window): \(refused.bodyText)")
        await server.stop()
    }

    @Test("settings: defaults until set, cooldowns 0–720, one global window, and the stored ones read back (and replaced)",
          arguments: StoreBackend.all)
    func settingsStored(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        let app = try await Self.app(server)
        #expect(try await server.admin.get("/v1/apps/\(app.id)/ad-attribution").decoded(AdAttributionSettings.self) == AdAttributionSettings())
        let cooldown = try await Self.settings(server, app, AdAttributionSettings(installCooldownHours: 721))
        #expect(cooldown.errorField == "installCooldownHours")
        let twoGlobals = try await Self.settings(server, app, AdAttributionSettings(attributionWindows: [AttributionWindowSetting(viewDays: 2),
                                                                                                          AttributionWindowSetting(clickDays: 3)]))
        #expect(twoGlobals.errorField == "attributionWindows[1].adNetworkId")
        let settings = AdAttributionSettings(reengagementPostbackCopies: true, overlappingConversions: true,
                                             attributionWindows: [AttributionWindowSetting(adNetworkId: "example.adattributionkit", clickDays: 5,
                                                                                           ignoreInteractionType: "view"),
                                                                  AttributionWindowSetting(viewDays: 3)],
                                             installCooldownHours: 24, reengagementCooldownHours: 0)
        let stored = try await Self.settings(server, app, settings).decoded(AdAttributionSettings.self)
        #expect(stored.attributionWindows.count == 2 && stored.installCooldownHours == 24)
        #expect(try await server.admin.get("/v1/apps/\(app.id)/ad-attribution").decoded(AdAttributionSettings.self) == stored)
        let replaced = try await Self.settings(server, app, AdAttributionSettings())
            .decoded(AdAttributionSettings.self)
        #expect(try await server.admin.get("/v1/apps/\(app.id)/ad-attribution").decoded(AdAttributionSettings.self) == replaced)
        await server.stop()
    }

    @Test("the fragment names this server's verified domain, the settings and the workspace's ad networks, and passes the check")
    func fragmentPassesCheck() async throws {
        let server = try await TestServer.start()
        let app = try await Self.app(server)
        let workspace = app.workspaceId
        let bare = try await server.admin.get("/v1/apps/\(app.id)/info-plist").decoded(InfoPlistFragment.self)
        #expect(!bare.plist.contains("AttributionCopyEndpoint") && bare.notes.count == 2, "no domain and no ad network yet: \(bare.notes)")

        _ = try await server.admin.post("/v1/domains", CreateLinkDomainRequest(workspaceId: workspace, hostname: "go.example.com"))
            .decoded(LinkDomain.self, status: 201)
        _ = try await server.admin.post("/v1/ad-networks", CreateAdNetworkRequest(workspaceId: workspace, adNetworkId: "example123.skadnetwork"))
            .decoded(AdNetwork.self, status: 201)
        _ = try await Self.settings(server, app, AdAttributionSettings(reengagementPostbackCopies: true, attributionWindows: [AttributionWindowSetting(viewDays: 3)],
                                                                       installCooldownHours: 24))
            .decoded(AdAttributionSettings.self)

        let both = try await server.admin.get("/v1/apps/\(app.id)/info-plist").decoded(InfoPlistFragment.self)
        #expect(both.role == "both")
        let plist = try #require(PropertyList.read(Array(both.plist.utf8)))
        #expect(plist["AdAttributionKit"]?["AttributionCopyEndpoint"] == .string("https://go.example.com"))
        #expect(plist["AdAttributionKit"]?["EligibleForAdAttributionKitReengagementPostbackCopies"] == .boolean(true))
        #expect(plist["AdAttributionKit"]?["EligibleForAdAttributionKitOverlappingConversions"] == nil)
        #expect(plist["NSAdvertisingAttributionReportEndpoint"] == .string("https://go.example.com"))
        #expect(plist["AdAttributionKitConfigurations"]?["AttributionWindows"]?["global"]?["install"]?["view"] == .integer(3))
        #expect(plist["AdAttributionKitConfigurations"]?["AttributionCooldown"]?["install-cooldown-hours"] == .integer(24))
        #expect(plist["AdNetworkIdentifiers"] == .array([.string("example123.skadnetwork")]))
        #expect(plist["SKAdNetworkItems"] == .array([.dictionary([(key: "SKAdNetworkIdentifier", value: .string("example123.skadnetwork"))])]))
        #expect(both.notes.count == 1 && both.notes[0].contains("example.com"), "copies go to the registrable domain: \(both.notes)")

        let publisher = try await server.admin.get("/v1/apps/\(app.id)/info-plist?role=publisher").decoded(InfoPlistFragment.self)
        #expect(!publisher.plist.contains("AdAttributionKitConfigurations") && publisher.plist.contains("SKAdNetworkItems"))
        let advertised = try await server.admin.get("/v1/apps/\(app.id)/info-plist?role=advertised").decoded(InfoPlistFragment.self)
        #expect(!advertised.plist.contains("SKAdNetworkItems") && advertised.plist.contains("AttributionCopyEndpoint"))
        #expect(await server.admin.get("/v1/apps/\(app.id)/info-plist?role=ad-network").errorField == "role")

        // The check knows the server's domain: the server's own fragment has only the subdomain warning.
        let checked = try await server.admin.post("/v1/info-plist/check", CheckInfoPlistRequest(workspaceId: workspace, plist: both.plist))
            .decoded(InfoPlistCheck.self)
        #expect(checked.ok && checked.findings.map(\.level) == ["warning", "warning"], "\(checked.findings)")
        await server.stop()
    }

    @Test("the check route finds the mistakes, and refuses another workspace's key")
    func checkRoute() async throws {
        let server = try await TestServer.start()
        let workspace = server.defaultWorkspace.id
        let plist = #"<plist version="1.0"><dict><key>AdNetworkIdentifiers</key><array><string>Example.SKAdNetwork</string></array><key>AdAttributionKit</key><dict><key>AttributionCopyEndpoint</key><string>https://elsewhere.example.net</string></dict></dict></plist>"#
        let checked = try await server.admin.post("/v1/info-plist/check", CheckInfoPlistRequest(workspaceId: workspace, plist: plist))
            .decoded(InfoPlistCheck.self)
        #expect(!checked.ok && checked.findings.map(\.key) == ["AdAttributionKit.AttributionCopyEndpoint", "AdNetworkIdentifiers.0"])
        let garbage = try await server.admin.post("/v1/info-plist/check", CheckInfoPlistRequest(workspaceId: workspace, plist: "{}")).decoded(InfoPlistCheck.self)
        #expect(!garbage.ok)
        let other = try await server.createWorkspace("Other")
        let otherKey = try await server.createKey(.server, workspace: other.id).secret
        #expect(try await server.client(otherKey).post("/v1/info-plist/check", CheckInfoPlistRequest(workspaceId: workspace, plist: "x")).status == 403)
        await server.stop()
    }
}
