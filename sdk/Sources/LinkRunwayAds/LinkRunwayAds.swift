import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The publisher side of AdAttributionKit: an app that shows ads fetches, for each ad, an impression the LinkRunway
/// server signs for one of the app's placements (the ad network defined what it says), makes Apple's `AppImpression`
/// of it, and records the ad's views and taps the way Apple's publisher documentation shows
/// (https://developer.apple.com/documentation/adattributionkit/presenting-ads-in-your-app). Nothing is sent until
/// `setConsent(true)`, and nothing is stored on the device, consent included.
public actor LinkRunwayAds {
    /// The SDK package's version (`LinkRunway.version` is the same), sent in the user agent.
    public static let version = "1.2.0"

    let transport: ImpressionTransport
    let dependencies: LinkRunwayAdsDependencies
    let configurationError: LinkRunwayAdsError?
    private var consented = false
    /// Counts consent withdrawals; an answer that arrives after one is discarded.
    private var epoch = 0

    /// - Parameters:
    ///   - endpoint: your LinkRunway server (`https://…`, or `http://localhost…` while developing).
    ///   - publishableKey: the app's publishable key (`lr_pk_…`); other keys are refused.
    ///   - session: the URLSession to send with (pass one with a URLProtocol stub to test without a network).
    public init(endpoint: URL, publishableKey: String, session: URLSession = .shared) {
        self.init(endpoint: endpoint, publishableKey: publishableKey, session: session, dependencies: .system)
    }

    /// With your own dependencies: a fake of AdAttributionKit, for tests.
    public init(endpoint: URL, publishableKey: String, session: URLSession, dependencies: LinkRunwayAdsDependencies) {
        let local = ["localhost", "127.0.0.1", "::1"].contains(endpoint.host ?? "")
        if !publishableKey.hasPrefix("lr_pk_") {
            configurationError = .invalidConfiguration("only a publishable key (lr_pk_…) belongs in an app")
        } else if endpoint.scheme != "https" && !(endpoint.scheme == "http" && local) {
            configurationError = .invalidConfiguration("the endpoint must be https (or http on localhost)")
        } else {
            configurationError = nil
        }
        transport = ImpressionTransport(endpoint: endpoint, publishableKey: publishableKey, session: session)
        self.dependencies = dependencies
    }

    /// Records the person's decision for this process (call it on every launch, from your own consent flow). Until
    /// it is true, no impression is asked for; withdrawing discards answers still on their way.
    public func setConsent(_ granted: Bool) {
        if consented && !granted { epoch += 1 }
        consented = granted
    }

    /// A new impression of the placement, signed by the server; nil without consent. Throws
    /// `LinkRunwayAdsError.server` with 404 when the placement is not this app's, and the `URLError` when the network
    /// fails (it is not retried).
    public func impression(placementId: String) async throws -> PlacementImpression? {
        if let configurationError { throw configurationError }
        guard Self.isPlacementId(placementId) else { throw LinkRunwayAdsError.invalidPlacementId(placementId) }
        guard consented else { return nil }
        let asked = epoch
        let impression = try await transport.impression(placementId: placementId)
        return consented && epoch == asked ? impression : nil
    }

    /// An ad to show: a new impression of the placement made into Apple's `AppImpression`, whose views and taps the
    /// returned `AttributableAd` records. Nil without consent, or where the device takes no app impressions (before
    /// iOS 17.4, or `AppImpression.isSupported` false): show the ad unattributed then. Call it for every ad you show;
    /// Apple wants a new impression each time.
    public func prepareAd(placementId: String) async throws -> AttributableAd? {
        if let configurationError { throw configurationError }
        guard Self.isPlacementId(placementId) else { throw LinkRunwayAdsError.invalidPlacementId(placementId) }
        guard let framework = dependencies.appImpressions, framework.isSupported else { return nil }
        guard let impression = try await impression(placementId: placementId) else { return nil }
        let recorder = try await framework.impression(compactJWS: impression.jws)
        return AttributableAd(impression: impression, recorder: recorder)
    }

    /// `plc_` and letters and digits, as the server makes them (so nothing else reaches the request's path).
    static func isPlacementId(_ id: String) -> Bool {
        id.hasPrefix("plc_") && (12...68).contains(id.utf8.count)
            && id.utf8.dropFirst(4).allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5a) || ($0 >= 0x61 && $0 <= 0x7a) }
    }
}
