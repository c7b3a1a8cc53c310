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

    /// What its events are written with.
    var forEvents: EventInstall {
        EventInstall(platform: platform, osVersion: osVersion, simulated: simulated, attribution: attribution)
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

/// The part of an install its events need: the attribution they are written with, and what its links' figures count
/// them by. Read on every event, so it leaves out the rest of the row (the explanation's JSON above all).
struct EventInstall: Sendable, Equatable, Decodable {
    var platform: String
    var osVersion: String?
    var simulated: Bool
    var attribution: EventAttribution

    static let columns = """
        platform, os_version, simulated, method, source, link_id, campaign, channel, feature, apple_ads_campaign_id,
        apple_ads_ad_group_id, apple_ads_keyword_id, variant, qr
        """

    init(platform: String, osVersion: String?, simulated: Bool, attribution: EventAttribution) {
        self.platform = platform
        self.osVersion = osVersion
        self.simulated = simulated
        self.attribution = attribution
    }

    private enum CodingKeys: String, CodingKey {
        case platform, osVersion, simulated, method, source, linkId, campaign, channel, feature, appleAdsCampaignId, appleAdsAdGroupId,
             appleAdsKeywordId, variant, qr
    }

    init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        platform = try row.decode(String.self, forKey: .platform)
        osVersion = try row.decodeIfPresent(String.self, forKey: .osVersion)
        simulated = try row.decode(Bool.self, forKey: .simulated)
        attribution = EventAttribution(
            method: try row.decode(String.self, forKey: .method), source: try row.decode(String.self, forKey: .source),
            linkId: try row.decodeIfPresent(String.self, forKey: .linkId), campaign: try row.decodeIfPresent(String.self, forKey: .campaign),
            channel: try row.decodeIfPresent(String.self, forKey: .channel), feature: try row.decodeIfPresent(String.self, forKey: .feature),
            appleAdsCampaignId: try row.decodeIfPresent(String.self, forKey: .appleAdsCampaignId),
            appleAdsAdGroupId: try row.decodeIfPresent(String.self, forKey: .appleAdsAdGroupId),
            appleAdsKeywordId: try row.decodeIfPresent(String.self, forKey: .appleAdsKeywordId),
            variant: try row.decodeIfPresent(String.self, forKey: .variant), qr: try row.decode(Bool.self, forKey: .qr) ? true : nil)
    }
}
