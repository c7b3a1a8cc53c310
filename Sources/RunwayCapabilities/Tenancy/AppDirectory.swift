import LinkRunwayAPI
import RunwayKit
import RunwayStore
import Synchronization

/// The apps requests name, by id or by the App Store id one proved, cached for a few seconds as the link directory's
/// lookups are: a change made through this process applies at once, one made through another within five seconds.
final class AppDirectory: SharedObject {
    /// An app and its workspace, as found by App Store id.
    struct Owner: Sendable, Equatable {
        let appId: String
        let workspaceId: String
    }

    private let store: any Store
    private let byId: ExpiringCache<App>
    private let byAppStoreId: ExpiringCache<[Owner]>
    /// How many times this process changed an app; what was made from apps before (association files) is made again.
    private let changes = Atomic<Int>(0)

    init(store: any Store, clock: MonotonicClock, ttl: Duration = .seconds(5)) {
        self.store = store
        byId = ExpiringCache(clock: clock, ttl: ttl)
        byAppStoreId = ExpiringCache(clock: clock, ttl: ttl)
    }

    convenience init(_ services: ServerServices) {
        self.init(store: services.store, clock: services.monotonic)
    }

    func app(id: String) async throws -> App? {
        try await byId.value(id) { [store] in
            try await store.read { db in try TenancyQueries.app(db, id: id) }
        }
    }

    /// The app that proved an App Store id (none or one), whatever its workspace (see `AppStoreIdentity`).
    func apps(appStoreId: String) async throws -> [Owner] {
        try await byAppStoreId.value(appStoreId) { [store] in
            try await store.read { db in
                try AppStoreIdentityQueries.holder(db, appStoreId: appStoreId).map { [Owner(appId: $0.appId, workspaceId: $0.workspaceId)] } ?? []
            }
        } ?? []
    }

    /// The app as kept now, without a read (see `ExpiringCache.peek`).
    func cachedApp(id: String) -> App?? { byId.peek(id) }

    /// Forgets an app this process changed (its identity, its platforms).
    func forget(appId: String) {
        byId.remove(appId)
        changes.add(1, ordering: .relaxed)
    }

    /// Forgets which app holds an App Store id, after it moved.
    func forget(appStoreId: String) { byAppStoreId.remove(appStoreId) }

    /// How many times this process changed an app so far.
    var changeCount: Int { changes.load(ordering: .relaxed) }
}

extension ServerServices {
    /// The server's cache of apps.
    var apps: AppDirectory { shared(AppDirectory.self) }
}
