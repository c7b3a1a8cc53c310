import Foundation
import LinkRunwayAPI
import RunwayKit
import RunwayStore

/// Retention messaging's rows as `Decodable` records (`RowDecoder`), and the wire forms made from them.
enum RetentionRows {
    /// A message Apple listed, and its review state.
    struct ListedState: Decodable {
        let environment: String
        let messageId: String
        let state: String?
    }

    /// An app's rules as stored: JSON, and when they were set.
    struct RuleSet: Decodable {
        let rules: String
        let updatedAt: Int64
    }

    struct Message: Decodable {
        let messageId: String
        let environment: String
        let header: String?
        let body: String?
        let imageId: String?
        let altText: String?
        let state: String?
        let listed: Bool
        let createdAt: Int64

        var wire: RetentionMessage {
            RetentionMessage(messageId: messageId, environment: environment, state: state ?? "unknown", header: header, body: body,
                             imageId: imageId, altText: altText, listedByApple: listed, createdAt: Timestamp.iso(createdAt))
        }
    }

    /// A rule's and message's requests and what the subscribers did after; the sums are NULL when no row counted.
    struct ReportLine: Decodable {
        let rule: String
        let messageId: String?
        let environment: String
        let shown: Int64
        let late: Int64?
        let cancelled: Int64?
        let stayed: Int64?

        var wire: RetentionMessageReportRow {
            let cancelled = cancelled ?? 0, stayed = stayed ?? 0
            return RetentionMessageReportRow(rule: rule, messageId: messageId, environment: environment, shown: shown, late: late ?? 0,
                                             cancelled: cancelled, stayed: stayed, undecided: max(shown - cancelled - stayed, 0))
        }
    }

    /// An affiliate bind of an appAccountToken.
    struct Bind: Decodable {
        let token: String
        let affiliateId: String
        let programId: String
        let installId: InstallId?
    }

    /// Who owns an app transaction.

    /// What an install says of where it came from.
    struct InstallSource: Decodable {
        let linkId: String?
        let campaign: String?
        let source: String
        let appleAdsCampaignId: String?

        /// The source as the rules name it.
        var ruleSource: String {
            if appleAdsCampaignId != nil { return "apple_ads" }
            if source == "link" { return "link" }
            if source.hasPrefix("ad:") { return "ad" }
            return "organic"
        }
    }

    /// A subscription's acquisition as recorded.
    struct Acquisition: Decodable {
        let source: String
        let affiliateId: String?
        let campaign: String?
        let linkId: String?

        var value: SubscriptionAcquisition { SubscriptionAcquisition(source: source, affiliateId: affiliateId, campaign: campaign, linkId: linkId) }
    }
}
