/// How AdAttributionKit attributes an app's installs, as its Info.plist tells the system (iOS 18.4 and later for the
/// windows and cooldowns): kept on the app so `GET /v1/apps/{appId}/info-plist` can write the keys.
/// https://developer.apple.com/documentation/adattributionkit/configuring-attribution-rules-for-your-app
public struct AdAttributionSettings: Codable, Sendable, Equatable {
    /// `EligibleForAdAttributionKitReengagementPostbackCopies`: this server also receives winning re-engagement copies.
    public var reengagementPostbackCopies: Bool
    /// `EligibleForAdAttributionKitOverlappingConversions`: several re-engagement conversions may be open at once
    /// (their URLs carry a conversion tag).
    public var overlappingConversions: Bool
    /// `AttributionWindows`: at most one without an ad network (`global`) and one per ad network.
    public var attributionWindows: [AttributionWindowSetting]
    /// `install-cooldown-hours`: hours after an install conversion before the system takes another conversion.
    public var installCooldownHours: Int?
    /// `re-engagement-cooldown-hours`: hours after a re-engagement conversion before it takes another.
    public var reengagementCooldownHours: Int?

    public init(reengagementPostbackCopies: Bool = false, overlappingConversions: Bool = false,
                attributionWindows: [AttributionWindowSetting] = [], installCooldownHours: Int? = nil,
                reengagementCooldownHours: Int? = nil) {
        self.reengagementPostbackCopies = reengagementPostbackCopies
        self.overlappingConversions = overlappingConversions
        self.attributionWindows = attributionWindows
        self.installCooldownHours = installCooldownHours
        self.reengagementCooldownHours = reengagementCooldownHours
    }
}

extension AdAttributionSettings: DescribedWireType {
    public static let role = WireRole.request
    public static let summary: String? = "The AdAttributionKit keys of the app's Info.plist: postback copies and attribution rules."
    public static let notes: [String: FieldNote] = [
        "reengagementPostbackCopies": FieldNote("EligibleForAdAttributionKitReengagementPostbackCopies: receive copies of re-engagement postbacks too."),
        "overlappingConversions": FieldNote("EligibleForAdAttributionKitOverlappingConversions: allow overlapping re-engagement conversions."),
        "attributionWindows": .list(of: nil, "AttributionWindows: the global one (no adNetworkId) and one per ad network, no repeats.", maxItems: 100),
        "installCooldownHours": .between(0, 720, "install-cooldown-hours (0–720)."),
        "reengagementCooldownHours": .between(0, 720, "re-engagement-cooldown-hours (0–720)."),
    ]
}

/// One entry of `AttributionWindows`: how long install impressions count, for every ad network or for one.
public struct AttributionWindowSetting: Codable, Sendable, Equatable {
    /// The ad network whose impressions this covers, lower case; absent for the `global` entry.
    public var adNetworkId: String?
    /// `install` → `click`: days a click (StoreKit-rendered or tapped) impression stays eligible, 1–30.
    public var clickDays: Int?
    /// `install` → `view`: days a view impression stays eligible, 1–7.
    public var viewDays: Int?
    /// `install` → `ignoreInteractionType`: `click` or `view`, impressions of that kind from this network are ignored.
    /// Ad networks only; Apple ignores it in the global entry.
    public var ignoreInteractionType: String?

    public init(adNetworkId: String? = nil, clickDays: Int? = nil, viewDays: Int? = nil, ignoreInteractionType: String? = nil) {
        self.adNetworkId = adNetworkId
        self.clickDays = clickDays
        self.viewDays = viewDays
        self.ignoreInteractionType = ignoreInteractionType
    }
}

extension AttributionWindowSetting: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "adNetworkId": FieldNote("The ad network (lower case); absent for the global window.", pattern: WirePattern.adNetworkId),
        "clickDays": .between(1, 30, "Days click impressions count (Apple's default 30)."),
        "viewDays": .between(1, 7, "Days view impressions count (Apple's default 1)."),
        "ignoreInteractionType": .oneOf(["click", "view"], "Ignore this network's impressions of this kind."),
    ]
}

extension WirePattern {
    /// An ad network id as Apple matches it: lower-case letters, digits, `.`, `-` and `_`.
    public static let adNetworkId = "^[a-z0-9._-]{3,100}$"
}

/// `GET /v1/apps/{appId}/info-plist`: the keys an app's Info.plist needs, as a property list document.
public struct InfoPlistFragment: Codable, Sendable, Equatable {
    public var appId: String
    /// `advertised`, `publisher` or `both`.
    public var role: String
    /// An XML property list holding only the attribution keys, to merge into the app's Info.plist.
    public var plist: String
    /// What to know before using it (say, no verified link domain to receive postback copies).
    public var notes: [String]

    public init(appId: String, role: String, plist: String, notes: [String] = []) {
        self.appId = appId
        self.role = role
        self.plist = plist
        self.notes = notes
    }

    /// The roles an app can ask the keys of.
    public static let roles = ["both", "advertised", "publisher"]
}

extension InfoPlistFragment: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "appId": .id("The app."), "role": .oneOf(roles, "Which keys: the advertised app's, the publisher app's, or both."),
        "plist": FieldNote("The XML property list."), "notes": .list(of: nil, "Things to know, for people."),
    ]
}

/// `POST /v1/info-plist/check`: an Info.plist (XML) to check against Apple's rules for the attribution keys.
public struct CheckInfoPlistRequest: Codable, Sendable {
    /// The workspace whose link domains are this server's (admin keys).
    public var workspaceId: String?
    /// The whole Info.plist, or the attribution keys alone, as XML.
    public var plist: String

    public init(workspaceId: String? = nil, plist: String) {
        self.workspaceId = workspaceId
        self.plist = plist
    }
}

extension CheckInfoPlistRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "workspaceId": .adminWorkspace, "plist": FieldNote("An XML property list.", minLength: 1, maxLength: 262_144),
    ]
}

/// What the check found: nothing is `ok`.
public struct InfoPlistCheck: Codable, Sendable, Equatable {
    /// True when no finding is an error.
    public var ok: Bool
    public var findings: [InfoPlistFinding]

    public init(findings: [InfoPlistFinding]) {
        self.ok = !findings.contains { $0.level == "error" }
        self.findings = findings
    }
}

extension InfoPlistCheck: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "ok": FieldNote("No errors (warnings may remain)."), "findings": .list(of: nil, "Errors first, in key order."),
    ]
}

/// One mistake in an Info.plist, at the key path it concerns.
public struct InfoPlistFinding: Codable, Sendable, Equatable {
    /// `error` (the system ignores or rejects it) or `warning` (allowed, but probably not what was meant).
    public var level: String
    /// The key path, dot-separated: `AdAttributionKitConfigurations.AttributionWindows.global.install.view`.
    public var key: String
    public var message: String

    public init(level: String, key: String, message: String) {
        self.level = level
        self.key = key
        self.message = message
    }
}

extension InfoPlistFinding: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "level": .oneOf(["error", "warning"], "How bad."), "key": FieldNote("The key path."), "message": FieldNote("What is wrong, for people."),
    ]
}
