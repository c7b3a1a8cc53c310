import AppleFormats
import LinkRunwayAPI
import RunwayKit

/// The Info.plist keys each role needs, from the app's settings and its workspace's domains and ad networks, with
/// Apple's key names and value types (`AttributionPlistKeys`).
enum InfoPlistRendering {
    typealias Keys = AttributionPlistKeys
    typealias Entries = [(key: String, value: PropertyList)]

    /// The advertised app's keys: where Apple sends postback copies (both frameworks, at `endpointHost`), the
    /// opt-ins, and the attribution rules when any is set.
    /// https://developer.apple.com/documentation/adattributionkit/configuring-an-advertised-app
    static func advertised(_ settings: AdAttributionSettings, endpointHost: String?) -> Entries {
        var copies: Entries = []
        var entries: Entries = []
        if let endpointHost {
            copies.append((Keys.attributionCopyEndpoint, .string("https://\(endpointHost)")))
        }
        if settings.reengagementPostbackCopies { copies.append((Keys.reengagementPostbackCopies, .boolean(true))) }
        if settings.overlappingConversions { copies.append((Keys.overlappingConversions, .boolean(true))) }
        if !copies.isEmpty { entries.append((Keys.adAttributionKit, .dictionary(copies))) }
        let rules = configurations(settings)
        if !rules.isEmpty { entries.append((Keys.configurations, .dictionary(rules))) }
        if let endpointHost { entries.append((Keys.skAdNetworkReportEndpoint, .string("https://\(endpointHost)"))) }
        return entries
    }

    /// `AdAttributionKitConfigurations`: the global window first, then each network's, then the cooldowns.
    /// https://developer.apple.com/documentation/adattributionkit/configuring-attribution-rules-for-your-app
    static func configurations(_ settings: AdAttributionSettings) -> Entries {
        var rules: Entries = []
        let windows = settings.attributionWindows.sorted { ($0.adNetworkId == nil ? 0 : 1) < ($1.adNetworkId == nil ? 0 : 1) }
        if !windows.isEmpty {
            rules.append((Keys.attributionWindows, .dictionary(windows.map { window in
                var install: Entries = []
                if let ignored = window.ignoreInteractionType { install.append((Keys.ignoreInteractionType, .string(ignored))) }
                if let days = window.clickDays { install.append((Keys.click, .integer(Int64(days)))) }
                if let days = window.viewDays { install.append((Keys.view, .integer(Int64(days)))) }
                return (window.adNetworkId ?? Keys.global, .dictionary([(Keys.install, .dictionary(install))]))
            })))
        }
        var cooldown: Entries = []
        if let hours = settings.installCooldownHours { cooldown.append((Keys.installCooldownHours, .integer(Int64(hours)))) }
        if let hours = settings.reengagementCooldownHours { cooldown.append((Keys.reengagementCooldownHours, .integer(Int64(hours)))) }
        if !cooldown.isEmpty { rules.append((Keys.attributionCooldown, .dictionary(cooldown))) }
        return rules
    }

    /// The publisher app's keys: every ad network of the workspace, lower case, in AdAttributionKit's
    /// `AdNetworkIdentifiers` and in SKAdNetwork's `SKAdNetworkItems`.
    /// https://developer.apple.com/documentation/adattributionkit/configuring-a-publisher-app
    static func publisher(adNetworkIds: [String]) -> Entries {
        var seen: Set<String> = []
        let ids = adNetworkIds.map { $0.lowercased() }.filter { seen.insert($0).inserted }
        guard !ids.isEmpty else { return [] }
        return [
            (Keys.adNetworkIdentifiers, .array(ids.map { .string($0) })),
            (Keys.skAdNetworkItems, .array(ids.map { .dictionary([(Keys.skAdNetworkIdentifier, .string($0))]) })),
        ]
    }

    /// What to tell people about the fragment of `role`.
    static func notes(role: String, endpointHost: String?, adNetworkIds: [String]) -> [String] {
        var notes: [String] = []
        if role != "publisher" {
            if let endpointHost {
                let registrable = Keys.registrableDomain(endpointHost)
                if registrable != endpointHost {
                    notes.append("Apple posts copies to \(registrable), ignoring subdomains: that domain must pass /.well-known/appattribution/ and /.well-known/skadnetwork/ to this server.")
                }
            } else {
                notes.append("The workspace has no verified link domain, so the keys naming where Apple sends postback copies are left out. Add and verify a link domain first.")
            }
        }
        if role != "advertised", adNetworkIds.isEmpty {
            notes.append("The workspace has no ad networks, so there are no publisher keys. Add one with POST /v1/ad-networks.")
        }
        return notes
    }
}
