import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one request LinkRunwayAds makes: a placement's impression, with the publishable key. It is not retried: an
/// impression is for an ad about to show, and an ad shown without one is merely unattributed.
struct ImpressionTransport: Sendable {
    let endpoint: URL
    let publishableKey: String
    let session: URLSession

    /// `LinkRunwayAds/<version>`.
    static var userAgent: String { "LinkRunwayAds/\(LinkRunwayAds.version)" }

    func impression(placementId: String) async throws -> PlacementImpression {
        var request = URLRequest(url: endpoint.appendingPathComponent("v1/ad-placements/\(placementId)/impressions"))
        request.httpMethod = "POST"
        request.setValue("Bearer \(publishableKey)", forHTTPHeaderField: "Authorization")
        request.setValue(Self.userAgent, forHTTPHeaderField: "User-Agent")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.cachePolicy = .reloadIgnoringLocalCacheData
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw LinkRunwayAdsError.unreadableResponse }
        guard http.statusCode == 201 else { throw LinkRunwayAdsError.server(status: http.statusCode, body: String(decoding: data, as: UTF8.self)) }
        guard let impression = try? JSONDecoder().decode(PlacementImpression.self, from: data), impression.placementId == placementId else {
            throw LinkRunwayAdsError.unreadableResponse
        }
        return impression
    }
}
