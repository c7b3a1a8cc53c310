import Foundation
import LinkRunwayAPI
import RunwayJSON
import RunwayKit
import RunwayStore

/// An installation's stored answer: one row of `installs`, written once, read as a record (`RowDecoder`).
struct InstallRecord: Sendable, Equatable, Decodable {
    var appId: String
    var installId: String
    var workspaceId: String
    var platform: String
    var osVersion: String?
    var language: String?
    var method: String
    var confidence: Double
    var clickToken: String?
    var impressionId: String?
    var linkId: String?
    var campaign: String?
    var channel: String?
    var feature: String?
    var source: String
    var addressHash: String?
    /// The `Explanation` as JSON.
    var explanation: String
    var simulated: Bool
    var matchedAt: Int64
    /// Set when Apple answered an Apple Ads claim for this install.
    var appleAdsCampaignId: String?
    var appleAdsAdGroupId: String?
    var appleAdsKeywordId: String?
    /// The match request carried a valid App Attest token.
    var attested = false
    /// StoreKit 2's app transaction id, when the SDK sent one.
    var appTransactionId: String?
    /// The variant of the matched click, and whether that click came from the link's QR code.
    var variant: String?
    var qr = false
    /// The stores Apple's verified app transactions named (`CONSUMER`, `EDUCATION`, …), sorted, comma-separated.
    var storeTypes: String?
    /// App Attest's `isSupported` on a device that should have it, as the SDK reported it.
    var appAttestSupported: Bool?

    static let columns = """
        app_id, install_id, workspace_id, platform, os_version, language, method, confidence, click_token, impression_id,
        link_id, campaign, channel, feature, source, address_hash, explanation, simulated, matched_at, apple_ads_campaign_id,
        apple_ads_ad_group_id, apple_ads_keyword_id, attested, app_transaction_id, variant, qr, store_types, app_attest_supported
        """

    init(appId: String, installId: String, workspaceId: String, platform: String, osVersion: String?, language: String?,
         method: String, confidence: Double, source: String, explanation: String, simulated: Bool, matchedAt: Int64) {
        self.appId = appId
        self.installId = installId
        self.workspaceId = workspaceId
        self.platform = platform
        self.osVersion = osVersion
        self.language = language
        self.method = method
        self.confidence = confidence
        self.source = source
        self.explanation = explanation
        self.simulated = simulated
        self.matchedAt = matchedAt
    }

    var matched: Bool { method != "unmatched" }

    var attribution: EventAttribution {
        EventAttribution(method: method, source: source, linkId: linkId, campaign: campaign, channel: channel, feature: feature,
                         appleAdsCampaignId: appleAdsCampaignId, appleAdsAdGroupId: appleAdsAdGroupId, appleAdsKeywordId: appleAdsKeywordId,
                         variant: variant, qr: qr ? true : nil)
    }

    /// The answer the SDK gets, with the link's in-app path and metadata as they are now; `localPort` as for
    /// `LinkRecord.url(localPort:)`.
    func wire(link: LinkRecord?, localPort: Int) -> InstallMatch {
        let linkWire = link?.wire(localPort: localPort)
        return InstallMatch(installId: installId, appId: appId, matched: matched, method: method, confidence: confidence, source: source,
                            clickId: clickToken, linkId: linkId, path: link?.appPath, url: linkWire?.url, metadata: linkWire?.metadata,
                            campaign: campaign, channel: channel, feature: feature, variant: variant, matchedAt: Timestamp.iso(matchedAt),
                            storeTypes: storeTypes.map { $0.split(separator: ",").map(String.init) }, appAttestSupported: appAttestSupported)
    }
}

/// What the matcher saw and decided, stored with the install so the answer can be explained later.
struct Explanation: Codable, Sendable, CompactJSONWritable {
    var settings: AttributionSettings
    var rules: [String]
    var candidates: [MatchCandidate]
    var winner: MatchCandidate?

    /// Written with every match, so it writes itself rather than going through `Encodable`.
    func write(into writer: inout CompactJSONObjectWriter) {
        writer.member("candidates", candidates)
        writer.member("rules", rules)
        writer.member("settings", settings)
        writer.member("winner", winner)
    }

    var json: String {
        String(decoding: (try? CompactJSONEncoder().encode(self)) ?? Array("{}".utf8), as: UTF8.self)
    }

    static func decode(_ text: String) -> Explanation? { try? JSONDecoder().decode(Explanation.self, from: Data(text.utf8)) }
}
