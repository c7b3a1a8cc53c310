import Foundation
import LinkRunwayAPI
import RunwayKit
import RunwayStore
import Synchronization

/// The lookups every redirect makes (hostname → workspace, path → link, app), cached for a few seconds so a busy link
/// costs no reads. Changes made through this process apply at once; changes made through another process within
/// `ttl` seconds (unknown hosts and paths are remembered for one second).
final class LinkDirectory: Sendable {
    /// An app and its workspace, as found by App Store id.
    struct AppOwner: Sendable, Equatable {
        let appId: String
        let workspaceId: String
    }

    struct DomainEntry: Sendable, Equatable {
        let id: String
        let hostname: String
        let workspaceId: String
    }

    private struct Entry<Value: Sendable>: Sendable {
        let value: Value?
        let loadedAt: ContinuousClock.Instant
    }

    private let store: any Store
    private let clock: MonotonicClock
    private let ttl: Duration
    private let negativeTTL: Duration = .seconds(1)
    private let domains = Mutex<[String: Entry<DomainEntry>]>([:])
    private let links = Mutex<[String: Entry<LinkRecord>]>([:])
    private let apps = Mutex<[String: Entry<App>]>([:])
    private let appsByStoreId = Mutex<[String: Entry<[AppOwner]>]>([:])
    /// Each domain's `apple-app-site-association` body: anyone may ask for it, and it reads every link of the domain.
    private let associations = Mutex<[String: Entry<[UInt8]>]>([:])
    /// How long another process's change takes to show in an association file (this process's shows at once).
    static let associationTTL: Duration = .seconds(60)
    private static let limit = 100_000

    init(store: any Store, clock: MonotonicClock = .system, ttl: Duration = .seconds(5)) {
        self.store = store
        self.clock = clock
        self.ttl = ttl
    }

    /// The development link domain, the first start's unless another is configured.
    static let localHostname = "localhost"

    /// The link domain a host name means: this machine's loopback addresses (`127.0.0.1`, `::1`) mean `localhost`, so
    /// the local domain's links open however the machine is addressed. Nothing else is rewritten.
    static func linkHostname(_ host: String) -> String {
        switch host {
        case "127.0.0.1", "::1", "[::1]": localHostname
        default: host
        }
    }

    func domain(hostname: String) async throws -> DomainEntry? {
        try await cached(domains, hostname) { [store] in
            try await store.read { db in
                // Only a domain whose control is proven serves.
                try db.first("SELECT id, hostname, workspace_id FROM link_domains WHERE hostname = \(hostname) AND verified_at IS NOT NULL").map {
                    DomainEntry(id: try $0.string("id"), hostname: try $0.string("hostname"), workspaceId: try $0.string("workspace_id"))
                }
            }
        }
    }

    func link(domain: String, path: String) async throws -> LinkRecord? {
        try await cached(links, domain + "/" + LinkRecord.key(path)) { [store] in
            try await store.read { db in try LinkRecord.find(db, domain: domain, path: path) }
        }
    }

    func app(id: String) async throws -> App? {
        try await cached(apps, id) { [store] in
            try await store.read { db in try TenancyQueries.app(db, id: id) }
        }
    }

    /// The app that proved an App Store id (none or one), whatever its workspace (see `AppStoreIdentity`).
    func apps(appStoreId: String) async throws -> [AppOwner] {
        try await cached(appsByStoreId, appStoreId) { [store] in
            try await store.read { db in
                try AppStoreIdentity.holder(db, appStoreId: appStoreId).map { [AppOwner(appId: $0.appId, workspaceId: $0.workspaceId)] } ?? []
            }
        } ?? []
    }

    /// What the cache holds now, without a read: `.some(value)` (the value may be nil: known not to exist) when fresh,
    /// nil when only the asynchronous lookup can tell.
    func cachedDomain(hostname: String) -> DomainEntry?? { peek(domains, hostname) }
    func cachedLink(domain: String, path: String) -> LinkRecord?? { peek(links, domain + "/" + LinkRecord.key(path)) }
    func cachedApp(id: String) -> App?? { peek(apps, id) }

    private func peek<Value: Sendable>(_ cache: borrowing Mutex<[String: Entry<Value>]>, _ key: String) -> Value?? {
        guard let entry = cache.withLock({ $0[key] }) else { return nil }
        let age = entry.loadedAt.duration(to: clock.now())
        return age < (entry.value == nil ? negativeTTL : ttl) ? .some(entry.value) : nil
    }

    /// The association file of `hostname`, made by `make` when it is not cached or older than `associationTTL`.
    func association(hostname: String, make: @Sendable () async throws -> [UInt8]) async throws -> [UInt8] {
        let now = clock.now()
        if let entry = associations.withLock({ $0[hostname] }), let body = entry.value, entry.loadedAt.duration(to: now) < Self.associationTTL {
            return body
        }
        let body = try await make()
        associations.withLock { entries in
            if entries.count >= Self.limit { entries.removeAll() }
            entries[hostname] = Entry(value: body, loadedAt: now)
        }
        return body
    }

    /// Forgets what this process cached about a link (after it changed) or a hostname, its domain's association file
    /// with it; an app's change (its identity, its platforms) makes every association file be made again.
    func forget(link: LinkRecord) {
        links.withLock { _ = $0.removeValue(forKey: link.domain + "/" + LinkRecord.key(link.path)) }
        associations.withLock { _ = $0.removeValue(forKey: link.domain) }
    }
    func forget(hostname: String) {
        domains.withLock { _ = $0.removeValue(forKey: hostname) }
        associations.withLock { _ = $0.removeValue(forKey: hostname) }
    }
    func forget(appId: String) {
        apps.withLock { _ = $0.removeValue(forKey: appId) }
        associations.withLock { $0.removeAll() }
    }
    func forget(appStoreId: String) { appsByStoreId.withLock { _ = $0.removeValue(forKey: appStoreId) } }

    private func cached<Value: Sendable>(_ cache: borrowing Mutex<[String: Entry<Value>]>, _ key: String,
                                         load: @Sendable () async throws -> Value?) async throws -> Value? {
        let now = clock.now()
        if let entry = cache.withLock({ $0[key] }) {
            let age = entry.loadedAt.duration(to: now)
            if age < (entry.value == nil ? negativeTTL : ttl) { return entry.value }
        }
        let value = try await load()
        cache.withLock { entries in
            if entries.count >= Self.limit { entries.removeAll() }
            entries[key] = Entry(value: value, loadedAt: now)
        }
        return value
    }
}

extension LinkDirectory: SharedObject {
    convenience init(_ services: ServerServices) {
        self.init(store: services.store, clock: services.monotonic)
    }
}

extension ServerServices {
    /// The server's cache of links and domains.
    var links: LinkDirectory { shared(LinkDirectory.self) }
}
