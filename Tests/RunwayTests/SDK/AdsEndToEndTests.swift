import AppleFormats
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LinkRunwayAds
import LinkRunwayAPI
import RunwayCrypto
import RunwayJSON
import RunwayTestKit
import Synchronization
import Testing

/// LinkRunwayAds against the real `linkrunway` binary on a real socket: an ad network defines a placement with its
/// server key, the publisher app's SDK fetches impressions of it, and AdAttributionKit (which exists only on devices)
/// is a recorder that checks each JWS the way Apple would: ES256 under the ad network's registered key.
@Suite("Publisher ads end to end")
struct AdsEndToEndTests {
    /// AdAttributionKit's app impressions as a recorder that refuses a JWS its ad network's key did not sign.
    final class VerifyingAppImpressions: AppImpressionFramework, Sendable {
        struct InvalidSignature: Error {}
        let publicKey: PublicKey
        let payloads = Mutex<[JSONValue]>([])
        let calls = Mutex<[String]>([])

        init(publicKey: PublicKey) { self.publicKey = publicKey }

        var isSupported: Bool { true }

        func impression(compactJWS: String) async throws -> any AppImpressionRecorder {
            guard let jws = try? CompactJWS.parse(compactJWS), jws.verifies(with: publicKey), jws.header["alg"]?.stringValue == "ES256" else {
                throw InvalidSignature()
            }
            payloads.withLock { $0.append(jws.payload) }
            return Recorder(owner: self)
        }

        struct Recorder: AppImpressionRecorder {
            let owner: VerifyingAppImpressions
            func beginView() async throws { owner.calls.withLock { $0.append("beginView") } }
            func endView() async throws { owner.calls.withLock { $0.append("endView") } }
            func handleTap(reengagementURL: URL?) async throws { owner.calls.withLock { $0.append("handleTap(\(reengagementURL?.absoluteString ?? ""))") } }
        }
    }

    @Test("a placement's impressions reach the publisher app signed by the ad network, fresh each time; another app's key gets none")
    func publisherAds() async throws {
        let directory = TemporaryDirectory()
        let server = try await ServerProcess(databaseURL: "sqlite:" + directory.path("ads.db"))
        let base = "http://127.0.0.1:\(server.port)"
        let admin = SDKEndToEndTests.Admin(base: base, key: try #require(server.printedAdminKey))
        let workspace = try #require(((try await admin.call("GET", "/v1/workspaces")).1["items"] as? [[String: Any]])?.first?["id"] as? String)
        let networkKey = try #require((try await admin.call("POST", "/v1/keys", CreateKeyRequest(kind: .server, workspaceId: workspace))).1["secret"] as? String)
        let network = SDKEndToEndTests.Admin(base: base, key: networkKey)
        let (made, identity) = try await network.call("POST", "/v1/ad-networks", CreateAdNetworkRequest(adNetworkId: "example123.adattributionkit"))
        #expect(made == 201)
        let networkId = try #require(identity["id"] as? String)
        let publicKey = try #require((identity["publicKey"] as? String).flatMap { Data(base64Encoded: $0) }.flatMap { PublicKey(spki: Array($0)) })
        var apps: [String] = []
        for (bundle, storeId) in [("com.example.publisher", "1234567890"), ("com.example.other", "1234567891")] {
            let (_, app) = try await network.call("POST", "/v1/apps", CreateAppRequest(name: bundle, teamId: "ABCDE12345", bundleId: bundle,
                                                                                   appStoreId: storeId))
            apps.append(try #require(app["id"] as? String))
        }
        let (placed, placement) = try await network.call("POST", "/v1/ad-networks/\(networkId)/placements",
            CreateAdPlacementRequest(appId: apps[0], name: "Level end", advertisedItemId: 525_463_029, sourceIdentifier: 5239, eligibleForReengagement: true,
                                     reengagementUrl: "https://go.example.com/promo/summer"))
        #expect(placed == 201)
        let placementId = try #require(placement["id"] as? String)
        func publishable(_ app: String) async throws -> String {
            try #require((try await admin.call("POST", "/v1/keys", CreateKeyRequest(kind: .publishable, appId: app))).1["secret"] as? String)
        }

        // The publisher app, after its consent flow, shows two ads of the placement.
        let framework = VerifyingAppImpressions(publicKey: publicKey)
        let ads = LinkRunwayAds(endpoint: URL(string: base)!, publishableKey: try await publishable(apps[0]), session: .shared,
                                dependencies: LinkRunwayAdsDependencies(appImpressions: framework))
        #expect(try await ads.prepareAd(placementId: placementId) == nil, "nothing before consent")
        await ads.setConsent(true)
        let first = try #require(try await ads.prepareAd(placementId: placementId))
        try await first.adAppeared()
        try await first.adTapped()
        try await first.adDisappeared()
        let second = try #require(try await ads.prepareAd(placementId: placementId))
        #expect(framework.calls.withLock { $0 } == ["beginView", "handleTap(https://go.example.com/promo/summer)", "endView"])
        let payloads = framework.payloads.withLock { $0 }
        #expect(payloads.count == 2)
        for payload in payloads {
            #expect(payload["advertised-item-identifier"] == .number("525463029") && payload["source-identifier"] == .number("5239"))
            #expect(payload["publisher-item-identifier"] == .number("1234567890") && payload["ad-network-identifier"]?.stringValue == "example123.adattributionkit")
            #expect(payload["eligible-for-re-engagement"] == .bool(true) && payload["impression-type"]?.stringValue == "app-impression")
        }
        #expect(first.impression.impressionId != second.impression.impressionId, "a new impression for each ad")
        #expect(payloads.map { $0["impression-identifier"]?.stringValue } == [first.impression.impressionId, second.impression.impressionId])

        // Another app's publishable key (every copy of that app holds it) gets nothing signed for this placement.
        let intruder = LinkRunwayAds(endpoint: URL(string: base)!, publishableKey: try await publishable(apps[1]), session: .shared,
                                     dependencies: LinkRunwayAdsDependencies(appImpressions: framework))
        await intruder.setConsent(true)
        let refused = await Self.thrown { _ = try await intruder.prepareAd(placementId: placementId) }
        #expect(Self.status(refused) == 404, "\(String(describing: refused))")

        // Removed by the ad network, the placement is signed no more.
        #expect(try await network.call("DELETE", "/v1/ad-placements/\(placementId)").0 == 204)
        #expect(Self.status(await Self.thrown { _ = try await ads.prepareAd(placementId: placementId) }) == 404)
        #expect(framework.payloads.withLock { $0 }.count == 2)
        _ = try await server.stop(signal: SIGTERM)
    }

    static func thrown(_ call: () async throws -> Void) async -> (any Error)? {
        do {
            try await call()
            return nil
        } catch {
            return error
        }
    }

    static func status(_ error: (any Error)?) -> Int? {
        if case LinkRunwayAdsError.server(let status, _)? = error as? LinkRunwayAdsError { return status }
        return nil
    }
}
