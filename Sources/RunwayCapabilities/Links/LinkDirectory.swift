import Foundation
import LinkRunwayAPI
import RunwayKit
import RunwayStore
import Synchronization

/// The lookups every redirect makes (hostname → workspace, path → link), cached for a few seconds so a busy link
/// costs no reads; its app comes from Tenancy's `AppDirectory`, cached alike. Changes made through this process apply
/// at once; changes made through another process within `ttl` seconds (unknown hosts and paths are remembered for one
/// second).
final class LinkDirectory: Sendable {
    struct DomainEntry: Sendable, Equatable, Decodable {
        let id: String
        let hostname: String
        let workspaceId: String
    }

    private let store: any Store
    private let apps: AppDirectory
    private let domains: ExpiringCache<DomainEntry>
    private let links: ExpiringCache<LinkRecord>
    private let linksById: ExpiringCache<LinkRecord>
    /// Each domain's `apple-app-site-association` body: anyone may ask for it, and it reads every link of the domain.
    private let associations: ExpiringCache<[UInt8]>
    /// The apps' change count the association files were made under (`AppDirectory.changeCount`).
    private let appChangesSeen = Atomic<Int>(0)
    /// How long another process's change takes to show in an association file (this process's shows at once).
    static let associationTTL: Duration = .seconds(60)

    init(store: any Store, apps: AppDirectory, clock: MonotonicClock = .system, ttl: Duration = .seconds(5)) {
        self.store = store
        self.apps = apps
        domains = ExpiringCache(clock: clock, ttl: ttl)
        links = ExpiringCache(clock: clock, ttl: ttl)
        linksById = ExpiringCache(clock: clock, ttl: ttl)
        associations = ExpiringCache(clock: clock, ttl: Self.associationTTL)
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
        try await domains.value(hostname) { [store] in
            try await store.read { db in try LinkQueries.servingDomain(db, hostname: hostname) }
        }
    }

    func link(domain: String, path: String) async throws -> LinkRecord? {
        try await links.value(domain + "/" + LinkRecord.key(path)) { [store] in
            try await store.read { db in try LinkRecord.find(db, domain: domain, path: path) }
        }
    }

    /// Link `id` for a match's write (its winner's, or the stored answer's), on the write's connection: the cached copy
    /// while its row is unchanged (one indexed check of `updated_at` and the referrer, cheaper than reading and decoding
    /// the row), else read and cached. Only this checked use reads these entries, so a copy read in a transaction that
    /// was rolled back is never used.
    func link(id: String, in db: any SQLExecutor) throws -> LinkRecord? {
        if case .some(let cached?) = linksById.peek(id), try LinkRecordQueries.isUnchanged(db, cached) { return cached }
        let link = try LinkRecord.find(db, id: id)
        linksById.keep(id, link)
        return link
    }

    /// What the cache holds now, without a read: `.some(value)` (the value may be nil: known not to exist) when fresh,
    /// nil when only the asynchronous lookup can tell.
    func cachedDomain(hostname: String) -> DomainEntry?? { domains.peek(hostname) }
    func cachedLink(domain: String, path: String) -> LinkRecord?? { links.peek(domain + "/" + LinkRecord.key(path)) }

    /// The association file of `hostname`, made by `make` when it is not cached or older than `associationTTL`. An
    /// app's change in this process (its identity, its platforms) makes every association file be made again.
    func association(hostname: String, make: @Sendable () async throws -> [UInt8]) async throws -> [UInt8] {
        let changes = apps.changeCount
        if appChangesSeen.exchange(changes, ordering: .relaxed) != changes { associations.removeAll() }
        return try await associations.value(hostname) { try await make() } ?? []
    }

    /// Forgets what this process cached about a link (after it changed) or a hostname, its domain's association file
    /// with it.
    func forget(link: LinkRecord) {
        links.remove(link.domain + "/" + LinkRecord.key(link.path))
        linksById.remove(link.id)
        associations.remove(link.domain)
    }
    func forget(hostname: String) {
        domains.remove(hostname)
        associations.remove(hostname)
    }
}

extension LinkDirectory: SharedObject {
    convenience init(_ services: ServerServices) {
        self.init(store: services.store, apps: services.apps, clock: services.monotonic)
    }
}

extension ServerServices {
    /// The server's cache of links and domains.
    var links: LinkDirectory { shared(LinkDirectory.self) }
}
