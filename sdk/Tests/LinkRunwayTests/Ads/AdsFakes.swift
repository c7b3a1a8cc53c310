import Foundation
@testable import LinkRunwayAds
import Synchronization

/// A recording stand-in for AdAttributionKit's app impressions: every JWS it was given and every call on the
/// impressions it made, in one log, so their order shows.
final class FakeAppImpressions: AppImpressionFramework, Sendable {
    struct Refused: Error {}

    let isSupported: Bool
    let refusesJWS: Bool
    let log = Mutex<[String]>([])
    let jwsSeen = Mutex<[String]>([])
    /// Calls that throw instead of recording (`beginView`, `endView`, `handleTap`).
    let failing: Mutex<Set<String>>
    /// While false, `beginView` waits (at most ten seconds).
    let beginGate: Locked<Bool>

    init(isSupported: Bool = true, refusesJWS: Bool = false, failing: Set<String> = [], beginOpen: Bool = true) {
        self.isSupported = isSupported
        self.refusesJWS = refusesJWS
        self.failing = Mutex(failing)
        beginGate = Locked(beginOpen)
    }

    func impression(compactJWS: String) async throws -> any AppImpressionRecorder {
        jwsSeen.withLock { $0.append(compactJWS) }
        if refusesJWS { throw Refused() }
        return Impression(owner: self)
    }

    var calls: [String] { log.withLock { $0 } }
    func fail(_ call: String, _ failing: Bool) {
        self.failing.withLock { calls in
            if failing { calls.insert(call) } else { calls.remove(call) }
        }
    }

    final class Impression: AppImpressionRecorder, Sendable {
        let owner: FakeAppImpressions
        init(owner: FakeAppImpressions) { self.owner = owner }

        func record(_ call: String) throws {
            if owner.failing.withLock({ $0.contains(call) }) { throw Refused() }
            owner.log.withLock { $0.append(call) }
        }

        func beginView() async throws {
            for _ in 0..<5000 where !owner.beginGate.value { try? await Task.sleep(nanoseconds: 2_000_000) }
            try record("beginView")
        }

        func endView() async throws { try record("endView") }

        func handleTap(reengagementURL: URL?) async throws { try record(reengagementURL.map { "handleTap(\($0.absoluteString))" } ?? "handleTap()") }
    }
}

enum AdsFixture {
    static let placement = "plc_3kD9xQ2mLp8RzW4n"

    static func ads(_ server: StubServer, framework: (any AppImpressionFramework)? = FakeAppImpressions(), key: String = Fixture.key,
                    endpoint: URL? = nil) -> LinkRunwayAds {
        LinkRunwayAds(endpoint: endpoint ?? server.endpoint, publishableKey: key, session: server.session,
                      dependencies: LinkRunwayAdsDependencies(appImpressions: framework))
    }

    /// The server's answer for `placement`, as `POST /v1/ad-placements/{id}/impressions` gives it.
    static func signed(_ placement: String = AdsFixture.placement, reengagementUrl: String? = "https://go.example.com/promo/summer",
                       impressionId: String = "7aa9f8cc-5689-4c02-b963-22ca22136015") -> StubServer.Reply {
        let url = reengagementUrl.map { #","reengagementUrl":"\#($0)""# } ?? ""
        return StubServer.Reply(status: 201, json: #"""
            {"placementId":"\#(placement)","adNetworkId":"example123.adattributionkit","impressionId":"\#(impressionId)","timestamp":1790000000123,
             "sourceIdentifier":5239,"advertisedItemId":525463029,"publisherItemId":1234567890,"eligibleForReengagement":true\#(url),
             "jws":"eyJhbGciOiJFUzI1NiIsImtpZCI6ImV4YW1wbGUxMjMuYWRhdHRyaWJ1dGlvbmtpdCJ9.e30.c2ln-\#(impressionId)"}
            """#)
    }
}
