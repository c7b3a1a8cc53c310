import LinkRunwayAPI
import RunwayKit

/// One rule's conditions in the form a redirect tests quickly: platforms and device classes as bit masks, OS bounds as
/// numbers, countries as two packed bytes, languages as lower-case bytes, the time window in milliseconds. An empty
/// list is no condition. Conditions are tested cheapest first, and the facts they need are found only then.
struct CompiledRule: Sendable, Equatable {
    let platforms: UInt8
    let devices: UInt8
    /// Bits of `LinkCondition.inAppBrowserValues`.
    let inAppBrowsers: UInt32
    let minimum: OSVersion?
    let maximum: OSVersion?
    let countries: [UInt16]
    let languages: [[UInt8]]
    let from: Int64?
    let until: Int64?
    let destination: LinkRouting.Destination?
    let variants: LinkRouting.Variants?

    init(_ rule: LinkRule, utm: [LinkRouting.QueryPair]) {
        let when = rule.when
        platforms = Self.mask(when.platforms, of: LinkCondition.platformValues)
        devices = Self.mask(when.devices, of: LinkCondition.deviceValues)
        inAppBrowsers = (when.inAppBrowsers ?? []).reduce(0) { mask, value in
            LinkCondition.inAppBrowserValues.firstIndex(of: value).map { mask | 1 << UInt32($0) } ?? mask
        }
        minimum = when.osVersion?.min.flatMap { OSVersion($0) }
        maximum = when.osVersion?.max.flatMap { OSVersion($0) }
        countries = (when.countries ?? []).compactMap(Self.packed)
        languages = (when.languages ?? []).map { Array($0.lowercased().utf8) }
        from = when.from.flatMap(ISOTime.milliseconds)
        until = when.until.flatMap(ISOTime.milliseconds)
        destination = rule.url.map { LinkRouting.Destination($0, utm: utm) }
        variants = rule.variants.flatMap { LinkRouting.Variants($0, utm: utm) }
    }

    /// Bit `i` for each of `values[i]` named in `list`; 0 (any) for no list.
    static func mask(_ list: [String]?, of values: [String]) -> UInt8 {
        (list ?? []).reduce(0) { mask, value in values.firstIndex(of: value).map { mask | 1 << UInt8($0) } ?? mask }
    }

    static let anyInAppBrowser: UInt32 = 1 << UInt32(LinkCondition.inAppBrowserValues.count - 2)
    static let noInAppBrowser: UInt32 = 1 << UInt32(LinkCondition.inAppBrowserValues.count - 1)

    /// The condition's bits a client meets: its app's and `any`, or `none` for a browser.
    static func inAppBrowserBits(_ app: InAppBrowser?) -> UInt32 {
        guard let app else { return noInAppBrowser }
        return (LinkCondition.inAppBrowserValues.firstIndex(of: app.rawValue).map { 1 << UInt32($0) } ?? 0) | anyInAppBrowser
    }

    /// Two ASCII capitals as one number (`FR` → 0x4652).
    static func packed(_ country: String) -> UInt16? {
        let bytes = Array(country.uppercased().utf8)
        guard bytes.count == 2 else { return nil }
        return UInt16(bytes[0]) << 8 | UInt16(bytes[1])
    }

    /// Whether every condition holds for the request.
    func holds(_ facts: inout RequestFacts) -> Bool {
        if let from, facts.now < from { return false }
        if let until, facts.now >= until { return false }
        if platforms != 0 {
            guard let bit = LinkCondition.platformValues.firstIndex(of: facts.client.platform), platforms & 1 << UInt8(bit) != 0 else { return false }
        }
        if devices != 0, devices & 1 << facts.device.rawValue == 0 { return false }
        if inAppBrowsers != 0, inAppBrowsers & Self.inAppBrowserBits(facts.client.inAppBrowser) == 0 { return false }
        if minimum != nil || maximum != nil {
            guard let version = facts.osVersion else { return false }
            if let minimum, version < minimum { return false }
            if let maximum, !version.isAtMost(maximum) { return false }
        }
        if !languages.isEmpty, !languages.contains(where: { facts.firstLanguage(is: $0) }) { return false }
        if !countries.isEmpty {
            guard let country = facts.country.flatMap(Self.packed), countries.contains(country) else { return false }
        }
        return true
    }
}

/// A version as `major.minor`; a bound written as a major alone (`17`) takes in all of that major's minors.
struct OSVersion: Sendable, Equatable, Comparable {
    let major: Int
    /// Nil when only the major was given.
    let minor: Int?

    init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let major = Int(parts[0]), major >= 0 else { return nil }
        self.major = major
        if parts.count == 2 {
            guard let minor = Int(parts[1]), minor >= 0 else { return nil }
            self.minor = minor
        } else {
            minor = nil
        }
    }

    static func < (lhs: OSVersion, rhs: OSVersion) -> Bool {
        (lhs.major, lhs.minor ?? 0) < (rhs.major, rhs.minor ?? 0)
    }

    /// At most `bound`, where a bound without a minor covers every minor of its major.
    func isAtMost(_ bound: OSVersion) -> Bool {
        guard let boundMinor = bound.minor else { return major <= bound.major }
        return (major, minor ?? 0) <= (bound.major, boundMinor)
    }
}
