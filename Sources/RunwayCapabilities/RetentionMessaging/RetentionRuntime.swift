import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayJSON
import RunwayKit
import RunwayStore
import Synchronization

/// An app's rules and the review states of its messages, as the realtime endpoint reads them.
struct RetentionConfiguration: Sendable {
    var rules: RetentionRuleSet
    /// Apple's state of each message listed, by lower-case message id, per environment.
    var states: [String: [String: String]]

    static let empty = RetentionConfiguration(rules: RetentionRuleSet(rules: []), states: [:])
}

/// What the realtime endpoint keeps between requests: each app's configuration for five seconds (a change made through
/// another server is heard within five seconds, one made through this one at once), the surfaces' apps, and how long
/// a choice may take.
final class RetentionRuntime: Sendable {
    /// Apple waits 700 ms for the whole answer; the rule's choice has this much of it, the rest is kept for the network
    /// and for answering with the fallback instead.
    static let defaultBudgetMilliseconds = 400

    private let store: any Store
    private let clock: MonotonicClock
    private let entries = Mutex<[AppId: (configuration: RetentionConfiguration, loadedAt: ContinuousClock.Instant)]>([:])
    private let surfaces = Mutex<[SurfaceId: (appId: AppId, environment: AppStoreVerifier.Environment)]>([:])
    /// How long the choice may take, in milliseconds (tests shorten it).
    let budgetMilliseconds = Atomic<Int>(RetentionRuntime.defaultBudgetMilliseconds)

    init(store: any Store, clock: MonotonicClock) {
        self.store = store
        self.clock = clock
    }

    func configuration(appId: AppId) async throws -> RetentionConfiguration {
        if let entry = entries.withLock({ $0[appId] }), entry.loadedAt.duration(to: clock.now()) < .seconds(5) { return entry.configuration }
        let loaded = try await store.read { db in try RetentionMessagingQueries.configuration(db, appId: appId) }
        entries.withLock { entries in
            if entries.count > 10_000 { entries.removeAll() }
            entries[appId] = (loaded, clock.now())
        }
        return loaded
    }

    /// The configuration last loaded for the app, however old: what the fallback is when there is no time to load it.
    func lastConfiguration(appId: AppId) -> RetentionConfiguration? { entries.withLock { $0[appId]?.configuration } }

    func forget(appId: AppId) { entries.withLock { _ = $0.removeValue(forKey: appId) } }

    /// A surface's app and environment, which never change once it is made: read once, then kept. Nil for no surface
    /// (or one whose stored environment is neither production nor sandbox).
    func surface(id: SurfaceId) async throws -> (appId: AppId, environment: AppStoreVerifier.Environment)? {
        if let known = surfaces.withLock({ $0[id] }) { return known }
        guard let row = try await store.read({ db in try AffiliateQueries.surface(db, id: id) }),
              let environment = row.appStoreEnvironment else { return nil }
        let found = (appId: row.appId, environment: environment)
        surfaces.withLock { surfaces in
            if surfaces.count > 10_000 { surfaces.removeAll() }
            surfaces[id] = found
        }
        return found
    }

    private static let timers = DispatchQueue(label: "linkrunway.retention-budget")

    /// The value of `operation`, or nil when `milliseconds` pass first. The operation is not cancelled (a database read
    /// cannot be): it goes on, and its late result is dropped.
    static func within<T: Sendable>(milliseconds: Int, _ operation: @escaping @Sendable () async throws -> T) async -> Result<T, any Error>? {
        guard milliseconds > 0 else { return nil }
        let first = FirstAnswer<Result<T, any Error>?>()
        return await withCheckedContinuation { continuation in
            first.waiting(continuation)
            Task {
                do { first.give(.success(try await operation())) } catch { first.give(.failure(error)) }
            }
            // A queue of its own, not Swift's cooperative threads, which the choices themselves may keep busy.
            timers.asyncAfter(deadline: .now() + .milliseconds(milliseconds)) {
                first.give(nil)
            }
        }
    }
}

/// A continuation resumed by the first of several answers.
private final class FirstAnswer<T: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<T, Never>?>(nil)

    func waiting(_ waiting: CheckedContinuation<T, Never>) { continuation.withLock { $0 = waiting } }

    func give(_ value: T) {
        continuation.withLock { current -> CheckedContinuation<T, Never>? in
            defer { current = nil }
            return current
        }?.resume(returning: value)
    }
}

extension RetentionRuntime: SharedObject {
    convenience init(_ services: ServerServices) {
        self.init(store: services.store, clock: services.monotonic)
    }
}

extension ServerServices {
    /// The realtime retention endpoint's cache and time budget.
    var retention: RetentionRuntime { shared(RetentionRuntime.self) }
}
