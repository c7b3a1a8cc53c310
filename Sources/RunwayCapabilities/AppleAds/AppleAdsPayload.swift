import LinkRunwayAPI
import RunwayJSON
import RunwayKit

/// Reads Apple's AdServices answer without ever failing on its shape: numbers or strings for ids, `true` or "true",
/// dates with or without seconds or fractions, `Z` or offsets, missing and extra fields.
enum AppleAdsPayload {
    enum Reading: Equatable, Sendable {
        case attributed(AppleAdsAttribution, clickAt: Int64?, impressionAt: Int64?, testData: Bool)
        case notAttributed
        case unreadable(String)
    }

    static func read(_ body: [UInt8]) -> Reading {
        guard let document = try? JSONParser().parse(body), case .object = document else { return .unreadable("the body is not a JSON object") }
        guard let flag = document["attribution"] else { return .unreadable("no attribution field") }
        let attributed: Bool
        switch flag {
        case .bool(let b): attributed = b
        case .string(let s) where s.lowercased() == "true" || s.lowercased() == "false": attributed = s.lowercased() == "true"
        case .number(let n): attributed = n != "0"
        default: return .unreadable("attribution is neither true nor false")
        }
        guard attributed else { return .notAttributed }
        func text(_ key: String) -> String? {
            switch document[key] {
            case .string(let s)?: return s.isEmpty ? nil : String(s.prefix(100))
            case .number(let n)?: return Int64(n).map(String.init) ?? n
            case .bool(let b)?: return String(b)
            default: return nil
            }
        }
        let click = text("clickDate").flatMap(milliseconds)
        let impression = text("impressionDate").flatMap(milliseconds)
        let fields = AppleAdsAttribution(
            orgId: text("orgId"), campaignId: text("campaignId"), adGroupId: text("adGroupId"), keywordId: text("keywordId"),
            adId: text("adId"), conversionType: text("conversionType"), claimType: text("claimType"),
            clickDate: click.map(Timestamp.iso), impressionDate: impression.map(Timestamp.iso),
            countryOrRegion: text("countryOrRegion"), supplyPlacement: text("supplyPlacement"))
        return .attributed(fields, clickAt: click, impressionAt: impression, testData: isTestPayload(fields))
    }

    /// In developer mode Apple answers with a fixed sample whose org, campaign and ad group ids are all 1234567890.
    /// (We found no authoritative copy of that payload; this is the widely reported shape, and it is only a flag.)
    static func isTestPayload(_ fields: AppleAdsAttribution) -> Bool {
        fields.orgId == "1234567890" && fields.campaignId == "1234567890" && fields.adGroupId == "1234567890"
    }

    /// `2024-10-08T17:17Z` (no seconds, as in Apple's examples) as well as full RFC 3339 times.
    static func milliseconds(_ text: String) -> Int64? {
        if let exact = ISOTime.milliseconds(text) { return exact }
        // Insert the missing seconds after `HH:MM`.
        let b = Array(text.utf8)
        guard b.count >= 17, b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t"), b[13] == UInt8(ascii: ":") else { return nil }
        return ISOTime.milliseconds(String(decoding: b.prefix(16), as: UTF8.self) + ":00" + String(decoding: b.dropFirst(16), as: UTF8.self))
    }
}
