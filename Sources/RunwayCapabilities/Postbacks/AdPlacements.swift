import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayKit
import RunwayStore

/// Placements: the impressions an ad network lets one publisher app have signed. A publisher app ships its publishable
/// key, so anyone may hold it; it may therefore choose nothing but the placement. The ad network fixes the advertised
/// app, the source identifier and the publisher app here, and each signature gets a new impression id and the time
/// (https://developer.apple.com/documentation/adattributionkit/generating-jws-impressions).
enum AdPlacements {
    /// Checks a new placement against Apple's ranges; the publisher item is the app's own App Store id unless given.
    static func placement(_ body: CreateAdPlacementRequest, network: AdNetwork, app: App, now: Int64) throws -> AdPlacement {
        guard (1...999_999_999_999).contains(body.advertisedItemId) else {
            throw RequestError.invalidField("advertisedItemId", "must be the advertised app's App Store id")
        }
        guard (0...9999).contains(body.sourceIdentifier) else { throw RequestError.invalidField("sourceIdentifier", "must be up to four digits") }
        guard let publisher = body.publisherItemId ?? app.appStoreId.flatMap({ Int64($0) }) else {
            throw RequestError.missingField("publisherItemId is required: app \(app.id) has no App Store id (send 0 while testing a development build)",
                                            field: "publisherItemId")
        }
        guard (0...999_999_999_999).contains(publisher) else {
            throw RequestError.invalidField("publisherItemId", "must be the publisher app's App Store id, or 0")
        }
        let name = try body.name.map { try Validate.name($0) }
        let url = try LinkValidate.httpsURL(body.reengagementUrl, field: "reengagementUrl")
        return AdPlacement(id: Identifier.make("plc"), workspaceId: network.workspaceId, networkId: network.id, adNetworkId: network.adNetworkId,
                           appId: app.id, name: name, advertisedItemId: body.advertisedItemId, sourceIdentifier: body.sourceIdentifier,
                           publisherItemId: publisher, eligibleForReengagement: body.eligibleForReengagement ?? false, reengagementUrl: url,
                           createdAt: Timestamp.iso(now))
    }

    /// The placement's impression, with a new id and the time of signing.
    static func impression(_ placement: AdPlacement, now: Int64) -> AdImpression {
        AdImpression(adNetworkId: placement.adNetworkId, sourceIdentifier: placement.sourceIdentifier, advertisedItemId: placement.advertisedItemId,
                     publisherItemId: placement.publisherItemId, impressionId: UUID().uuidString.lowercased(), timestamp: now,
                     eligibleForReengagement: placement.eligibleForReengagement ? true : nil)
    }

    /// Signs the placement's impression as an AdAttributionKit compact JWS.
    static func signed(_ placement: AdPlacement, key: PrivateKey, now: Int64) throws -> PlacementImpression {
        let impression = impression(placement, now: now)
        guard let jws = impression.signAdAttributionKit(with: key) else { throw StoreError.failed("OpenSSL could not sign an impression") }
        return PlacementImpression(placementId: placement.id, adNetworkId: placement.adNetworkId, impressionId: impression.impressionId,
                                   timestamp: impression.timestamp, sourceIdentifier: impression.sourceIdentifier,
                                   advertisedItemId: impression.advertisedItemId, publisherItemId: impression.publisherItemId,
                                   eligibleForReengagement: placement.eligibleForReengagement, reengagementUrl: placement.reengagementUrl, jws: jws)
    }
}
