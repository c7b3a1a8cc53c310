import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayJSON
import RunwayKit

/// Checks of link fields; each failure names its field.
package enum LinkValidate {
    /// First path segments that belong to the API and well-known files, so a link can never hide a route.
    static let reservedSegments: Set<String> = [
        "v1", "healthz", "readyz", "metrics", "openapi.json", ".well-known", "apple-app-site-association", "console",
        "robots.txt", "favicon.ico", "static",
    ]
    static let metadataLimit = 8 * 1024

    /// A lower-case DNS name (or `localhost`): labels of letters, digits and hyphens, at most 253 characters.
    package static func hostname(_ value: String, field: String = "hostname") throws -> String {
        let host = value.lowercased().hasSuffix(".") ? String(value.lowercased().dropLast()) : value.lowercased()
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...253).contains(host.utf8.count), labels.allSatisfy({ label in
            (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2d }
        }) else {
            throw RequestError.invalidField(field, "must be a hostname such as go.example.com, without scheme or port")
        }
        return host
    }

    /// 1 to 200 characters of letters, digits and `-_.~`, in segments separated by single slashes; not a reserved
    /// first segment.
    static func path(_ value: String) throws -> String {
        let segments = value.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...200).contains(value.utf8.count), segments.allSatisfy({ segment in
            !segment.isEmpty && segment != "." && segment != ".."
                && segment.utf8.allSatisfy { b in
                    (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b == 0x2d || b == 0x5f || b == 0x2e || b == 0x7e
                }
        }) else {
            throw RequestError.invalidField("path", "must be 1 to 200 characters of letters, digits, - _ . ~ in segments separated by /")
        }
        guard !reservedSegments.contains(String(segments[0]).lowercased()) else {
            throw RequestError.invalidField("path", "\(segments[0]) is reserved for the server's own routes")
        }
        return value
    }

    /// An absolute https URL with a host, at most 2,048 characters (no javascript:, data: or plain http).
    static func httpsURL(_ value: String?, field: String) throws -> String? {
        guard let value else { return nil }
        guard value.utf8.count <= 2048, let components = URLComponents(string: value), components.scheme?.lowercased() == "https",
              let host = components.host, !host.isEmpty, !value.unicodeScalars.contains(where: { $0.value < 0x21 }) else {
            throw RequestError.invalidField(field, "must be an absolute https:// URL")
        }
        return value
    }

    /// A place in the app: starts with `/`, at most 512 characters, no control characters.
    static func appPath(_ value: String?) throws -> String? {
        guard let value else { return nil }
        guard value.hasPrefix("/"), value.utf8.count <= 512, !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
            throw RequestError.invalidField("appPath", "must start with / and be at most 512 characters")
        }
        return value
    }

    /// A tag (campaign, channel, feature): 1 to 100 characters.
    static func tag(_ value: String?, field: String) throws -> String? {
        guard let value else { return nil }
        return try Validate.name(value, field: field)
    }

    /// Preview text: up to 300 characters; image as an https URL.
    static func preview(_ value: LinkPreview?, field prefix: String = "preview") throws -> LinkPreview? {
        guard let value else { return nil }
        for (field, text) in [(prefix + ".title", value.title), (prefix + ".description", value.description)] {
            if let text, text.count > 300 || text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" }) {
                throw RequestError.invalidField(field, "must be at most 300 characters without control characters")
            }
        }
        _ = try httpsURL(value.imageUrl, field: prefix + ".imageUrl")
        return value
    }

    static func destinations(_ value: LinkDestinations?) throws -> LinkDestinations {
        guard let value else { return LinkDestinations() }
        _ = try Validate.appStoreId(value.ios?.appStoreId)
        _ = try httpsURL(value.ios?.url, field: "destinations.ios.url")
        _ = try httpsURL(value.android?.url, field: "destinations.android.url")
        _ = try httpsURL(value.web, field: "destinations.web")
        return value
    }

    /// A JSON object of at most 8 KiB; larger ones are refused with 413.
    static func metadata(_ value: [String: JSONLiteral]?) throws -> String? {
        guard let value else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let text = String(decoding: try encoder.encode(value), as: UTF8.self)
        guard text.utf8.count <= metadataLimit else {
            throw RequestError.tooLarge("metadata must be at most \(metadataLimit) bytes of JSON", field: "metadata")
        }
        return text
    }
}

/// The validated fields of a create request.
struct LinkDraft: Sendable {
    let appPath: String?
    let metadata: String?
    let destinations: LinkDestinations
    let campaign: String?, channel: String?, feature: String?
    let preview: LinkPreview?
    let interstitial: Bool, passQuery: Bool, inAppBrowserPage: Bool
    let expiresAt: Int64?
    let routing: LinkRoutingFields

    init(_ body: CreateLinkRequest) throws {
        appPath = try LinkValidate.appPath(body.appPath)
        metadata = try LinkValidate.metadata(body.metadata)
        destinations = try LinkValidate.destinations(body.destinations)
        campaign = try LinkValidate.tag(body.campaign, field: "campaign")
        channel = try LinkValidate.tag(body.channel, field: "channel")
        feature = try LinkValidate.tag(body.feature, field: "feature")
        preview = try LinkValidate.preview(body.preview)
        interstitial = body.interstitial ?? false
        passQuery = body.passQuery ?? false
        inAppBrowserPage = body.inAppBrowserPage ?? false
        expiresAt = try Validate.timestamp(body.expiresAt, field: "expiresAt")
        routing = try LinkRoutingFields(rules: body.rules, variants: body.variants, startsAt: body.startsAt, clickLimit: body.clickLimit,
                                        fallbacks: body.fallbacks, utm: body.utm)
        try LinkValidate.schedule(startsAt: routing.startsAt, expiresAt: expiresAt)
    }

    func apply(to link: inout LinkRecord) {
        routing.apply(to: &link, replacingAll: true)
        link.appPath = appPath
        link.metadata = metadata
        link.apply(destinations: destinations, preview: preview)
        link.campaign = campaign
        link.channel = channel
        link.feature = feature
        link.interstitial = interstitial
        link.passQuery = passQuery
        link.inAppBrowserPage = inAppBrowserPage
        link.expiresAt = expiresAt
    }
}

/// The validated fields of an update request; nil leaves a field as it is.
struct LinkChange: Sendable {
    let appPath: String?
    let metadata: String?
    let destinations: LinkDestinations?
    let campaign: String?, channel: String?, feature: String?
    let preview: LinkPreview?
    let interstitial: Bool?, passQuery: Bool?, enabled: Bool?, inAppBrowserPage: Bool?
    let expiresAt: Int64?
    let routing: LinkRoutingFields

    init(_ body: UpdateLinkRequest) throws {
        appPath = try LinkValidate.appPath(body.appPath)
        metadata = try LinkValidate.metadata(body.metadata)
        destinations = try body.destinations.map { try LinkValidate.destinations($0) }
        campaign = try LinkValidate.tag(body.campaign, field: "campaign")
        channel = try LinkValidate.tag(body.channel, field: "channel")
        feature = try LinkValidate.tag(body.feature, field: "feature")
        preview = try LinkValidate.preview(body.preview)
        interstitial = body.interstitial
        passQuery = body.passQuery
        enabled = body.enabled
        inAppBrowserPage = body.inAppBrowserPage
        expiresAt = try Validate.timestamp(body.expiresAt, field: "expiresAt")
        routing = try LinkRoutingFields(rules: body.rules, variants: body.variants, startsAt: body.startsAt, clickLimit: body.clickLimit,
                                        fallbacks: body.fallbacks, utm: body.utm)
    }

    /// Applies the change; a start the change leaves after the expiry is refused.
    func apply(to link: inout LinkRecord) throws {
        routing.apply(to: &link, replacingAll: false)
        if let appPath { link.appPath = appPath }
        if let metadata { link.metadata = metadata }
        if let destinations {
            link.apply(destinations: destinations, preview: preview ?? link.preview)
        } else if let preview {
            link.apply(destinations: link.destinations, preview: preview)
        }
        if let campaign { link.campaign = campaign }
        if let channel { link.channel = channel }
        if let feature { link.feature = feature }
        if let interstitial { link.interstitial = interstitial }
        if let passQuery { link.passQuery = passQuery }
        if let enabled { link.enabled = enabled }
        if let inAppBrowserPage { link.inAppBrowserPage = inAppBrowserPage }
        if let expiresAt { link.expiresAt = expiresAt }
        try LinkValidate.schedule(startsAt: link.startsAt, expiresAt: link.expiresAt)
    }
}

/// The validated routing fields of a create or update request.
struct LinkRoutingFields: Sendable {
    let rules: [LinkRule]?
    let variants: [LinkVariant]?
    let startsAt: Int64?
    /// 0 removes the limit.
    let clickLimit: Int64?
    let fallbacks: LinkFallbacks?
    let utm: LinkUTM?

    init(rules: [LinkRule]?, variants: [LinkVariant]?, startsAt: String?, clickLimit: Int?, fallbacks: LinkFallbacks?, utm: LinkUTM?) throws {
        self.rules = try LinkValidate.rules(rules)
        self.variants = try variants.map { try LinkValidate.variants($0) }
        self.startsAt = try Validate.timestamp(startsAt, field: "startsAt")
        self.clickLimit = try LinkValidate.clickLimit(clickLimit)
        self.fallbacks = try LinkValidate.fallbacks(fallbacks)
        self.utm = try LinkValidate.utm(utm)
    }

    /// Sets what was given; with `replacingAll` (a create or an import row, the whole definition) the rest is cleared.
    func apply(to link: inout LinkRecord, replacingAll: Bool) {
        if let rules { link.rules = rules } else if replacingAll { link.rules = [] }
        if let variants { link.variants = variants } else if replacingAll { link.variants = [] }
        if let startsAt { link.startsAt = startsAt } else if replacingAll { link.startsAt = nil }
        if let clickLimit { link.clickLimit = clickLimit == 0 ? nil : clickLimit } else if replacingAll { link.clickLimit = nil }
        if let fallbacks { link.fallbacks = fallbacks } else if replacingAll { link.fallbacks = LinkFallbacks() }
        if let utm { link.utm = utm } else if replacingAll { link.utm = LinkUTM() }
    }
}
