import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayKit
import RunwayStore
import Synchronization

/// Records clicks (a person followed a link) and opens (the app resolved a link), durably, before the answer.
enum Clicks {
    /// 32 base62 characters: the time in milliseconds (8 characters, so tokens sort by when they were made and new
    /// ones land at the end of their index instead of on a random page) and 24 random characters (about 143 bits,
    /// unguessable).
    static func newToken(at milliseconds: Int64) -> String {
        String(unsafeUninitializedCapacity: 32) { out in
            SecureRandom.base62Bytes.withUnsafeBufferPointer { symbols in
                var rest = max(0, milliseconds)
                for position in stride(from: 7, through: 0, by: -1) {
                    out[position] = symbols[Int(rest % 62)]
                    rest /= 62
                }
                SecureRandom.fill(UnsafeMutableBufferPointer(rebasing: out[8..<32]), from: symbols)  // trap-safe: out has 32 bytes
            }
            return 32
        }
    }

    struct Visit: Sendable {
        let kind: String          // "click" or "open"
        let platform: String
        let osVersion: String?
        let address: String?
        let referrerHost: String?
        let installId: String?
        /// The variant of the link or rule the click was given, if it has variants.
        var variant: String? = nil
        /// The country of the address, from the operator's database (the address itself is never stored).
        var country: String? = nil
        /// Whether it came from the link's QR code (its URL carries `?qr=1`).
        var qr = false
        /// The app whose own browser it came from (`InAppBrowser`), for a click.
        var inAppBrowser: String? = nil
    }

    /// A visit ready to store: its token, its row, what else its write does (queue a webhook), and the metric to
    /// count once the write is durable.
    struct Prepared: Sendable {
        let token: String
        let row: RowInsert
        let alongside: (@Sendable (any SQLExecutor) throws -> Void)?
        let counted: @Sendable () -> Void

        /// Writes the visit through the group-committing writer; `completion` hears once it is durable. A visit with
        /// nothing alongside goes as a row the writer inserts with others in one statement.
        func write(to store: any Store, completion: @escaping @Sendable ((any Error)?) -> Void) {
            guard let alongside else { return store.insert(row, completion: completion) }
            store.write({ [row] db in
                try db.insert(row)
                try alongside(db)
            }, completion: completion)
        }

        func write(to store: any Store) async throws {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                write(to: store) { error in
                    if let error { continuation.resume(throwing: error) } else { continuation.resume() }
                }
            }
        }
    }

    /// The columns of a click row, in the order `prepare` gives its values.
    static let columns = ["token", "kind", "link_id", "workspace_id", "app_id", "platform", "os_version", "address_hash", "referrer_host",
                          "install_id", "created_at", "variant", "country", "qr", "in_app_browser"]

    /// Click rows, counted in the link's daily figures in the same statement's savepoint (`ClickRollup`).
    static let rows = InsertTarget(table: "clicks", columns: columns, followUp: ClickRollup())

    /// Stores one visit of `link` and returns its token; the write is committed when this returns.
    static func record(_ visit: Visit, of link: LinkRecord, services: ServerServices) async throws -> String {
        let now = services.clock.nowMilliseconds()
        let addressHash = try await visit.address.asyncMap { try await services.addresses.hash($0, at: now) }
        let listening = visit.kind == "click" ? try await services.webhookSubscriptions.subscriptions(workspaceId: link.workspaceId) : []
        let click = prepare(visit, of: link, addressHash: addressHash, subscriptions: listening, now: now, services: services)
        try await click.write(to: services.store)
        click.counted()
        return click.token
    }

    /// The same visit prepared without waiting, when the day's address key and the workspace's webhook subscriptions
    /// are in memory; nil otherwise.
    static func prepareFromCache(_ visit: Visit, of link: LinkRecord, services: ServerServices) -> Prepared? {
        let now = services.clock.nowMilliseconds()
        var addressHash: String?
        if let address = visit.address {
            guard let hash = services.addresses.cachedHash(address, at: now) else { return nil }
            addressHash = hash
        }
        var listening: [Webhooks.Subscription] = []
        if visit.kind == "click" {
            guard let cached = services.webhookSubscriptions.cachedSubscriptions(workspaceId: link.workspaceId) else { return nil }
            listening = cached
        }
        return prepare(visit, of: link, addressHash: addressHash, subscriptions: listening, now: now, services: services)
    }

    static func prepare(_ visit: Visit, of link: LinkRecord, addressHash: String?, subscriptions: [Webhooks.Subscription], now: Int64,
                        services: ServerServices) -> Prepared {
        let token = newToken(at: now)
        let listening = subscriptions.filter { $0.topics.contains("click") }
        let row = RowInsert(into: rows, values: [.text(token), .text(visit.kind), .text(link.id), .text(link.workspaceId), link.appId.sqlValue,
                                                  .text(visit.platform), visit.osVersion.sqlValue, addressHash.sqlValue,
                                                  visit.referrerHost.sqlValue, visit.installId.sqlValue, .integer(now),
                                                  visit.variant.sqlValue, visit.country.sqlValue, visit.qr.sqlValue,
                                                  visit.inAppBrowser.sqlValue],
                            followUpValue: ClickRollup.Click(kind: visit.kind, linkId: link.id, day: now / LinkRollup.day,
                                                             facts: LinkRollup.Facts(platform: visit.platform, osVersion: visit.osVersion,
                                                                                     variant: visit.variant, qr: visit.qr,
                                                                                     place: .init(country: visit.country, referrer: visit.referrerHost,
                                                                                                  inAppBrowser: visit.inAppBrowser))))
        var alongside: (@Sendable (any SQLExecutor) throws -> Void)?
        if !listening.isEmpty {
            let notice = ClickNotice(clickToken: token, linkId: link.id, url: link.url(services), platform: visit.platform,
                                     osVersion: visit.osVersion, campaign: link.campaign, channel: link.channel, feature: link.feature,
                                     variant: visit.variant, country: visit.country, qr: visit.qr, inAppBrowser: visit.inAppBrowser,
                                     createdAt: Timestamp.iso(now))
            alongside = { [workspaceId = link.workspaceId] db in
                try Webhooks.enqueue(db, workspaceId: workspaceId, topic: "click", payload: notice, now: now, subscriptions: listening)
            }
        }
        let counter = services.shared(VisitCounters.self).series(kind: visit.kind, platform: visit.platform)
        return Prepared(token: token, row: row, alongside: alongside) { counter?.add() }
    }

    static func signedClickId(token: String, link: LinkRecord, services: ServerServices) -> String {
        let expiry = Int64(services.clock.now().timeIntervalSince1970) + SignedClickId.lifetimeSeconds
        return SignedClickId(clickToken: token, linkId: link.id, workspaceId: link.workspaceId, expiresAt: expiry)
            .signed(with: services.secrets.clickSigningKey)
    }

    static func declareMetrics(_ metrics: MetricsRegistry) {
        metrics.declareCounter("linkrunway_link_visits_total", help: "Link clicks and app opens recorded, by kind and platform.")
        metrics.declareCounter("linkrunway_link_previews_total", help: "Link previews served to crawlers (not counted as clicks).")
    }
}

/// What a `click` webhook says (never the address or its hash).
struct ClickNotice: Encodable, Sendable {
    let clickToken: String
    let linkId: String
    let url: String
    let platform: String
    let osVersion: String?
    let campaign: String?
    let channel: String?
    let feature: String?
    /// The variant of the link or rule the click was given.
    let variant: String?
    /// The address's country, from the operator's country database.
    let country: String?
    /// Whether the click came from the link's QR code.
    let qr: Bool
    /// The app whose own browser the click came from (`instagram`, `tiktok`…), if any.
    let inAppBrowser: String?
    let createdAt: String
}

extension HTTPRequest {
    /// The Host header, lower-cased, without port or trailing dot (`[::1]:8080` → `::1`).
    var hostName: String? {
        guard var host = headers["Host"]?.lowercased(), !host.isEmpty else { return nil }
        if host.hasPrefix("[") {
            guard let end = host.firstIndex(of: "]") else { return nil }
            host = String(host[host.index(after: host.startIndex)..<end])  // trap-safe: host starts with "[" and end is the index of its "]"
        } else if let colon = host.lastIndex(of: ":") {
            host = String(host[..<colon])  // trap-safe: colon is an index of host
        }
        if host.hasSuffix(".") { host.removeLast() }
        return host.isEmpty ? nil : host
    }

    /// Only the host of the Referer, never its path or query.
    var referrerHost: String? {
        headers["Referer"].flatMap { URLComponents(string: $0)?.host?.lowercased() }.map { String($0.prefix(255)) }
    }
}

/// Appends query parameters to a URL, keeping any it has.
func appendingQuery(_ url: String, _ query: [(name: String, value: String)]) -> String {
    guard !query.isEmpty else { return url }
    var allowed = CharacterSet.urlQueryAllowed
    allowed.remove(charactersIn: "&=+#")
    let text = query.map { pair in
        (pair.name.addingPercentEncoding(withAllowedCharacters: allowed) ?? "") + "=" + (pair.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
    }.joined(separator: "&")
    // trap-safe: the index is one of url
    let (base, fragment) = url.firstIndex(of: "#").map { (String(url[..<$0]), String(url[$0...])) } ?? (url, "")
    return base + (base.contains("?") ? "&" : "?") + text + fragment
}

/// The visit counter's series, by kind and platform, each looked up once.
final class VisitCounters: SharedObject {
    private let metrics: MetricsRegistry
    private let known = Mutex<[String: CounterSeries]>([:])

    init(_ services: ServerServices) { metrics = services.metrics }

    func series(kind: String, platform: String) -> CounterSeries? {
        let key = kind + "/" + platform
        if let series = known.withLock({ $0[key] }) { return series }
        guard let series = metrics.counter("linkrunway_link_visits_total", labels: [("kind", kind), ("platform", platform)]) else { return nil }
        known.withLock { $0[key] = series }
        return series
    }
}
