import LinkRunwayAPI
import RunwayKit
import RunwayStore

/// The Apple Ads claims table's rows as the capability reads them (`RowDecoder`), and the wire forms made from them.
enum AppleAdsRows {
    /// A claim as its client sees it.
    struct Claim: Decodable {
        let installId: String
        let status: String
        let nextAttemptAt: Int64
        let testData: Bool
        let orgId: String?
        let campaignId: String?
        let adGroupId: String?
        let keywordId: String?
        let adId: String?
        let conversionType: String?
        let claimType: String?
        let clickDate: Int64?
        let impressionDate: Int64?
        let countryOrRegion: String?
        let supplyPlacement: String?

        static let columns = """
            install_id, status, next_attempt_at, test_data, org_id, campaign_id, ad_group_id, keyword_id, ad_id, conversion_type, claim_type,
            click_date, impression_date, country_or_region, supply_placement
            """

        /// The wire form at `now`: a pending claim says in how many seconds to ask again (at least one).
        func wire(now: Int64) -> AppleAdsClaim {
            let attribution = status == "attributed" ? AppleAdsAttribution(
                orgId: orgId, campaignId: campaignId, adGroupId: adGroupId, keywordId: keywordId, adId: adId, conversionType: conversionType,
                claimType: claimType, clickDate: clickDate.map(Timestamp.iso), impressionDate: impressionDate.map(Timestamp.iso),
                countryOrRegion: countryOrRegion, supplyPlacement: supplyPlacement) : nil
            let retry = status == "pending" ? Int(max(1, (nextAttemptAt - now + 999) / 1000)) : nil
            return AppleAdsClaim(installId: installId, status: status, retryAfter: retry, attribution: attribution, testData: testData)
        }
    }

    /// A claim's status alone.
    struct Status: Decodable {
        let status: String
    }

    /// A claim due to be asked about.
    struct Due: Decodable {
        let appId: String
        let installId: String
    }

    /// What asking Apple about a claim whose lease was just taken needs.
    struct Taken: Decodable {
        let token: String?
        let receivedAt: Int64
        let attempts: Int64
        let notFoundInARow: Int64
    }

    /// Claims counted by status and conversion type.
    struct Count: Decodable {
        let status: String
        let conversionType: String?
        let n: Int
    }
}
