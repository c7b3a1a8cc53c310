/// One of a link's ordered rules: the first whose conditions all hold decides where a click goes, to its `url` or
/// split between its `variants`. A link whose rules all fail uses its own destinations and variants.
public struct LinkRule: Codable, Sendable, Equatable {
    /// A label for people (the console, reports of rules).
    public var name: String?
    /// What must all hold; an empty object always holds.
    public var when: LinkCondition
    /// Where a matching click goes, whatever its platform.
    public var url: String?
    /// Weighted variants of destination and preview, chosen per click; a variant without a `url` goes to `url`.
    public var variants: [LinkVariant]?

    public init(name: String? = nil, when: LinkCondition = LinkCondition(), url: String? = nil, variants: [LinkVariant]? = nil) {
        self.name = name
        self.when = when
        self.url = url
        self.variants = variants
    }
}

extension LinkRule: DescribedWireType {
    public static let role = WireRole.request
    public static let summary: String? = "A rule: the first whose conditions all hold sends the click to its url or its variants."
    public static let notes: [String: FieldNote] = [
        "name": FieldNote("A label, 1 to 100 characters.", minLength: 1, maxLength: 100),
        "url": FieldNote("Where a matching click goes (an absolute https:// URL).", pattern: WirePattern.https, maxLength: 2048),
        "variants": .list(of: nil, "Weighted variants; at least one weight above 0.", minItems: 1, maxItems: LinkVariant.limit),
    ]
}

/// The conditions of a rule, all of which must hold. Everything comes from the request itself: the User-Agent
/// (platform, OS version, device class), Accept-Language, the country of the address (never the address) and the time.
public struct LinkCondition: Codable, Sendable, Equatable {
    /// `ios`, `android`, `desktop` (anything else that is not a preview or a bot).
    public var platforms: [String]?
    /// Inclusive; only clients whose User-Agent names their OS version match.
    public var osVersion: LinkVersionRange?
    /// ISO 3166-1 alpha-2 codes, from the operator's country database; never matches without one.
    public var countries: [String]?
    /// Language tags matched against the first language of Accept-Language: `en` matches `en-GB`, `pt-BR` only itself.
    public var languages: [String]?
    /// `phone`, `tablet`, `desktop`, `tv`, from the User-Agent.
    public var devices: [String]?
    /// The app whose own browser the click comes from (`instagram`, `tiktok`…), `any` of them, or `none` (a browser).
    public var inAppBrowsers: [String]?
    /// The rule holds from this time…
    public var from: String?
    /// …until this one (excluded).
    public var until: String?

    public init(platforms: [String]? = nil, osVersion: LinkVersionRange? = nil, countries: [String]? = nil, languages: [String]? = nil,
                devices: [String]? = nil, inAppBrowsers: [String]? = nil, from: String? = nil, until: String? = nil) {
        self.platforms = platforms
        self.osVersion = osVersion
        self.countries = countries
        self.languages = languages
        self.devices = devices
        self.inAppBrowsers = inAppBrowsers
        self.from = from
        self.until = until
    }

    public static let platformValues = ["ios", "android", "desktop"]
    public static let deviceValues = ["phone", "tablet", "desktop", "tv"]
    /// The in-app browsers recognised (`webview`: one that names no app), then `any` of them and `none`.
    public static let inAppBrowserValues = ["threads", "messenger", "instagram", "facebook", "tiktok", "linkedin", "x", "snapchat", "wechat",
                                            "line", "pinterest", "telegram", "discord", "google", "kakaotalk", "gmail", "webview", "any",
                                            "none"]
}

extension LinkCondition: DescribedWireType {
    public static let role = WireRole.request
    public static let summary: String? = "What must all hold for a rule; an empty object always holds."
    public static let notes: [String: FieldNote] = [
        "platforms": .list(of: .oneOf(platformValues, "A platform."), "The client's platform, from the User-Agent.", minItems: 1, maxItems: 3),
        "countries": .list(of: FieldNote("ISO 3166-1 alpha-2.", pattern: "^[A-Za-z]{2}$"),
                           "Countries of the client's address, from the country database; never matches without one.", minItems: 1, maxItems: 250),
        "languages": .list(of: FieldNote("A language tag (en, pt-BR).", pattern: "^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$", maxLength: 35),
                           "Matched against the first language of Accept-Language; en matches en-GB.", minItems: 1, maxItems: 50),
        "devices": .list(of: .oneOf(deviceValues, "A device class."), "The device class, from the User-Agent.", minItems: 1, maxItems: 4),
        "inAppBrowsers": .list(of: .oneOf(inAppBrowserValues, "An app, any, or none."),
                               "The app whose own browser the click comes from, from the User-Agent; any of them; none (a browser).",
                               minItems: 1, maxItems: inAppBrowserValues.count),
        "from": FieldNote("The rule holds from this time.", format: "date-time"),
        "until": FieldNote("The rule holds until this time (excluded).", format: "date-time"),
    ]
}

/// An inclusive range of OS versions: `17` is any 17.x, `17.4` is 17.4 and its patches.
public struct LinkVersionRange: Codable, Sendable, Equatable {
    public var min: String?
    public var max: String?

    public init(min: String? = nil, max: String? = nil) {
        self.min = min
        self.max = max
    }
}

extension LinkVersionRange: DescribedWireType {
    public static let componentName: String? = nil
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "min": FieldNote("The lowest version, major or major.minor.", pattern: "^[0-9]{1,3}(\\.[0-9]{1,3})?$"),
        "max": FieldNote("The highest version, major or major.minor.", pattern: "^[0-9]{1,3}(\\.[0-9]{1,3})?$"),
    ]
}

/// One of the weighted variants (A/B/n) of a link or a rule: its share of clicks, and the destination and preview it
/// shows instead. The variant is chosen per click, recorded on it and carried into the install it brings, its events
/// and its revenue.
public struct LinkVariant: Codable, Sendable, Equatable {
    /// Recorded on clicks, installs and events; reports group by it.
    public var name: String
    /// Its share: weight over the sum of the list's weights.
    public var weight: Int
    /// Where its clicks go instead.
    public var url: String?
    /// The preview it shows instead (in messengers and on the interstitial).
    public var preview: LinkPreview?

    public init(name: String, weight: Int, url: String? = nil, preview: LinkPreview? = nil) {
        self.name = name
        self.weight = weight
        self.url = url
        self.preview = preview
    }

    /// Most variants in one list.
    public static let limit = 10
}

extension LinkVariant: DescribedWireType {
    public static let role = WireRole.request
    public static let summary: String? = "A weighted variant of destination and preview."
    public static let notes: [String: FieldNote] = [
        "name": FieldNote("1 to 40 letters, digits, - and _; unique in its list.", pattern: "^[A-Za-z0-9_-]{1,40}$"),
        "weight": .between(0, 10_000, "Its share of clicks: weight over the list's total."),
        "url": FieldNote("Where its clicks go instead (an absolute https:// URL).", pattern: WirePattern.https, maxLength: 2048),
    ]
}

/// Where a link sends people instead of its "not found" or "expired" page.
public struct LinkFallbacks: Codable, Sendable, Equatable {
    /// Before `startsAt` (instead of 404).
    public var beforeStart: String?
    /// After `expiresAt` (instead of 410).
    public var expired: String?
    /// Once `clickLimit` clicks are counted (instead of 410).
    public var overLimit: String?

    public init(beforeStart: String? = nil, expired: String? = nil, overLimit: String? = nil) {
        self.beforeStart = beforeStart
        self.expired = expired
        self.overLimit = overLimit
    }
}

extension LinkFallbacks: DescribedWireType {
    public static let role = WireRole.request
    public static let summary: String? = "Pages a link redirects to instead of its 404 or 410 page."
    public static let notes: [String: FieldNote] = [
        "beforeStart": FieldNote("Before startsAt, instead of 404.", pattern: WirePattern.https, maxLength: 2048),
        "expired": FieldNote("After expiresAt, instead of 410.", pattern: WirePattern.https, maxLength: 2048),
        "overLimit": FieldNote("Once clickLimit clicks are counted, instead of 410.", pattern: WirePattern.https, maxLength: 2048),
    ]
}

/// A link's UTM parameters: added to the web pages it sends people to and reported.
public struct LinkUTM: Codable, Sendable, Equatable {
    public var source: String?
    public var medium: String?
    public var campaign: String?
    public var term: String?
    public var content: String?

    public init(source: String? = nil, medium: String? = nil, campaign: String? = nil, term: String? = nil, content: String? = nil) {
        self.source = source
        self.medium = medium
        self.campaign = campaign
        self.term = term
        self.content = content
    }

    /// The values as query parameters (`utm_source`…), in their usual order.
    public var parameters: [(name: String, value: String)] {
        [("utm_source", source), ("utm_medium", medium), ("utm_campaign", campaign), ("utm_term", term), ("utm_content", content)]
            .compactMap { name, value in value.map { (name: name, value: $0) } }
    }
}

extension LinkUTM: DescribedWireType {
    public static let role = WireRole.request
    public static let summary: String? = "UTM parameters added to web destinations (never to the App Store or Google Play)."
    public static let notes: [String: FieldNote] = [
        "source": .utm, "medium": .utm, "campaign": .utm, "term": .utm, "content": .utm,
    ]
}

extension FieldNote {
    static let utm = FieldNote("1 to 200 characters.", minLength: 1, maxLength: 200)
}

/// The bounds of a link's routing the server checks.
public enum LinkRoutingLimits {
    /// Most rules a link has.
    public static let rules = 50
    /// The largest click limit.
    public static let clicks: Int64 = 1_000_000_000_000
}
