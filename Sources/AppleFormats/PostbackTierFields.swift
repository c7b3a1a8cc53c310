/// The fields Apple includes only at the postback data tiers that allow them (crowd anonymity), and whether one
/// postback carries each: SKAdNetwork's `source-app-id` (or `source-domain`, a web ad's publisher) and source
/// identifier digits; AdAttributionKit's `publisher-item-identifier`, `marketplace-identifier`, `country-code` and
/// source identifier digits.
/// https://developer.apple.com/documentation/adattributionkit/receiving-postbacks-in-multiple-conversion-windows
/// https://developer.apple.com/documentation/storekit/receiving-postbacks-in-multiple-conversion-windows
public struct PostbackTierFields: Sendable, Equatable {
    /// For each field: true when Apple left it out (for the source identifier: sent fewer than its four digits), false
    /// when it is there, nil when the postback's format has no such field at any tier.
    public var countryCode: Bool?
    public var marketplace: Bool?
    public var sourceIdentifierDigits: Bool?
    public var publisher: Bool?

    public init(countryCode: Bool? = nil, marketplace: Bool? = nil, sourceIdentifierDigits: Bool? = nil, publisher: Bool? = nil) {
        self.countryCode = countryCode
        self.marketplace = marketplace
        self.sourceIdentifierDigits = sourceIdentifierDigits
        self.publisher = publisher
    }

    /// The most digits a hierarchical source identifier has; lower tiers keep only its last two or three.
    public static let fullSourceIdentifierDigits = 4

    /// What a postback lacks of the tier-controlled fields its format has. Country and marketplace exist only in
    /// AdAttributionKit; a source identifier only from SKAdNetwork 4.0 (its campaign id before is never shortened);
    /// a publisher from SKAdNetwork 2.0. A publisher item identifier of 0 (a test build's) was read as none.
    public init(_ verdict: PostbackVerdict) {
        let fields = verdict.fields
        let aak = verdict.framework == .adattributionkit
        self.init(
            countryCode: aak ? fields.countryCode == nil : nil,
            marketplace: aak ? fields.marketplace == nil : nil,
            sourceIdentifierDigits: fields.sourceIdentifier.map { $0.utf8.count < Self.fullSourceIdentifierDigits },
            publisher: aak || verdict.version != "1.0" ? fields.sourceAppId == nil && fields.sourceDomain == nil : nil)
    }
}
