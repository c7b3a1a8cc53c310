import Foundation
import LinkRunwayAPI
import RunwayKit
import RunwayStore

/// A link as stored: one row of `links`, read as a record (`RowDecoder`).
struct LinkRecord: Sendable, Equatable, Decodable {
    var id: String
    var workspaceId: String
    var appId: String?
    var kind: String
    var domain: String
    var path: String
    var appPath: String?
    /// The metadata object as JSON text.
    var metadata: String?
    var iosAppStoreId: String?
    var iosURL: String?
    var androidURL: String?
    var webURL: String?
    var campaign: String?
    var channel: String?
    var feature: String?
    var previewTitle: String?
    var previewDescription: String?
    var previewImageURL: String?
    var interstitial: Bool
    var passQuery: Bool
    var enabled: Bool
    var expiresAt: Int64?
    var referrerInstallId: String?
    var createdAt: Int64
    var updatedAt: Int64
    /// Ordered rules and the default's variants (`LinkRouting` is what redirects evaluate).
    var rules: [LinkRule] = []
    var variants: [LinkVariant] = []
    var startsAt: Int64?
    var clickLimit: Int64?
    var fallbacks = LinkFallbacks()
    var utm = LinkUTM()
    /// People in an app's own browser get the page that helps them out of it (`LinkPages.inAppBrowser`).
    var inAppBrowserPage = false
    /// The rules, variants, destinations and UTM parameters compiled, made when the record is read from its row.
    private(set) var routing = CompiledRouting()

    static let columns = """
        id, workspace_id, app_id, kind, domain, path, app_path, metadata, ios_app_store_id, ios_url, android_url, web_url,
        campaign, channel, feature, preview_title, preview_description, preview_image_url, interstitial, pass_query,
        enabled, expires_at, referrer_install_id, created_at, updated_at, rules, variants, starts_at, click_limit,
        fallback_before_start, fallback_expired, fallback_over_limit, utm_source, utm_medium, utm_campaign, utm_term, utm_content,
        in_app_browser_page
        """

    /// Paths match without regard to case.
    static func key(_ path: String) -> String { path.lowercased() }

    /// The link as people open it: `https://<domain>/<path>`; on `localhost`, the development domain, plain http on the
    /// port this server listens on, so the link can be clicked on the machine that serves it.
    /// `localPort` is the port this server listens on (0 when unknown).
    func url(localPort: Int) -> String {
        guard domain == LinkDirectory.localHostname else { return "https://\(domain)/\(path)" }
        return localPort == 0 || localPort == 80 ? "http://localhost/\(path)" : "http://localhost:\(localPort)/\(path)"
    }

    /// The link as people open it from this server.
    func url(_ services: ServerServices) -> String { url(localPort: services.listening.port) }

    func isExpired(at milliseconds: Int64) -> Bool { expiresAt.map { $0 <= milliseconds } ?? false }

    func hasStarted(at milliseconds: Int64) -> Bool { startsAt.map { $0 <= milliseconds } ?? true }

    init(id: String, workspaceId: String, appId: String?, kind: String, domain: String, path: String, createdAt: Int64) {
        self.id = id
        self.workspaceId = workspaceId
        self.appId = appId
        self.kind = kind
        self.domain = domain
        self.path = path
        self.interstitial = false
        self.passQuery = false
        self.enabled = true
        self.createdAt = createdAt
        self.updatedAt = createdAt
    }

    /// The columns a row is read from (`RowDecoder`: each names its column in snake case).
    private enum Column: String, CodingKey {
        case id, workspaceId, appId, kind, domain, path, appPath, metadata, iosAppStoreId, iosURL, androidURL, webURL, campaign, channel,
             feature, previewTitle, previewDescription, previewImageURL, interstitial, passQuery, enabled, expiresAt, referrerInstallId,
             createdAt, updatedAt, rules, variants, startsAt, clickLimit, fallbackBeforeStart, fallbackExpired, fallbackOverLimit,
             utmSource, utmMedium, utmCampaign, utmTerm, utmContent, inAppBrowserPage
    }

    /// Reads a row of `columns` and compiles its routing.
    init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: Column.self)
        id = try row.decode(String.self, forKey: .id)
        workspaceId = try row.decode(String.self, forKey: .workspaceId)
        appId = try row.decodeIfPresent(String.self, forKey: .appId)
        kind = try row.decode(String.self, forKey: .kind)
        domain = try row.decode(String.self, forKey: .domain)
        path = try row.decode(String.self, forKey: .path)
        appPath = try row.decodeIfPresent(String.self, forKey: .appPath)
        metadata = try row.decodeIfPresent(String.self, forKey: .metadata)
        iosAppStoreId = try row.decodeIfPresent(String.self, forKey: .iosAppStoreId)
        iosURL = try row.decodeIfPresent(String.self, forKey: .iosURL)
        androidURL = try row.decodeIfPresent(String.self, forKey: .androidURL)
        webURL = try row.decodeIfPresent(String.self, forKey: .webURL)
        campaign = try row.decodeIfPresent(String.self, forKey: .campaign)
        channel = try row.decodeIfPresent(String.self, forKey: .channel)
        feature = try row.decodeIfPresent(String.self, forKey: .feature)
        previewTitle = try row.decodeIfPresent(String.self, forKey: .previewTitle)
        previewDescription = try row.decodeIfPresent(String.self, forKey: .previewDescription)
        previewImageURL = try row.decodeIfPresent(String.self, forKey: .previewImageURL)
        interstitial = try row.decode(Bool.self, forKey: .interstitial)
        passQuery = try row.decode(Bool.self, forKey: .passQuery)
        enabled = try row.decode(Bool.self, forKey: .enabled)
        expiresAt = try row.decodeIfPresent(Int64.self, forKey: .expiresAt)
        referrerInstallId = try row.decodeIfPresent(String.self, forKey: .referrerInstallId)
        createdAt = try row.decode(Int64.self, forKey: .createdAt)
        updatedAt = try row.decode(Int64.self, forKey: .updatedAt)
        rules = try row.decodeIfPresent([LinkRule].self, forKey: .rules) ?? []
        variants = try row.decodeIfPresent([LinkVariant].self, forKey: .variants) ?? []
        startsAt = try row.decodeIfPresent(Int64.self, forKey: .startsAt)
        clickLimit = try row.decodeIfPresent(Int64.self, forKey: .clickLimit)
        fallbacks = LinkFallbacks(beforeStart: try row.decodeIfPresent(String.self, forKey: .fallbackBeforeStart),
                                  expired: try row.decodeIfPresent(String.self, forKey: .fallbackExpired),
                                  overLimit: try row.decodeIfPresent(String.self, forKey: .fallbackOverLimit))
        utm = LinkUTM(source: try row.decodeIfPresent(String.self, forKey: .utmSource), medium: try row.decodeIfPresent(String.self, forKey: .utmMedium),
                      campaign: try row.decodeIfPresent(String.self, forKey: .utmCampaign), term: try row.decodeIfPresent(String.self, forKey: .utmTerm),
                      content: try row.decodeIfPresent(String.self, forKey: .utmContent))
        inAppBrowserPage = try row.decode(Bool.self, forKey: .inAppBrowserPage)
        compile()
    }

    /// Compiles the routing again from the fields (done when read from a row; a record changed in memory is written,
    /// and read again before any redirect follows it).
    mutating func compile() { routing = CompiledRouting(LinkRouting(self)) }

    /// A list as stored: JSON with sorted keys, or NULL when empty.
    static func stored<T: Encodable>(_ list: [T]) -> String? {
        guard !list.isEmpty else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(list)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Inserts the row; with `unlessTaken`, a domain and path another link holds leave it out instead of failing the
    /// transaction. Whether it was inserted.
    @discardableResult
    func insert(_ db: any SQLExecutor, unlessTaken: Bool = false) throws -> Bool {
        try LinkRecordQueries.insert(db, self, unlessTaken: unlessTaken)
    }

    func update(_ db: any SQLExecutor) throws { try LinkRecordQueries.update(db, self) }

    static func find(_ db: any SQLExecutor, id: String) throws -> LinkRecord? { try LinkRecordQueries.link(db, id: id) }

    static func find(_ db: any SQLExecutor, domain: String, path: String) throws -> LinkRecord? {
        try LinkRecordQueries.link(db, domain: domain, path: path)
    }

    /// Where devices go when the app does not open the link, in the wire form.
    var destinations: LinkDestinations {
        let ios = iosAppStoreId != nil || iosURL != nil ? LinkDestinations.IOS(appStoreId: iosAppStoreId, url: iosURL) : nil
        return LinkDestinations(ios: ios, android: androidURL.map(LinkDestinations.Android.init(url:)), web: webURL)
    }

    /// The preview, in the wire form.
    var preview: LinkPreview? {
        previewTitle != nil || previewDescription != nil || previewImageURL != nil
            ? LinkPreview(title: previewTitle, description: previewDescription, imageUrl: previewImageURL) : nil
    }

    /// The wire form, from this server.
    func wire(_ services: ServerServices) -> Link { wire(localPort: services.listening.port) }

    /// The wire form; `localPort` as for `url(localPort:)`.
    func wire(localPort: Int) -> Link {
        let decodedMetadata = metadata.flatMap { try? JSONDecoder().decode([String: JSONLiteral].self, from: Data($0.utf8)) }
        return Link(id: id, workspaceId: workspaceId, appId: appId, kind: kind, domain: domain, path: path, url: url(localPort: localPort),
                    appPath: appPath, metadata: decodedMetadata, destinations: destinations,
                    campaign: campaign, channel: channel, feature: feature, preview: preview, interstitial: interstitial,
                    passQuery: passQuery, enabled: enabled, expiresAt: expiresAt.map(Timestamp.iso),
                    referrerInstallId: referrerInstallId, rules: rules.isEmpty ? nil : rules, variants: variants.isEmpty ? nil : variants,
                    startsAt: startsAt.map(Timestamp.iso), clickLimit: clickLimit.map { Int($0) },
                    fallbacks: fallbacks == LinkFallbacks() ? nil : fallbacks, utm: utm == LinkUTM() ? nil : utm,
                    inAppBrowserPage: inAppBrowserPage, createdAt: Timestamp.iso(createdAt), updatedAt: Timestamp.iso(updatedAt))
    }

    /// The record as it shows a variant's preview: each of its fields instead of the link's own.
    func showing(_ preview: LinkPreview) -> LinkRecord {
        var shown = self
        shown.previewTitle = preview.title ?? previewTitle
        shown.previewDescription = preview.description ?? previewDescription
        shown.previewImageURL = preview.imageUrl ?? previewImageURL
        return shown
    }

    /// Copies the destinations and preview of a request.
    mutating func apply(destinations: LinkDestinations, preview: LinkPreview?) {
        iosAppStoreId = destinations.ios?.appStoreId
        iosURL = destinations.ios?.url
        androidURL = destinations.android?.url
        webURL = destinations.web
        previewTitle = preview?.title
        previewDescription = preview?.description
        previewImageURL = preview?.imageUrl
    }
}
