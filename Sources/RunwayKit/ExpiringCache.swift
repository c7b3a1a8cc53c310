import Synchronization

/// Values read from the store, kept by key for a while: a value found for `ttl`, a key known to have none for
/// `negativeTTL`. Emptied when it reaches `limit` keys, so keys a client makes up cannot grow it.
package final class ExpiringCache<Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        let value: Value?
        let loadedAt: ContinuousClock.Instant
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let clock: MonotonicClock
    private let ttl: Duration
    private let negativeTTL: Duration
    private let limit: Int

    package init(clock: MonotonicClock, ttl: Duration, negativeTTL: Duration = .seconds(1), limit: Int = 100_000) {
        self.clock = clock
        self.ttl = ttl
        self.negativeTTL = negativeTTL
        self.limit = limit
    }

    /// The value kept for `key` while it is fresh; otherwise what `load` reads, kept from now.
    package func value(_ key: String, load: @Sendable () async throws -> Value?) async throws -> Value? {
        let now = clock.now()
        if let entry = entries.withLock({ $0[key] }), fresh(entry, at: now) { return entry.value }
        let value = try await load()
        keep(key, value, since: now)
        return value
    }

    /// What is kept now, without a read: `.some(value)` when fresh (the value may be nil: known not to exist), nil when
    /// only `value(_:load:)` can tell.
    package func peek(_ key: String) -> Value?? {
        guard let entry = entries.withLock({ $0[key] }), fresh(entry, at: clock.now()) else { return nil }
        return .some(entry.value)
    }

    /// Keeps `value` for `key`, read at `since` (now unless given), as `value(_:load:)` keeps what it read.
    package func keep(_ key: String, _ value: Value?, since: ContinuousClock.Instant? = nil) {
        let loadedAt = since ?? clock.now()
        entries.withLock { entries in
            if entries.count >= limit { entries.removeAll() }
            entries[key] = Entry(value: value, loadedAt: loadedAt)
        }
    }

    /// Forgets `key` (after this process changed what it names).
    package func remove(_ key: String) { entries.withLock { _ = $0.removeValue(forKey: key) } }

    /// Forgets every key.
    package func removeAll() { entries.withLock { $0.removeAll() } }

    private func fresh(_ entry: Entry, at now: ContinuousClock.Instant) -> Bool {
        entry.loadedAt.duration(to: now) < (entry.value == nil ? negativeTTL : ttl)
    }
}
