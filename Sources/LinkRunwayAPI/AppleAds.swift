/// `POST /v1/claims/apple-ads`: the AdServices token of an installation.
public struct AppleAdsClaimRequest: Codable, Sendable {
    public var installId: String
    /// From `AAAttribution.attributionToken()`; valid for 24 hours.
    public var token: String

    public init(installId: String, token: String) {
        self.installId = installId
        self.token = token
    }
}

extension AppleAdsClaimRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "installId": .installId, "token": FieldNote("The AdServices token.", pattern: "^[A-Za-z0-9+/=_-]{1,8192}$"),
    ]
}

/// What Apple said about the tap or view that led to an install.
public struct AppleAdsAttribution: Codable, Sendable, Equatable {
    public var orgId: String?
    public var campaignId: String?
    public var adGroupId: String?
    /// Absent with search match.
    public var keywordId: String?
    public var adId: String?
    /// `Download`, `Redownload` or `Preorder` (an install of an app pre-ordered from the ad, since 2025:
    /// https://developer.apple.com/documentation/adservices/changelog); kept as Apple sends it.
    public var conversionType: String?
    /// `Click` (tap, 30 days) or `Impression` (view, 24 hours).
    public var claimType: String?
    public var clickDate: String?
    public var impressionDate: String?
    public var countryOrRegion: String?
    public var supplyPlacement: String?

    public init(orgId: String?, campaignId: String?, adGroupId: String?, keywordId: String?, adId: String?, conversionType: String?,
                claimType: String?, clickDate: String?, impressionDate: String?, countryOrRegion: String?, supplyPlacement: String?) {
        self.orgId = orgId
        self.campaignId = campaignId
        self.adGroupId = adGroupId
        self.keywordId = keywordId
        self.adId = adId
        self.conversionType = conversionType
        self.claimType = claimType
        self.clickDate = clickDate
        self.impressionDate = impressionDate
        self.countryOrRegion = countryOrRegion
        self.supplyPlacement = supplyPlacement
    }
}

extension AppleAdsAttribution: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "orgId": FieldNote("Org."), "campaignId": FieldNote("Campaign."), "adGroupId": FieldNote("Ad group."),
        "keywordId": FieldNote("Keyword (absent with search match)."), "adId": FieldNote("Ad."),
        "conversionType": FieldNote("Download, Redownload or Preorder, as Apple sends it."), "claimType": FieldNote("Click or Impression."),
        "clickDate": .timestamp, "impressionDate": .timestamp, "countryOrRegion": FieldNote("Country or region."),
        "supplyPlacement": FieldNote("Placement."),
    ]
}

/// The state of an installation's Apple Ads claim.
public struct AppleAdsClaim: Codable, Sendable, Equatable {
    public var installId: String
    /// `pending` (Apple has no answer yet), `attributed`, `not_attributed`, `invalid` or `expired`.
    public var status: String
    /// Seconds until the next try, while pending.
    public var retryAfter: Int?
    public var attribution: AppleAdsAttribution?
    /// Apple's developer-mode test payload: kept, but out of reports.
    public var testData: Bool

    public init(installId: String, status: String, retryAfter: Int?, attribution: AppleAdsAttribution?, testData: Bool) {
        self.installId = installId
        self.status = status
        self.retryAfter = retryAfter
        self.attribution = attribution
        self.testData = testData
    }
}

extension AppleAdsClaim: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "installId": FieldNote("Install."),
        "status": .oneOf(["pending", "attributed", "not_attributed", "invalid", "expired"], "State."),
        "retryAfter": .between(1, nil),
    ]
}

/// `GET /v1/reports/apple-ads`: what Apple answered for the claims received in a time range.
public struct AppleAdsReport: Codable, Sendable, Equatable {
    public var from: String
    public var to: String
    public var rows: [AppleAdsReportRow]

    public init(from: String, to: String, rows: [AppleAdsReportRow]) {
        self.from = from
        self.to = to
        self.rows = rows
    }
}

extension AppleAdsReport: DescribedWireType {
    public static let notes: [String: FieldNote] = ["from": .timestamp, "to": .timestamp, "rows": .list(of: nil, "One per outcome with claims.")]
}

/// Claims with one outcome. Apple's `attribution: false` (no Apple Ads tap or view, or, since 2026, an ad group
/// targeted by age or gender: https://developer.apple.com/documentation/adservices/changelog) is "not attributed by
/// Apple", apart from claims Apple never answered.
public struct AppleAdsReportRow: Codable, Sendable, Equatable {
    /// `attributed` (with its `conversionType`), `not_attributed_by_apple`, `unanswered` (pending or expired) or
    /// `invalid` (Apple's 400).
    public var outcome: String
    /// For attributed claims: `Download`, `Redownload`, `Preorder`, or whatever else Apple sent.
    public var conversionType: String?
    /// The outcome in words.
    public var label: String
    public var claims: Int

    public init(outcome: String, conversionType: String?, label: String, claims: Int) {
        self.outcome = outcome
        self.conversionType = conversionType
        self.label = label
        self.claims = claims
    }
}

extension AppleAdsReportRow: DescribedWireType {
    /// Every outcome a claim can have in the report.
    public static let outcomes = ["attributed", "not_attributed_by_apple", "unanswered", "invalid"]

    public static let notes: [String: FieldNote] = [
        "outcome": .oneOf(outcomes, "What Apple answered."), "conversionType": FieldNote("Apple's conversionType, for attributed claims."),
        "label": FieldNote("The outcome in words."), "claims": .between(0, nil),
    ]
}
