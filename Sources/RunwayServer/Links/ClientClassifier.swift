/// What kind of client followed a link, from its User-Agent only (no other signal, no fingerprint).
enum ClientClass: Sendable, Equatable {
    /// A preview fetcher of a messenger or social network, or a search crawler; never counted as a click.
    case crawler(String)
    case ios(osVersion: String?)
    case android(osVersion: String?)
    case desktop

    var platform: String {
        switch self {
        case .crawler: return "crawler"
        case .ios: return "ios"
        case .android: return "android"
        case .desktop: return "desktop"
        }
    }

    var osVersion: String? {
        switch self {
        case .ios(let v), .android(let v): return v
        default: return nil
        }
    }

    /// Tokens of preview fetchers and crawlers. iMessage previews come as "facebookexternalhit … Facebot Twitterbot".
    /// In-app browsers (Facebook's FBAN, Instagram, LinkedInApp) are people and must not match.
    static let crawlerTokens = [
        "facebookexternalhit", "facebot", "twitterbot", "slackbot", "linkedinbot", "whatsapp/", "discordbot", "telegrambot",
        "applebot", "googlebot", "bingbot", "pinterestbot", "redditbot", "skypeuripreview", "embedly", "mastodon/",
        "bluesky cardyb", "iframely", "vkshare", "yandexbot", "duckduckbot",
    ]

    init(userAgent: String?) {
        guard let userAgent, !userAgent.isEmpty else {
            self = .desktop
            return
        }
        let lower = userAgent.lowercased()
        if let token = Self.crawlerTokens.first(where: { lower.contains($0) }) {
            self = .crawler(token)
        } else if lower.contains("iphone") || lower.contains("ipad") || lower.contains("ipod") {
            self = .ios(osVersion: Self.version(in: userAgent, after: " OS ", separator: "_"))
        } else if lower.contains("android") {
            self = .android(osVersion: Self.version(in: userAgent, after: "Android ", separator: "."))
        } else {
            self = .desktop
        }
    }

    /// `major.minor` after `marker` (`17_4_1` → `17.4`), or nil.
    static func version(in text: String, after marker: String, separator: Character) -> String? {
        guard let range = text.range(of: marker) else { return nil }
        let digits = text[range.upperBound...].prefix(while: { $0.isNumber || $0 == separator })
        let parts = digits.split(separator: separator).prefix(2)
        guard let major = parts.first, !major.isEmpty, major.count <= 3 else { return nil }
        return parts.count > 1 ? "\(major).\(parts[1].prefix(3))" : String(major)
    }
}
