import Foundation

/// A hostname whose links a workspace serves (`go.example.com`).
public struct LinkDomain: Codable, Sendable, Equatable {
    public var id: String
    public var workspaceId: String
    public var hostname: String
    public var createdAt: String
    /// Whether control of the hostname is proven; only a verified domain serves links.
    public var verified: Bool
    /// The DNS record to publish, while the domain is not verified.
    public var verification: DomainVerification?

    public init(id: String, workspaceId: String, hostname: String, createdAt: String, verified: Bool = true,
                verification: DomainVerification? = nil) {
        self.id = id
        self.workspaceId = workspaceId
        self.hostname = hostname
        self.createdAt = createdAt
        self.verified = verified
        self.verification = verification
    }
}

extension LinkDomain: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "id": .id("Domain id (dom_…)."), "workspaceId": .id("Owning workspace."),
        "hostname": FieldNote("The hostname.", pattern: WirePattern.hostname), "createdAt": .timestamp,
        "verified": FieldNote("Control of the hostname is proven; only verified domains serve links."),
    ]
}

/// The TXT record that proves control of a link domain: publish it, then `POST /v1/domains/{id}/verify`.
public struct DomainVerification: Codable, Sendable, Equatable {
    /// `_linkrunway-challenge.<hostname>`.
    public var recordName: String
    public var recordType: String
    /// `linkrunway-verification=<token>`.
    public var recordValue: String

    public init(recordName: String, recordType: String = "TXT", recordValue: String) {
        self.recordName = recordName
        self.recordType = recordType
        self.recordValue = recordValue
    }
}

extension DomainVerification: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "recordName": FieldNote("_linkrunway-challenge.<hostname>"), "recordType": .oneOf(["TXT"], "The record's type."),
        "recordValue": FieldNote("linkrunway-verification=<token>"),
    ]
}

public struct CreateLinkDomainRequest: Codable, Sendable {
    public var workspaceId: String?
    public var hostname: String

    public init(workspaceId: String? = nil, hostname: String) {
        self.workspaceId = workspaceId
        self.hostname = hostname
    }
}

extension CreateLinkDomainRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "workspaceId": .adminWorkspace,
        "hostname": FieldNote("go.example.com: no scheme, no port.", minLength: 1, maxLength: 253),
    ]
}

/// Where a link sends each kind of device when the app does not open it.
public struct LinkDestinations: Codable, Sendable, Equatable {
    public struct IOS: Codable, Sendable, Equatable {
        /// Defaults to the app's App Store ID.
        public var appStoreId: String?
        /// An https page to open instead of the App Store.
        public var url: String?
        public init(appStoreId: String? = nil, url: String? = nil) {
            self.appStoreId = appStoreId
            self.url = url
        }
    }

    public struct Android: Codable, Sendable, Equatable {
        /// The Play Store (or any https) URL.
        public var url: String
        public init(url: String) { self.url = url }
    }

    public var ios: IOS?
    public var android: Android?
    /// The https page for desktops and anything else.
    public var web: String?

    public init(ios: IOS? = nil, android: Android? = nil, web: String? = nil) {
        self.ios = ios
        self.android = android
        self.web = web
    }
}

extension LinkDestinations: DescribedWireType {
    public static let role = WireRole.request
    public static let summary: String? = "Where devices go when the app does not open the link."
    public static let notes: [String: FieldNote] = ["web": .httpsURL]
}

extension LinkDestinations.IOS: DescribedWireType {
    public static let componentName: String? = nil
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "appStoreId": FieldNote("Defaults to the app's.", pattern: WirePattern.appStoreId), "url": .httpsURL,
    ]
}

extension LinkDestinations.Android: DescribedWireType {
    public static let componentName: String? = nil
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = ["url": .httpsURL]
}

extension FieldNote {
    static let httpsURL = FieldNote("An absolute https:// URL.", pattern: WirePattern.https, maxLength: 2048)
    /// Where in the app a link leads.
    static let appPath = FieldNote("A place in the app, starting with /.", pattern: "^/", maxLength: 512)
    static let linkMetadata = FieldNote("Free JSON for the app, at most 8 KiB.")
    /// A campaign, channel or feature tag in a request.
    static let tag = FieldNote("1 to 100 characters.", minLength: 1, maxLength: 100)
    /// The tags of a link as answered.
    static let tags: [String: FieldNote] = [
        "campaign": FieldNote("Campaign tag."), "channel": FieldNote("Channel tag."), "feature": FieldNote("Feature tag."),
    ]
    /// What a link is created or changed with.
    static let linkChanges: [String: FieldNote] = [
        "appPath": .appPath, "metadata": .linkMetadata, "campaign": .tag, "channel": .tag, "feature": .tag,
        "expiresAt": FieldNote("After it the link answers 410, or redirects to fallbacks.expired; it is kept.", format: "date-time"),
    ].merging(routing) { $1 }
    /// The routing fields of a link, as sent and as answered.
    static let routing: [String: FieldNote] = [
        "rules": .list(of: nil, "Ordered rules; the first that holds decides. [] removes them.", maxItems: LinkRoutingLimits.rules),
        "variants": .list(of: nil, "Weighted variants used when no rule holds. [] removes them.", maxItems: LinkVariant.limit),
        "startsAt": FieldNote("Before it the link answers 404, or redirects to fallbacks.beforeStart.", format: "date-time"),
        "clickLimit": .between(0, LinkRoutingLimits.clicks, "Clicks counted before the link answers 410 or redirects to fallbacks.overLimit; 0 is no limit."),
    ]
}

/// What a link looks like when shared in a messenger or social network.
public struct LinkPreview: Codable, Sendable, Equatable {
    public var title: String?
    public var description: String?
    public var imageUrl: String?

    public init(title: String? = nil, description: String? = nil, imageUrl: String? = nil) {
        self.title = title
        self.description = description
        self.imageUrl = imageUrl
    }
}

extension LinkPreview: DescribedWireType {
    public static let role = WireRole.request
    public static let summary: String? = "What the link looks like in messengers and social networks."
    public static let notes: [String: FieldNote] = [
        "title": FieldNote("At most 300 characters.", maxLength: 300), "description": FieldNote("At most 300 characters.", maxLength: 300),
        "imageUrl": .httpsURL,
    ]
}

/// A short link on a link domain that opens a place in the app.
public struct Link: Codable, Sendable, Equatable {
    public var id: String
    public var workspaceId: String
    public var appId: String?
    /// `link` (made by the owner) or `share` (made by a user of the app).
    public var kind: String
    public var domain: String
    /// As created; matched without regard to case.
    public var path: String
    /// `https://<domain>/<path>`.
    public var url: String
    /// Where the app should go, for the app to interpret (`/promo/summer`).
    public var appPath: String?
    public var metadata: [String: JSONLiteral]?
    public var destinations: LinkDestinations
    public var campaign: String?
    public var channel: String?
    public var feature: String?
    public var preview: LinkPreview?
    /// Show a branded page before the App Store on iOS.
    public var interstitial: Bool
    /// People in an app's own browser (Instagram, TikTok…) get a page that helps them out of it instead of the redirect.
    public var inAppBrowserPage: Bool
    /// Append the click's query string to web and Android destinations.
    public var passQuery: Bool
    public var enabled: Bool
    public var expiresAt: String?
    /// For shares: the installation that shared it.
    public var referrerInstallId: String?
    public var rules: [LinkRule]?
    public var variants: [LinkVariant]?
    public var startsAt: String?
    public var clickLimit: Int?
    public var fallbacks: LinkFallbacks?
    public var utm: LinkUTM?
    public var createdAt: String
    public var updatedAt: String

    public init(id: String, workspaceId: String, appId: String?, kind: String, domain: String, path: String, url: String,
                appPath: String?, metadata: [String: JSONLiteral]?, destinations: LinkDestinations, campaign: String?,
                channel: String?, feature: String?, preview: LinkPreview?, interstitial: Bool, passQuery: Bool, enabled: Bool,
                expiresAt: String?, referrerInstallId: String?, rules: [LinkRule]? = nil, variants: [LinkVariant]? = nil,
                startsAt: String? = nil, clickLimit: Int? = nil, fallbacks: LinkFallbacks? = nil, utm: LinkUTM? = nil,
                inAppBrowserPage: Bool = false, createdAt: String, updatedAt: String) {
        self.id = id
        self.workspaceId = workspaceId
        self.appId = appId
        self.kind = kind
        self.domain = domain
        self.path = path
        self.url = url
        self.appPath = appPath
        self.metadata = metadata
        self.destinations = destinations
        self.campaign = campaign
        self.channel = channel
        self.feature = feature
        self.preview = preview
        self.interstitial = interstitial
        self.inAppBrowserPage = inAppBrowserPage
        self.passQuery = passQuery
        self.enabled = enabled
        self.expiresAt = expiresAt
        self.referrerInstallId = referrerInstallId
        self.rules = rules
        self.variants = variants
        self.startsAt = startsAt
        self.clickLimit = clickLimit
        self.fallbacks = fallbacks
        self.utm = utm
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

extension Link: DescribedWireType {
    public static let notes: [String: FieldNote] = FieldNote.tags.merging([
        "id": .id("Link id (lnk_…)."), "workspaceId": .id("Owning workspace."), "appId": .id("The app it opens."),
        "kind": .oneOf(["link", "share"], "Made by the owner, or shared by a user of the app."),
        "domain": FieldNote("Hostname."), "path": FieldNote("Path, matched without case."),
        "url": FieldNote("The full link: https, or http with the server's port on the local domain localhost.", pattern: WirePattern.link), "appPath": .appPath, "metadata": .linkMetadata,
        "expiresAt": .timestamp, "referrerInstallId": FieldNote("For shares: who shared it."),
        "createdAt": .timestamp, "updatedAt": .timestamp,
    ]) { $1 }.merging(FieldNote.routing) { $1 }.merging(["startsAt": .timestamp]) { $1 }
}

public struct CreateLinkRequest: Codable, Sendable {
    public var workspaceId: String?
    public var appId: String?
    /// One of the workspace's link domains; its first one by default.
    public var domain: String?
    /// A custom path; generated when absent.
    public var path: String?
    public var appPath: String?
    public var metadata: [String: JSONLiteral]?
    public var destinations: LinkDestinations?
    public var campaign: String?
    public var channel: String?
    public var feature: String?
    public var preview: LinkPreview?
    public var interstitial: Bool?
    public var inAppBrowserPage: Bool?
    public var passQuery: Bool?
    public var expiresAt: String?
    public var rules: [LinkRule]?
    public var variants: [LinkVariant]?
    public var startsAt: String?
    public var clickLimit: Int?
    public var fallbacks: LinkFallbacks?
    public var utm: LinkUTM?

    public init(workspaceId: String? = nil, appId: String? = nil, domain: String? = nil, path: String? = nil, appPath: String? = nil,
                metadata: [String: JSONLiteral]? = nil, destinations: LinkDestinations? = nil, campaign: String? = nil,
                channel: String? = nil, feature: String? = nil, preview: LinkPreview? = nil, interstitial: Bool? = nil,
                passQuery: Bool? = nil, expiresAt: String? = nil, rules: [LinkRule]? = nil, variants: [LinkVariant]? = nil,
                startsAt: String? = nil, clickLimit: Int? = nil, fallbacks: LinkFallbacks? = nil, utm: LinkUTM? = nil,
                inAppBrowserPage: Bool? = nil) {
        self.workspaceId = workspaceId
        self.appId = appId
        self.domain = domain
        self.path = path
        self.appPath = appPath
        self.metadata = metadata
        self.destinations = destinations
        self.campaign = campaign
        self.channel = channel
        self.feature = feature
        self.preview = preview
        self.interstitial = interstitial
        self.inAppBrowserPage = inAppBrowserPage
        self.passQuery = passQuery
        self.expiresAt = expiresAt
        self.rules = rules
        self.variants = variants
        self.startsAt = startsAt
        self.clickLimit = clickLimit
        self.fallbacks = fallbacks
        self.utm = utm
    }
}

extension CreateLinkRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = FieldNote.linkChanges.merging([
        "workspaceId": .adminWorkspace, "appId": FieldNote("Defaults to the workspace's only app."),
        "domain": FieldNote("One of the workspace's link domains; its first by default."),
        "path": FieldNote("Custom path; generated when absent.", pattern: "^[A-Za-z0-9._~-]+(/[A-Za-z0-9._~-]+)*$", minLength: 1, maxLength: 200),
    ]) { $1 }
}

/// Fields to change; absent fields stay. The path and domain of a link never change.
public struct UpdateLinkRequest: Codable, Sendable {
    public var appPath: String?
    public var metadata: [String: JSONLiteral]?
    public var destinations: LinkDestinations?
    public var campaign: String?
    public var channel: String?
    public var feature: String?
    public var preview: LinkPreview?
    public var interstitial: Bool?
    public var inAppBrowserPage: Bool?
    public var passQuery: Bool?
    public var enabled: Bool?
    public var expiresAt: String?
    public var rules: [LinkRule]?
    public var variants: [LinkVariant]?
    public var startsAt: String?
    public var clickLimit: Int?
    /// Replaces the fallbacks as a whole; `{}` removes them.
    public var fallbacks: LinkFallbacks?
    /// Replaces the UTM parameters as a whole; `{}` removes them.
    public var utm: LinkUTM?

    public init(appPath: String? = nil, metadata: [String: JSONLiteral]? = nil, destinations: LinkDestinations? = nil,
                campaign: String? = nil, channel: String? = nil, feature: String? = nil, preview: LinkPreview? = nil,
                interstitial: Bool? = nil, passQuery: Bool? = nil, enabled: Bool? = nil, expiresAt: String? = nil,
                rules: [LinkRule]? = nil, variants: [LinkVariant]? = nil, startsAt: String? = nil, clickLimit: Int? = nil,
                fallbacks: LinkFallbacks? = nil, utm: LinkUTM? = nil, inAppBrowserPage: Bool? = nil) {
        self.appPath = appPath
        self.metadata = metadata
        self.destinations = destinations
        self.campaign = campaign
        self.channel = channel
        self.feature = feature
        self.preview = preview
        self.interstitial = interstitial
        self.inAppBrowserPage = inAppBrowserPage
        self.passQuery = passQuery
        self.enabled = enabled
        self.expiresAt = expiresAt
        self.rules = rules
        self.variants = variants
        self.startsAt = startsAt
        self.clickLimit = clickLimit
        self.fallbacks = fallbacks
        self.utm = utm
    }
}

extension UpdateLinkRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let summary: String? = "Fields to change; absent or null fields stay."
    public static let notes = FieldNote.linkChanges
}

/// `POST /v1/resolve`: the app was opened by a URL.
public struct ResolveRequest: Codable, Sendable {
    public var url: String
    /// `ios`, `android` or `web`.
    public var platform: String
    public var installId: String?

    public init(url: String, platform: String, installId: String? = nil) {
        self.url = url
        self.platform = platform
        self.installId = installId
    }
}

extension ResolveRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "url": FieldNote("The URL that opened the app.", minLength: 1, maxLength: 2048),
        "platform": .oneOf(["ios", "android", "web"], "The client's platform."),
        "installId": FieldNote("The SDK's install id.", pattern: WirePattern.installId),
    ]
}

public struct ResolvedLink: Codable, Sendable, Equatable {
    public var linkId: String
    public var url: String
    public var appPath: String?
    public var metadata: [String: JSONLiteral]?
    /// Identifies this open; later events of the install carry it.
    public var clickToken: String
    /// The click, signed and expiring, for hand-offs that must not be forged (the affiliate bind).
    public var signedClickId: String
    public var campaign: String?
    public var channel: String?
    public var feature: String?

    public init(linkId: String, url: String, appPath: String?, metadata: [String: JSONLiteral]?, clickToken: String,
                signedClickId: String, campaign: String?, channel: String?, feature: String?) {
        self.linkId = linkId
        self.url = url
        self.appPath = appPath
        self.metadata = metadata
        self.clickToken = clickToken
        self.signedClickId = signedClickId
        self.campaign = campaign
        self.channel = channel
        self.feature = feature
    }
}

extension ResolvedLink: DescribedWireType {
    public static let notes: [String: FieldNote] = FieldNote.tags.merging([
        "linkId": .id("Link id."), "url": FieldNote("The link."), "appPath": .appPath, "metadata": .linkMetadata,
        "clickToken": FieldNote("Identifies this open.", pattern: "^[0-9A-Za-z]{32}$"),
        "signedClickId": FieldNote("This open, signed and expiring in 7 days."),
    ]) { $1 }
}

/// `POST /v1/shares`: a user of the app shares a place in it.
public struct CreateShareRequest: Codable, Sendable {
    public var installId: String
    public var appPath: String
    public var metadata: [String: JSONLiteral]?
    public var preview: LinkPreview?

    public init(installId: String, appPath: String, metadata: [String: JSONLiteral]? = nil, preview: LinkPreview? = nil) {
        self.installId = installId
        self.appPath = appPath
        self.metadata = metadata
        self.preview = preview
    }
}

extension CreateShareRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "installId": FieldNote("The sharing installation.", pattern: WirePattern.installId), "appPath": .appPath, "metadata": .linkMetadata,
    ]
}

public struct Share: Codable, Sendable, Equatable {
    public var linkId: String
    public var url: String
    public var path: String

    public init(linkId: String, url: String, path: String) {
        self.linkId = linkId
        self.url = url
        self.path = path
    }
}

extension Share: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "linkId": .id("Link id."), "url": FieldNote("The link to share.", pattern: WirePattern.link), "path": FieldNote("Its path."),
    ]
}

/// `POST /v1/referral-codes`: a code for an installation or a user of the app, made once and then returned again.
public struct CreateReferralCodeRequest: Codable, Sendable {
    public var installId: String?
    public var userId: String?

    public init(installId: String? = nil, userId: String? = nil) {
        self.installId = installId
        self.userId = userId
    }
}

extension CreateReferralCodeRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let summary: String? = "Give installId, userId or both (a user id wins)."
    public static let notes: [String: FieldNote] = [
        "installId": FieldNote("An installation.", pattern: WirePattern.installId),
        "userId": FieldNote("A user of the app.", minLength: 1, maxLength: 128),
    ]
}

public struct ReferralCode: Codable, Sendable, Equatable {
    /// Eight characters without look-alikes (no 0, O, 1, I or L).
    public var code: String
    public var appId: String
    public var installId: String?
    public var userId: String?
    public var createdAt: String

    public init(code: String, appId: String, installId: String?, userId: String?, createdAt: String) {
        self.code = code
        self.appId = appId
        self.installId = installId
        self.userId = userId
        self.createdAt = createdAt
    }
}

extension ReferralCode: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "code": FieldNote("Eight characters without look-alikes.", pattern: "^[2-9A-HJKMNP-Z]{8}$"), "appId": .id("App."),
        "installId": FieldNote("Installation."), "userId": FieldNote("User."), "createdAt": .timestamp,
    ]
}

/// Any JSON value, for free-form metadata.
public enum JSONLiteral: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    /// Exact: a Decimal keeps integers up to 38 digits, ids included.
    case number(Decimal)
    case string(String)
    case array([JSONLiteral])
    case object([String: JSONLiteral])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let b = try? container.decode(Bool.self) { self = .bool(b) }
        else if let n = try? container.decode(Decimal.self) { self = .number(n) }
        else if let s = try? container.decode(String.self) { self = .string(s) }
        else if let a = try? container.decode([JSONLiteral].self) { self = .array(a) }
        else { self = .object(try container.decode([String: JSONLiteral].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .number(let n): try container.encode(n)
        case .string(let s): try container.encode(s)
        case .array(let a): try container.encode(a)
        case .object(let o): try container.encode(o)
        }
    }
}
