import LinkRunwayAPI
import RunwayHTTP
import RunwayOutbound

/// Checks of fields many routes take; each failure names its field.
package enum Validate {
    package static func name(_ value: String, field: String = "name") throws -> String {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 100 else {
            throw RequestError.invalidField(field, "must be 1 to 100 characters")
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw RequestError.invalidField(field, "must not contain control characters")
        }
        return trimmed
    }

    /// Apple Team IDs are 10 upper-case letters and digits.
    package static func teamId(_ value: String) throws -> String {
        guard value.utf8.count == 10, value.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5a) }) else {
            throw RequestError.invalidField("teamId", "must be the 10-character Apple Team ID (A-Z, 0-9)")
        }
        return value
    }

    /// Reverse-DNS: letters, digits, hyphens and dots, at least two non-empty parts, at most 155 characters.
    package static func bundleId(_ value: String) throws -> String {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard value.utf8.count <= 155, parts.count >= 2, parts.allSatisfy({ !$0.isEmpty }),
              value.utf8.allSatisfy({ b in (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b == 0x2d || b == 0x2e })
        else {
            throw RequestError.invalidField("bundleId", "must be a reverse-DNS bundle ID such as com.example.app")
        }
        return value
    }

    /// App Store IDs are decimal numbers.
    package static func appStoreId(_ value: String?) throws -> String? {
        guard let value else { return nil }
        guard (1...12).contains(value.utf8.count), value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), value.first != "0" else {
            throw RequestError.invalidField("appStoreId", "must be the numeric App Store ID, as a string")
        }
        return value
    }

    package static func platforms(_ value: [Platform]?) throws -> [Platform] {
        guard let value else { return [.ios] }
        guard !value.isEmpty else { throw RequestError.invalidField("platforms", "must list at least one platform") }
        guard Set(value).count == value.count else { throw RequestError.invalidField("platforms", "must not repeat a platform") }
        return value
    }

    /// A Java package name and 1 to 10 SHA-256 certificate fingerprints (`AB:CD:…`, 32 pairs).
    package static func android(_ value: AndroidApp?) throws -> AndroidApp? {
        guard let value else { return nil }
        let segments = value.packageName.split(separator: ".", omittingEmptySubsequences: false)
        guard value.packageName.utf8.count <= 255, segments.count >= 2, segments.allSatisfy({ segment in
            guard let first = segment.first, first.isASCII, first.isLetter else { return false }
            return segment.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        }) else {
            throw RequestError.invalidField("android.packageName", "must be a Java package name such as com.example.app")
        }
        guard (1...10).contains(value.sha256CertFingerprints.count) else {
            throw RequestError.invalidField("android.sha256CertFingerprints", "must list 1 to 10 fingerprints")
        }
        let fingerprints = try value.sha256CertFingerprints.enumerated().map { i, fingerprint in
            let pairs = fingerprint.uppercased().split(separator: ":", omittingEmptySubsequences: false)
            guard pairs.count == 32, pairs.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) else {
                throw RequestError.invalidField("android.sha256CertFingerprints[\(i)]", "must be 32 hex pairs separated by colons")
            }
            return pairs.joined(separator: ":")
        }
        return AndroidApp(packageName: value.packageName, sha256CertFingerprints: fingerprints)
    }

    /// Applies an update to settings: probabilistic 0–1440 minutes, view-through 0–168 hours, click window 1–30 days.
    package static func attribution(_ update: AttributionSettingsUpdate?, onto current: AttributionSettings) throws -> AttributionSettings {
        guard let update else { return current }
        var settings = current
        if let minutes = update.probabilisticMinutes {
            guard (0...1440).contains(minutes) else { throw RequestError.invalidField("attribution.probabilisticMinutes", "must be 0 (off) to 1440") }
            settings.probabilisticMinutes = minutes
        }
        if let hours = update.viewThroughHours {
            guard (0...168).contains(hours) else { throw RequestError.invalidField("attribution.viewThroughHours", "must be 0 (off) to 168") }
            settings.viewThroughHours = hours
        }
        if let days = update.clickWindowDays {
            guard (1...30).contains(days) else { throw RequestError.invalidField("attribution.clickWindowDays", "must be 1 to 30") }
            settings.clickWindowDays = days
        }
        return settings
    }

    /// A policy of off, optional or required, and one or both environments.
    package static func attestation(_ value: AttestationSettings?) throws -> AttestationSettings? {
        guard let value else { return nil }
        guard ["off", "optional", "required"].contains(value.policy) else {
            throw RequestError.invalidField("attestation.policy", "must be off, optional or required")
        }
        guard !value.environments.isEmpty, Set(value.environments).count == value.environments.count,
              value.environments.allSatisfy({ $0 == "development" || $0 == "production" }) else {
            throw RequestError.invalidField("attestation.environments", "must list development, production or both, once each")
        }
        guard value.builds.map(AttestationSettings.buildChoices.contains) ?? true else {
            throw RequestError.invalidField("attestation.builds", "must be any, store or store_only")
        }
        return value
    }

    /// At most 5 forward URLs (https, or http to this machine) and 1000 named campaigns, one per network and id.
    package static func postbacks(_ value: PostbackSettings?, policy: OutboundPolicy) throws -> PostbackSettings? {
        guard let value else { return nil }
        guard value.forwardUrls.count <= 5 else { throw RequestError.invalidField("postbacks.forwardUrls", "may list at most 5 URLs") }
        for (i, url) in value.forwardUrls.enumerated() { _ = try Validate.outboundURL(url, field: "postbacks.forwardUrls[\(i)]", policy: policy) }
        guard Set(value.forwardUrls).count == value.forwardUrls.count else {
            throw RequestError.invalidField("postbacks.forwardUrls", "lists a URL twice")
        }
        guard value.campaigns.count <= 1000 else { throw RequestError.invalidField("postbacks.campaigns", "may name at most 1000 campaigns") }
        var seen = Set<String>()
        for (i, campaign) in value.campaigns.enumerated() {
            let field = "postbacks.campaigns[\(i)]"
            guard (1...100).contains(campaign.adNetworkId.count), campaign.adNetworkId.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                throw RequestError.invalidField(field + ".adNetworkId", "must be an ad network id, 1 to 100 characters")
            }
            guard (1...4).contains(campaign.sourceIdentifier.count), campaign.sourceIdentifier.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw RequestError.invalidField(field + ".sourceIdentifier", "must be 1 to 4 digits")
            }
            _ = try name(campaign.name, field: field + ".name")
            guard seen.insert(campaign.adNetworkId + "|" + campaign.sourceIdentifier).inserted else {
                throw RequestError.invalidField(field, "names \(campaign.adNetworkId) \(campaign.sourceIdentifier) a second time")
            }
        }
        return value
    }

    package static func id(_ value: String, prefix: String, field: String) throws -> String {
        guard Identifier.isWellFormed(value, prefix: prefix) else {
            throw RequestError.invalidField(field, "must be an id starting with \(prefix)_")
        }
        return value
    }

    /// Install ids are the SDK's random UUIDs; accept 1 to 64 letters, digits and hyphens.
    package static func installID(_ value: String?, field: String) throws -> String? {
        guard let value else { return nil }
        guard (1...64).contains(value.utf8.count), value.utf8.allSatisfy({ b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b == 0x2d
        }) else {
            throw RequestError.invalidField(field, "must be 1 to 64 letters, digits or hyphens (the SDK sends a UUID)")
        }
        return value.lowercased()
    }

    /// ISO 8601 / RFC 3339 (with or without fractional seconds, `Z` or an offset) to milliseconds.
    package static func timestamp(_ value: String?, field: String) throws -> Int64? {
        guard let value else { return nil }
        guard let milliseconds = ISOTime.milliseconds(value) else {
            throw RequestError.invalidField(field, "must be an ISO 8601 time such as 2026-12-31T23:59:59Z")
        }
        return milliseconds
    }

    /// Which moment a bare day (`2026-11-30`) means where a time is asked for.
    package enum DayEdge {
        /// Its first millisecond (a range's start).
        case start
        /// The first millisecond after it (a range's exclusive end), so a range of days includes its last one.
        case end
    }

    /// An ISO 8601 time, or a bare UTC day taken as `edge` says.
    package static func timeOrDay(_ value: String?, field: String, day edge: DayEdge) throws -> Int64? {
        guard let value else { return nil }
        if let start = ISOTime.dayStart(value) { return edge == .start ? start : start + 86_400_000 }
        guard let milliseconds = ISOTime.milliseconds(value) else {
            throw RequestError.invalidQuery("\(field) must be a day such as 2026-11-30 or an ISO 8601 time such as 2026-11-30T12:00:00Z",
                                            field: field)
        }
        return milliseconds
    }

    /// A URL the server will send to for a tenant: https only, never to this machine or a private network unless the
    /// operator allows private targets (see `OutboundPolicy`).
    package static func outboundURL(_ text: String, field: String = "url", policy: OutboundPolicy) throws -> String {
        if let refusal = policy.refusal(url: text) { throw RequestError.invalidField(field, refusal) }
        return text
    }
}
