import Foundation
import RunwayCrypto
import RunwayJSON

/// What an ad network signs when it serves an ad, so that the device can later send postbacks for it.
public struct AdImpression: Sendable, Equatable {
    /// The ad network's identifier, as registered with Apple (`….adattributionkit`, `….skadnetwork`).
    public var adNetworkId: String
    /// Two to four digits (SKAdNetwork 4.0 and AdAttributionKit).
    public var sourceIdentifier: Int
    /// The advertised app's App Store id.
    public var advertisedItemId: Int64
    /// The app showing the ad (0 while testing with a development build).
    public var publisherItemId: Int64
    /// A UUID, unique per impression (SKAdNetwork signs it in lower case).
    public var impressionId: String
    /// Milliseconds since 1970.
    public var timestamp: Int64
    /// SKAdNetwork: 1 for StoreKit-rendered ads, 0 for view-through ads. AdAttributionKit: app or web impression.
    public var fidelityType: Int
    /// AdAttributionKit: whether the impression may drive re-engagement.
    public var eligibleForReengagement: Bool?

    public init(adNetworkId: String, sourceIdentifier: Int, advertisedItemId: Int64, publisherItemId: Int64, impressionId: String,
                timestamp: Int64, fidelityType: Int = 1, eligibleForReengagement: Bool? = nil) {
        self.adNetworkId = adNetworkId
        self.sourceIdentifier = sourceIdentifier
        self.advertisedItemId = advertisedItemId
        self.publisherItemId = publisherItemId
        self.impressionId = impressionId
        self.timestamp = timestamp
        self.fidelityType = fidelityType
        self.eligibleForReengagement = eligibleForReengagement
    }

    /// The AdAttributionKit JWS payload, with Apple's field names.
    public var adAttributionKitPayload: JSONValue {
        var members: [(String, JSONValue)] = [
            ("impression-identifier", .string(impressionId)),
            ("publisher-item-identifier", .number(String(publisherItemId))),
            ("impression-type", "app-impression"),
            ("ad-network-identifier", .string(adNetworkId)),
            ("source-identifier", .number(String(sourceIdentifier))),
            ("timestamp", .number(String(timestamp))),
            ("advertised-item-identifier", .number(String(advertisedItemId))),
        ]
        if let eligibleForReengagement { members.append(("eligible-for-re-engagement", .bool(eligibleForReengagement))) }
        return .object(members)
    }

    /// A compact JWS for AdAttributionKit: header `{kid: adNetworkId, alg: ES256}`.
    public func signAdAttributionKit(with key: PrivateKey) -> String? {
        CompactJWS.sign(payload: adAttributionKitPayload, kid: adNetworkId, key: key)
    }

    /// The SKAdNetwork 4.0 string the ad network signs: version, ad network, source identifier, advertised app,
    /// nonce (lower case), publisher app, fidelity type and timestamp, joined with U+2063.
    public var skAdNetwork4Message: String {
        ["4.0", adNetworkId, String(sourceIdentifier), String(advertisedItemId), impressionId.lowercased(), String(publisherItemId),
         String(fidelityType), String(timestamp)].joined(separator: SKAdNetworkPostback.separator)
    }

    /// The base64 DER ECDSA-SHA256 signature of `skAdNetwork4Message`.
    public func signSKAdNetwork4(with key: PrivateKey) -> String? {
        key.sign(Array(skAdNetwork4Message.utf8)).map { Data($0).base64EncodedString() }
    }
}
