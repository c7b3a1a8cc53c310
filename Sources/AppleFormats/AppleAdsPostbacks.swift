/// Apple Ads as an ad network: postbacks whose ad network is Apple Ads' own id, and the App Store placement that
/// its campaign id (SKAdNetwork 1.0–3.0) or source identifier (later SKAdNetwork, AdAttributionKit) stands for.
/// Apple Ads sends no campaign, ad group or keyword in a postback: only one of four numbers, one a placement. Those
/// come from the AdServices attribution API instead (`AppleAds` capability).
public enum AppleAdsPostbacks {
    /// The ad network id Apple Ads' postbacks carry (`ad-network-id`, `ad-network-identifier`).
    public static let adNetworkId = "com.apple.ads"
    /// How reports name it.
    public static let name = "Apple Ads"

    /// Where in the App Store the ad ran.
    public enum Placement: String, CaseIterable, Sendable {
        case searchResults = "search_results"
        case searchTab = "search_tab"
        case todayTab = "today_tab"
        case productPages = "product_pages"
        /// An Apple Ads postback with a number that names no placement known yet (kept as sent beside it).
        case other

        /// In words, for tables.
        public var words: String {
            switch self {
            case .searchResults: "search results"
            case .searchTab: "Search tab"
            case .todayTab: "Today tab"
            case .productPages: "product pages"
            case .other: "another placement"
            }
        }

        /// For reports: `Apple Ads: search results`.
        public var label: String { AppleAdsPostbacks.name + ": " + words }
    }

    /// The placement each number stands for.
    static let placements: [Int: Placement] = [10: .searchResults, 20: .searchTab, 30: .todayTab, 40: .productPages]

    /// The network's name when LinkRunway knows it (only Apple Ads'); nil for every other id.
    public static func networkName(_ adNetworkId: String?) -> String? {
        adNetworkId == Self.adNetworkId ? name : nil
    }

    /// The placement of an Apple Ads postback, from its campaign id or source identifier (digits, as stored); nil for
    /// a postback of any other ad network, or one with neither number.
    public static func placement(adNetworkId: String?, identifier: String?) -> Placement? {
        guard adNetworkId == Self.adNetworkId, let identifier else { return nil }
        return Int(identifier).flatMap { placements[$0] } ?? .other
    }
}
