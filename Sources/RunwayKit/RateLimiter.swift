import Foundation
import Synchronization

/// A token bucket per key (in this process): `capacity` requests at once, refilled at `perMinute`.
package final class RateLimiter: Sendable {
    private let capacity: Double
    private let perSecond: Double
    private let clock: MonotonicClock
    private let buckets = Mutex<[String: (tokens: Double, at: ContinuousClock.Instant)]>([:])

    package init(capacity: Int, perMinute: Int, clock: MonotonicClock = .system) {
        self.capacity = Double(capacity)
        self.perSecond = Double(perMinute) / 60
        self.clock = clock
    }

    /// Takes one token for `key`; returns nil when allowed, or the seconds to wait.
    package func take(_ key: String) -> Int? {
        let now = clock.now()
        return buckets.withLock { buckets in
            if buckets.count > 100_000 { buckets.removeAll() }
            var (tokens, at) = buckets[key] ?? (capacity, now)
            let elapsed = at.duration(to: now)
            tokens = min(capacity, tokens + (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * perSecond)
            guard tokens >= 1 else {
                buckets[key] = (tokens, now)
                return max(1, Int(((1 - tokens) / perSecond).rounded(.up)))
            }
            buckets[key] = (tokens - 1, now)
            return nil
        }
    }
}
