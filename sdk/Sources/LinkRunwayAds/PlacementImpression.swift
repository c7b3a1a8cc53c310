import Foundation

/// An impression the server signed for one of the app's placements: everything the ad network defined, a new
/// impression id and the time of signing. `jws` is what `AppImpression(compactJWS:)` takes.
public struct PlacementImpression: Sendable, Equatable, Decodable {
    public let placementId: String
    /// The ad network, as registered with Apple (the JWS's `kid`).
    public let adNetworkId: String
    /// A new UUID for this impression.
    public let impressionId: String
    /// When the server signed it, in milliseconds since 1970.
    public let timestamp: Int64
    public let sourceIdentifier: Int
    /// The advertised app's App Store id.
    public let advertisedItemId: Int64
    /// This app's App Store id (0 while testing).
    public let publisherItemId: Int64
    /// Whether the impression may drive re-engagement postbacks.
    public let eligibleForReengagement: Bool
    /// The universal link a tap opens when the advertised app is installed (iOS 18 and later).
    public let reengagementURL: URL?
    /// The compact JWS: ES256 under the ad network's key.
    public let jws: String

    enum CodingKeys: String, CodingKey {
        case placementId, adNetworkId, impressionId, timestamp, sourceIdentifier, advertisedItemId, publisherItemId, eligibleForReengagement, jws
        case reengagementURL = "reengagementUrl"
    }

    /// `timestamp` as a date.
    public var signedAt: Date { Date(timeIntervalSince1970: Double(timestamp) / 1000) }
}

/// What LinkRunwayAds throws besides the network's own `URLError`.
public enum LinkRunwayAdsError: Error, Equatable, Sendable {
    /// The key is not a publishable key, or the endpoint is not https (or http on localhost).
    case invalidConfiguration(String)
    /// Not a placement id (`plc_…`), so it was not sent.
    case invalidPlacementId(String)
    /// The server answered with an error: 404 for a placement that is not this app's (or was removed), 429 when the
    /// app asked too often.
    case server(status: Int, body: String)
    case unreadableResponse
    /// The ad was shown and went away: Apple wants a new impression for each showing, so prepare another ad.
    case adAlreadyShown
}
