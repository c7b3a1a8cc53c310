import AppleFormats
import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayCrypto
import RunwayHTTP
import RunwayJSON
@testable import RunwayKit
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

/// Placements and the impressions publisher apps fetch for them, with an attacker who holds every publishable key.
@Suite("Ad placements API")
struct AdPlacementAPITests {
    struct World {
        let server: TestServer
        let clock: ManualClock
        let network: AdNetwork
        /// The ad network's own server key.
        let networkKey: String
        let publisher: App
        let publisherKey: String
    }

    static func world(_ backend: StoreBackend = .sqlite, rateLimits: RateLimitSettings = RateLimitSettings()) async throws -> World {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_790_000_000))
        let server = try await TestServer.start(backend, clock: clock.wall, monotonic: clock.monotonic, rateLimits: rateLimits)
        let workspace = server.defaultWorkspace.id
        let networkKey = try await server.createKey(.server, workspace: workspace).secret
        let network = try await server.client(networkKey).post("/v1/ad-networks", CreateAdNetworkRequest(adNetworkId: "example123.adattributionkit"))
            .decoded(AdNetwork.self, status: 201)
        let publisher = try await server.createApp(in: workspace, appStoreId: "1234567890")
        let publisherKey = try await server.createKey(.publishable, app: publisher.id).secret
        return World(server: server, clock: clock, network: network, networkKey: networkKey, publisher: publisher, publisherKey: publisherKey)
    }

    static func placement(_ w: World, _ request: CreateAdPlacementRequest) async throws -> AdPlacement {
        try await w.server.client(w.networkKey).post("/v1/ad-networks/\(w.network.id)/placements", request).decoded(AdPlacement.self, status: 201)
    }

    static func impression(_ w: World, _ placementId: String, key: String? = nil, body: String = "", address: String = "198.51.100.7") async -> HTTPResponse {
        await w.server.client(key ?? w.publisherKey).send("POST", "/v1/ad-placements/\(placementId)/impressions", body: Array(body.utf8),
                                                          remoteAddress: address)
    }

    @Test("a publisher app gets a fresh JWS of its placement, exactly as the ad network defined it, verifying under the network's key",
          arguments: StoreBackend.all)
    func publisherGetsItsImpression(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend)
        let placement = try await Self.placement(w, CreateAdPlacementRequest(appId: w.publisher.id, name: "Level end", advertisedItemId: 525463029,
                                                                             sourceIdentifier: 5239, eligibleForReengagement: true,
                                                                             reengagementUrl: "https://go.example.com/promo/summer"))
        #expect(placement.publisherItemId == 1_234_567_890, "the publisher item is the app's own App Store id")
        #expect(placement.adNetworkId == "example123.adattributionkit" && placement.networkId == w.network.id && placement.workspaceId == w.network.workspaceId)
        let listed = try await w.server.client(w.networkKey).get("/v1/ad-networks/\(w.network.id)/placements").decoded(Page<AdPlacement>.self)
        #expect(listed.items == [placement])

        let first = await Self.impression(w, placement.id)
        #expect(first.headers["Cache-Control"] == "no-store")
        let signed = try first.decoded(PlacementImpression.self, status: 201)
        #expect(signed.timestamp == Int64(w.clock.now.timeIntervalSince1970 * 1000), "signed now")
        #expect(signed.reengagementUrl == "https://go.example.com/promo/summer" && signed.eligibleForReengagement)
        let jws = try CompactJWS.parse(signed.jws)
        let publicKey = try #require(PublicKey(spki: Array(Data(base64Encoded: w.network.publicKey)!)))
        #expect(jws.verifies(with: publicKey))
        #expect(jws.header["kid"]?.stringValue == "example123.adattributionkit" && jws.header["alg"]?.stringValue == "ES256")
        // Apple's payload fields (https://developer.apple.com/documentation/adattributionkit/generating-jws-impressions).
        #expect(jws.payload["impression-identifier"]?.stringValue == signed.impressionId)
        #expect(UUID(uuidString: signed.impressionId) != nil && signed.impressionId == signed.impressionId.lowercased())
        #expect(jws.payload["publisher-item-identifier"] == .number("1234567890"))
        #expect(jws.payload["advertised-item-identifier"] == .number("525463029"))
        #expect(jws.payload["source-identifier"] == .number("5239"))
        #expect(jws.payload["ad-network-identifier"]?.stringValue == "example123.adattributionkit")
        #expect(jws.payload["impression-type"]?.stringValue == "app-impression")
        #expect(jws.payload["timestamp"] == .number(String(signed.timestamp)))
        #expect(jws.payload["eligible-for-re-engagement"] == .bool(true))

        w.clock.advance(seconds: 5)
        let second = try await Self.impression(w, placement.id).decoded(PlacementImpression.self, status: 201)
        #expect(second.impressionId != signed.impressionId && second.timestamp == signed.timestamp + 5000, "every impression is new")
        // Without re-engagement the JWS leaves the field out, as Apple's example does.
        let plain = try await Self.placement(w, CreateAdPlacementRequest(appId: w.publisher.id, advertisedItemId: 525463029, sourceIdentifier: 12, publisherItemId: 0))
        let plainJWS = try CompactJWS.parse(try await Self.impression(w, plain.id).decoded(PlacementImpression.self, status: 201).jws)
        #expect(plainJWS.payload["eligible-for-re-engagement"] == nil && plainJWS.payload["publisher-item-identifier"] == .number("0"))
        await w.server.stop()
    }

    @Test("a publishable key chooses nothing but the placement: another app's placement is not found, and a body changes nothing",
          arguments: StoreBackend.all)
    func publishableKeysCannotChooseWhatIsSigned(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend)
        let placement = try await Self.placement(w, CreateAdPlacementRequest(appId: w.publisher.id, advertisedItemId: 525463029, sourceIdentifier: 5239))
        // Another app of the same workspace, and an app of another workspace: each holds its own publishable key.
        let sibling = try await w.server.createApp(in: w.network.workspaceId, bundleId: "com.example.sibling")
        let siblingKey = try await w.server.createKey(.publishable, app: sibling.id).secret
        let stranger = try await w.server.createWorkspace("Stranger")
        let strangerApp = try await w.server.createApp(in: stranger.id)
        let strangerKey = try await w.server.createKey(.publishable, app: strangerApp.id).secret
        for key in [siblingKey, strangerKey] {
            let refused = await Self.impression(w, placement.id, key: key)
            #expect(refused.status == 404 && refused.errorCode == "not_found", "another app's placement is unknown to it: \(refused.bodyText)")
            #expect(!refused.bodyText.contains("525463029"))
        }
        #expect(await Self.impression(w, "plc_doesnotexist0").errorCode == "not_found")
        // Fields sent along are not read: the JWS is the placement's.
        let asked = try await Self.impression(w, placement.id, body: #"{"advertisedItemId":1,"sourceIdentifier":1,"publisherItemId":1}"#)
            .decoded(PlacementImpression.self, status: 201)
        let jws = try CompactJWS.parse(asked.jws)
        #expect(jws.payload["advertised-item-identifier"] == .number("525463029") && jws.payload["source-identifier"] == .number("5239"))
        #expect(jws.payload["publisher-item-identifier"] == .number("1234567890"))
        // A server key cannot fetch them (publisher apps only), and a publishable key cannot define, list or remove them.
        #expect(await Self.impression(w, placement.id, key: w.networkKey).errorCode == "key_kind_forbidden")
        let defined = try await w.server.client(w.publisherKey).post("/v1/ad-networks/\(w.network.id)/placements",
                                                                      CreateAdPlacementRequest(appId: w.publisher.id, advertisedItemId: 1, sourceIdentifier: 1))
        #expect(defined.errorCode == "key_kind_forbidden")
        #expect(await w.server.client(w.publisherKey).send("DELETE", "/v1/ad-placements/\(placement.id)").errorCode == "key_kind_forbidden")
        // Another workspace's server key reaches neither the network nor its placements.
        let strangerServer = try await w.server.createKey(.server, workspace: stranger.id).secret
        #expect(await w.server.client(strangerServer).get("/v1/ad-networks/\(w.network.id)/placements").errorCode == "workspace_forbidden")
        #expect(await w.server.client(strangerServer).send("DELETE", "/v1/ad-placements/\(placement.id)").errorCode == "workspace_forbidden")
        let theirs = try await w.server.client(strangerServer).post("/v1/ad-networks/\(w.network.id)/placements",
                                                                    CreateAdPlacementRequest(appId: strangerApp.id, advertisedItemId: 1, sourceIdentifier: 1))
        #expect(theirs.errorCode == "workspace_forbidden")
        #expect(await Self.impression(w, placement.id).status == 201, "the placement is untouched")
        await w.server.stop()
    }

    @Test("a placement is checked against Apple's ranges and names an app of the network's workspace; removed, it is not found")
    func placementsAreChecked() async throws {
        let w = try await Self.world()
        let stranger = try await w.server.createWorkspace("Stranger")
        let strangerApp = try await w.server.createApp(in: stranger.id)
        let noStoreId = try await w.server.admin.post("/v1/apps", CreateAppRequest(workspaceId: w.network.workspaceId, name: "Beta", teamId: "ABCDE12345",
                                                                                   bundleId: "com.example.beta"))
            .decoded(App.self, status: 201)
        let placements = "/v1/ad-networks/\(w.network.id)/placements"
        func create(_ request: CreateAdPlacementRequest) async throws -> HTTPResponse {
            try await w.server.client(w.networkKey).post(placements, request)
        }
        func placement(_ appId: String, advertisedItemId: Int64 = 525463029, sourceIdentifier: Int = 1, publisherItemId: Int64? = nil,
                       name: String? = nil, reengagementUrl: String? = nil) -> CreateAdPlacementRequest {
            CreateAdPlacementRequest(appId: appId, name: name, advertisedItemId: advertisedItemId, sourceIdentifier: sourceIdentifier,
                                     publisherItemId: publisherItemId, reengagementUrl: reengagementUrl)
        }
        let app = w.publisher.id
        let refusals: [(CreateAdPlacementRequest, String)] = [
            (placement(strangerApp.id), "appId"),
            (placement("app_nothere000000"), "appId"),
            (placement(app, advertisedItemId: 0), "advertisedItemId"),
            (placement(app, sourceIdentifier: 10000), "sourceIdentifier"),
            (placement(app, sourceIdentifier: -1), "sourceIdentifier"),
            (placement(app, publisherItemId: -5), "publisherItemId"),
            (placement(app, reengagementUrl: "http://go.example.com/x"), "reengagementUrl"),
            (placement(app, reengagementUrl: "javascript:alert(1)"), "reengagementUrl"),
            (placement(app, name: ""), "name"),
            (placement(noStoreId.id), "publisherItemId"),
        ]
        for (request, field) in refusals {
            let answer = try await create(request)
            #expect(answer.status == 400 && answer.errorField == field, "\(request): \(answer.status) \(answer.bodyText)")
        }
        #expect(try await !create(refusals[0].0).bodyText.contains(stranger.id), "another workspace's app reads as no app")
        // A required field left out: a shape the wire type cannot send.
        #expect(await w.server.client(w.networkKey).post(placements, json: #"{"appId":"\#(app)","advertisedItemId":525463029}"#).errorCode == "missing_field")
        let testing = try await Self.placement(w, placement(noStoreId.id, publisherItemId: 0))
        #expect(testing.publisherItemId == 0, "0 while testing a development build")
        #expect(await w.server.client(w.networkKey).post("/v1/ad-networks/adn_nothere000000/placements", json: "{}").errorCode == "not_found")

        #expect(await w.server.client(w.networkKey).send("DELETE", "/v1/ad-placements/\(testing.id)").status == 204)
        let publisherKey = try await w.server.createKey(.publishable, app: noStoreId.id).secret
        #expect(await Self.impression(w, testing.id, key: publisherKey).errorCode == "not_found", "a removed placement is signed no more")
        #expect(await w.server.client(w.networkKey).send("DELETE", "/v1/ad-placements/\(testing.id)").errorCode == "not_found")
        await w.server.stop()
    }

    @Test("impressions are limited per client address and per publishable key")
    func rateLimited() async throws {
        var limits = RateLimitSettings()
        limits.perAddressPerMinute = 3
        limits.perKeyPerMinute = 5
        let w = try await Self.world(rateLimits: limits)
        let placement = try await Self.placement(w, CreateAdPlacementRequest(appId: w.publisher.id, advertisedItemId: 525463029, sourceIdentifier: 5239))
        var byAddress: [Int] = []
        for _ in 0..<4 { byAddress.append(await Self.impression(w, placement.id, address: "198.51.100.1").status) }
        #expect(byAddress == [201, 201, 201, 429])
        let limited = await Self.impression(w, placement.id, address: "198.51.100.1")
        #expect(limited.errorCode == "rate_limited" && limited.headers["Retry-After"] != nil && limited.bodyText.contains("this address"))
        // Three of the key's five went (a request its address was refused for takes nothing from the key): two more, from anywhere.
        var byKey: [Int] = []
        for i in 0..<3 { byKey.append(await Self.impression(w, placement.id, address: "198.51.100.\(20 + i)").status) }
        #expect(byKey == [201, 201, 429])
        #expect(await Self.impression(w, placement.id, address: "198.51.100.30").bodyText.contains("this key"))
        await w.server.stop()
    }
}
