import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayKit
import RunwayStore

/// The ad-network side: identities whose P-256 keys sign impressions (AdAttributionKit JWS or SKAdNetwork 4.0
/// signatures), optionally recording each impression for view-through matching. The private key is stored as PEM,
/// because signing needs it, and is never returned.
enum AdNetworks {
    static let formats = SignImpressionRequest.formats
    /// What a network's private key is sealed for.
    static let keyPurpose = "ad_networks.private_key"

    /// Opens a network's sealed private key.
    static func signingKey(_ sealed: String, _ services: ServerServices) throws -> PrivateKey {
        guard let key = PrivateKey.pem(try services.secretBox.reveal(sealed, purpose: keyPurpose)) else {
            throw StoreError.corrupt("a stored ad network key is unreadable")
        }
        return key
    }

    /// Checks a signing request against Apple's ranges.
    static func impression(_ body: SignImpressionRequest, network: AdNetwork, now: Int64) throws -> AdImpression {
        guard formats.contains(body.format) else { throw RequestError.invalidField("format", "must be adattributionkit or skadnetwork-4.0") }
        guard (0...9999).contains(body.sourceIdentifier) else { throw RequestError.invalidField("sourceIdentifier", "must be up to four digits") }
        guard (1...999_999_999_999).contains(body.advertisedItemId) else { throw RequestError.invalidField("advertisedItemId", "must be an App Store id") }
        let publisher = body.publisherItemId ?? 0
        guard (0...999_999_999_999).contains(publisher) else { throw RequestError.invalidField("publisherItemId", "must be an App Store id, or 0") }
        let impressionId = body.impressionId ?? UUID().uuidString
        guard UUID(uuidString: impressionId) != nil else { throw RequestError.invalidField("impressionId", "must be a UUID") }
        let timestamp = body.timestamp ?? now
        guard (now - 86_400_000)...(now + 86_400_000) ~= timestamp else { throw RequestError.invalidField("timestamp", "must be within a day of now, in milliseconds") }
        let fidelity = body.fidelityType ?? 1
        guard fidelity == 0 || fidelity == 1 else { throw RequestError.invalidField("fidelityType", "must be 0 (view-through) or 1 (StoreKit-rendered)") }
        return AdImpression(adNetworkId: network.adNetworkId, sourceIdentifier: body.sourceIdentifier, advertisedItemId: body.advertisedItemId,
                            publisherItemId: publisher, impressionId: impressionId, timestamp: timestamp, fidelityType: fidelity,
                            eligibleForReengagement: body.eligibleForReengagement)
    }
}
