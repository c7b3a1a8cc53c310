import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayKit

/// Checks an app's AdAttributionKit settings against Apple's ranges before they are stored, so every Info.plist the
/// server writes passes `AttributionPlistCheck`.
/// https://developer.apple.com/documentation/adattributionkit/configuring-attribution-rules-for-your-app
enum AdAttributionSettingsRules {
    typealias Keys = AttributionPlistKeys

    static let maxWindows = 100

    static func validate(_ settings: AdAttributionSettings) throws {
        guard settings.attributionWindows.count <= maxWindows else {
            throw RequestError.invalidField("attributionWindows", "has at most \(maxWindows) entries")
        }
        var seen: Set<String> = []
        for (index, window) in settings.attributionWindows.enumerated() {
            let field = "attributionWindows[\(index)]"
            if let id = window.adNetworkId {
                guard id == id.lowercased() else {
                    throw RequestError.invalidField("\(field).adNetworkId", "must be lower case (\(id.lowercased())); Apple matches ad network ids in lower case only")
                }
                guard id.range(of: WirePattern.adNetworkId, options: .regularExpression) != nil else {
                    throw RequestError.invalidField("\(field).adNetworkId", "must be an ad network id such as example.adattributionkit")
                }
                guard id != Keys.global else { throw RequestError.invalidField("\(field).adNetworkId", "leave it out for the global window") }
            }
            guard seen.insert(window.adNetworkId ?? "").inserted else {
                throw RequestError.invalidField("\(field).adNetworkId", window.adNetworkId.map { "\($0) has two windows" } ?? "only one window may be global")
            }
            try days(window.clickDays, Keys.clickDays, "\(field).clickDays")
            try days(window.viewDays, Keys.viewDays, "\(field).viewDays")
            if let ignored = window.ignoreInteractionType {
                guard Keys.interactionTypes.contains(ignored) else {
                    throw RequestError.invalidField("\(field).ignoreInteractionType", "must be click or view")
                }
                guard window.adNetworkId != nil else {
                    throw RequestError.invalidField("\(field).ignoreInteractionType", "Apple reads it only for an ad network, never in the global window")
                }
                guard (ignored == "click" ? window.clickDays : window.viewDays) == nil else {
                    throw RequestError.invalidField("\(field).\(ignored)Days", "\(ignored) impressions of this network are ignored, so they have no window")
                }
            }
            guard window.clickDays != nil || window.viewDays != nil || window.ignoreInteractionType != nil else {
                throw RequestError.invalidField(field, "sets nothing: give clickDays, viewDays or ignoreInteractionType")
            }
        }
        for (value, field) in [(settings.installCooldownHours, "installCooldownHours"), (settings.reengagementCooldownHours, "reengagementCooldownHours")] {
            if let value, !Keys.cooldownHours.contains(Int64(value)) {
                throw RequestError.invalidField(field, "must be \(Keys.cooldownHours.lowerBound)–\(Keys.cooldownHours.upperBound) hours")
            }
        }
    }

    private static func days(_ value: Int?, _ range: ClosedRange<Int64>, _ field: String) throws {
        if let value, !range.contains(Int64(value)) {
            throw RequestError.invalidField(field, "must be \(range.lowerBound)–\(range.upperBound) days")
        }
    }
}
