import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayKit

/// Reading what a postback says beyond its signature: the crowd-anonymity tier its fields imply, and the campaign
/// name an app gives a network's identifier.
enum PostbackDecoding {
    /// The tier (SKAdNetwork 4.0 and AdAttributionKit), from what Apple included: a publisher app or country only in
    /// tier 3; a fine value only from tier 2; a coarse value alone in the first window is tier 1, in later windows
    /// tier 2 or 3; no value at all in the first window is tier 0, in later windows tier 1. Nil for earlier versions
    /// and for postbacks that did not win (Apple withholds their values whatever the tier).
    static func tier(_ verdict: PostbackVerdict) -> String? {
        let fields = verdict.fields
        if verdict.framework == .skadnetwork, verdict.version != "4.0" { return nil }
        guard fields.didWin != false else { return nil }
        if fields.sourceAppId != nil || fields.countryCode != nil { return "3" }
        if fields.fineValue != nil { return "2" }
        let window = fields.sequenceIndex + 1
        if fields.coarseValue != nil { return window == 1 ? "1" : "2" }
        return window == 1 ? "0" : "1"
    }

    /// Apple's development ad network: the postbacks Settings > Developer and Xcode make.
    /// https://developer.apple.com/documentation/adattributionkit/testing-adattributionkit-with-developer-mode
    static let developmentAdNetwork = "development.adattributionkit"

    /// `development` for a test postback (signed with either of Apple's development keys, or naming Apple's development
    /// ad network), which only the sandbox view of the report counts; else `production`.
    static func environment(_ verdict: PostbackVerdict) -> String {
        verdict.environment == "development" || verdict.fields.adNetworkId == developmentAdNetwork ? "development" : "production"
    }

    /// The app's name for this network's campaign or source identifier: an exact entry, else the only entry whose
    /// identifier ends with the digits Apple sent (a lower tier sends only the last two or three).
    static func campaignName(network: String?, identifier: String?, settings: PostbackSettings) -> String? {
        guard let network, let identifier else { return nil }
        let entries = settings.campaigns.filter { $0.adNetworkId == network }
        if let exact = entries.first(where: { $0.sourceIdentifier == identifier }) { return exact.name }
        let suffixed = entries.filter { $0.sourceIdentifier.count > identifier.count && $0.sourceIdentifier.hasSuffix(identifier) }
        return suffixed.count == 1 ? suffixed[0].name : nil
    }

    static func encode(_ decoded: [DecodedConversion]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(decoded)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }

    /// `PURCHASE ≥ 499`, `CUSTOM signup_done`, joined with ` | `; `(no rule)` when the value matches none.
    static func label(_ decoded: [DecodedConversion]) -> String {
        guard !decoded.isEmpty else { return "(no rule)" }
        return decoded.map { conversion in
            var text = conversion.type
            if let name = conversion.name { text += " " + name }
            if let minAmount = conversion.minAmount { text += " ≥ \(minAmount)" }
            return text
        }.joined(separator: " | ")
    }
}
