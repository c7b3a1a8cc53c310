/// Apple's Info.plist keys for AdAttributionKit and SKAdNetwork, with the types and ranges Apple documents.
public enum AttributionPlistKeys {
    /// Dictionary: the advertised app's postback copies.
    /// https://developer.apple.com/documentation/adattributionkit/configuring-an-advertised-app
    public static let adAttributionKit = "AdAttributionKit"
    /// String, inside `AdAttributionKit`: `https://` and a domain; Apple posts copies to its registrable part, at
    /// `/.well-known/appattribution/report-attribution/`.
    /// https://developer.apple.com/documentation/bundleresources/information-property-list/attributioncopyendpoint
    public static let attributionCopyEndpoint = "AttributionCopyEndpoint"
    /// Boolean, inside `AdAttributionKit`: copies of winning re-engagement postbacks too (iOS 18).
    /// https://developer.apple.com/documentation/bundleresources/information-property-list/eligibleforadattributionkitreengagementpostbackcopies
    public static let reengagementPostbackCopies = "EligibleForAdAttributionKitReengagementPostbackCopies"
    /// Boolean, inside `AdAttributionKit`: overlapping re-engagement conversions, told apart by conversion tags
    /// (iOS 18.4). https://developer.apple.com/videos/play/wwdc2025/221/
    public static let overlappingConversions = "EligibleForAdAttributionKitOverlappingConversions"

    /// Dictionary: the attribution rules (iOS 18.4).
    /// https://developer.apple.com/documentation/adattributionkit/configuring-attribution-rules-for-your-app
    public static let configurations = "AdAttributionKitConfigurations"
    /// Dictionary inside `AdAttributionKitConfigurations`: `global` and ad network ids, each → `install` → windows.
    public static let attributionWindows = "AttributionWindows"
    public static let global = "global"
    public static let install = "install"
    /// Number inside `install`: days click impressions count.
    public static let click = "click"
    /// Number inside `install`: days view impressions count.
    public static let view = "view"
    /// String inside an ad network's `install`: `click` or `view`.
    public static let ignoreInteractionType = "ignoreInteractionType"
    /// Dictionary inside `AdAttributionKitConfigurations`.
    public static let attributionCooldown = "AttributionCooldown"
    /// Number inside `AttributionCooldown`: hours.
    public static let installCooldownHours = "install-cooldown-hours"
    /// Number inside `AttributionCooldown`: hours. Apple's page spells it with a hyphen after "re".
    public static let reengagementCooldownHours = "re-engagement-cooldown-hours"

    /// Array of strings: the publisher app's ad networks, lower case.
    /// https://developer.apple.com/documentation/adattributionkit/configuring-a-publisher-app
    /// https://developer.apple.com/documentation/bundleresources/information-property-list/adnetworkidentifiers
    public static let adNetworkIdentifiers = "AdNetworkIdentifiers"
    /// Array of dictionaries, each with one `SKAdNetworkIdentifier` string: the publisher app's SKAdNetwork networks,
    /// which AdAttributionKit reads too.
    /// https://developer.apple.com/documentation/bundleresources/information-property-list/skadnetworkitems
    /// https://developer.apple.com/documentation/adattributionkit/adattributionkit-skadnetwork-interoperability
    public static let skAdNetworkItems = "SKAdNetworkItems"
    public static let skAdNetworkIdentifier = "SKAdNetworkIdentifier"
    /// String: where SKAdNetwork sends the advertised app's postback copies (`/.well-known/skadnetwork/…`).
    /// https://developer.apple.com/documentation/bundleresources/information-property-list/nsadvertisingattributionreportendpoint
    public static let skAdNetworkReportEndpoint = "NSAdvertisingAttributionReportEndpoint"

    /// Days a click impression may be made to count (Apple's default 30).
    public static let clickDays: ClosedRange<Int64> = 1...30
    /// Days a view impression may be made to count (Apple's default 1).
    public static let viewDays: ClosedRange<Int64> = 1...7
    /// Hours of either cooldown.
    public static let cooldownHours: ClosedRange<Int64> = 0...720
    /// The interaction types an ad network's impressions can be ignored for.
    public static let interactionTypes = ["click", "view"]

    /// The keys Apple defines inside each dictionary the checker reads, by its key path.
    static let defined: [String: [String]] = [
        adAttributionKit: [attributionCopyEndpoint, reengagementPostbackCopies, overlappingConversions],
        configurations: [attributionWindows, attributionCooldown],
        attributionCooldown: [installCooldownHours, reengagementCooldownHours],
        install: [click, view, ignoreInteractionType],
    ]

    /// Names seen in guides that Apple's pages do not define, with Apple's key for the same thing.
    static let misnamed = [
        "OptInForReengagementPostbackCopies": reengagementPostbackCopies,
        "reengagement-cooldown-hours": reengagementCooldownHours,
    ]

    /// The top-level keys of these frameworks.
    static let topLevel = [adAttributionKit, configurations, adNetworkIdentifiers, skAdNetworkItems, skAdNetworkReportEndpoint]

    /// Whether a top-level key looks meant for ad attribution, so a misspelling of one is reported.
    static func looksLikeAttributionKey(_ key: String) -> Bool {
        let lower = key.lowercased()
        return ["adattribution", "skadnetwork", "adnetwork", "attributioncopy", "attributionwindow", "attributioncooldown",
                "advertisingattribution"].contains { lower.contains($0) }
    }

    /// The registrable part of a host name, the way Apple reads the endpoint (subdomains ignored). Without the public
    /// suffix list this is the last two labels, or three when the second-level label is a common registry's
    /// (`example.co.uk`).
    public static func registrableDomain(_ host: String) -> String {
        let labels = host.lowercased().split(separator: ".").map(String.init)
        guard labels.count > 2 else { return labels.joined(separator: ".") }
        let secondLevel = ["co", "com", "net", "org", "ac", "gov", "edu", "ne", "or", "go"]
        let count = labels[labels.count - 1].count == 2 && secondLevel.contains(labels[labels.count - 2]) ? 3 : 2
        return labels.suffix(count).joined(separator: ".")
    }
}
