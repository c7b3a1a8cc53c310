import Foundation
import Synchronization

/// A token bucket per key (in this process): `capacity` requests at once, refilled at a steady rate. At most
/// `maxBuckets` keys are kept: past it the buckets that have filled up again go first (forgetting them changes
/// nothing), then the least recently used, so a flood of new keys never empties the buckets of those being held back.
package final class RateLimiter: Sendable {
    private let capacity: Double
    private let perSecond: Double
    private let clock: MonotonicClock
    private let maxBuckets: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    struct Bucket {
        var tokens: Double
        /// When it was last taken from (and refilled up to).
        var at: ContinuousClock.Instant
    }

    package convenience init(capacity: Int, perMinute: Int, clock: MonotonicClock = .system, maxBuckets: Int = 100_000) {
        self.init(capacity: Double(capacity), perSecond: Double(perMinute) / 60, clock: clock, maxBuckets: maxBuckets)
    }

    /// `perSecond` may be a fraction: a daily allowance is `capacity / 86_400`.
    package init(capacity: Double, perSecond: Double, clock: MonotonicClock = .system, maxBuckets: Int = 100_000) {
        self.capacity = max(1, capacity)
        self.perSecond = max(perSecond, 1e-9)
        self.clock = clock
        self.maxBuckets = max(16, maxBuckets)
    }

    /// How many keys it holds now.
    package var count: Int { buckets.withLock { $0.count } }

    /// Takes `count` tokens for `key` (a batch costs one per item; more than the bucket holds costs all of it);
    /// returns nil when allowed, or the seconds to wait.
    package func take(_ key: String, count: Int = 1) -> Int? {
        let now = clock.now()
        let cost = min(capacity, Double(max(1, count)))
        return buckets.withLock { buckets in
            if buckets[key] == nil, buckets.count >= maxBuckets { evict(&buckets, now: now) }
            var bucket = buckets[key] ?? Bucket(tokens: capacity, at: now)
            bucket.tokens = refilled(bucket, now: now)
            bucket.at = now
            guard bucket.tokens >= cost else {
                buckets[key] = bucket
                return max(1, Int(((cost - bucket.tokens) / perSecond).rounded(.up).clamped(to: 1...86_400 * 365)))
            }
            bucket.tokens -= cost
            buckets[key] = bucket
            return nil
        }
    }

    private func refilled(_ bucket: Bucket, now: ContinuousClock.Instant) -> Double {
        let elapsed = bucket.at.duration(to: now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return min(capacity, bucket.tokens + max(0, seconds) * perSecond)
    }

    /// Makes room for a tenth of `maxBuckets`: full buckets first, then the least recently used.
    private func evict(_ buckets: inout [String: Bucket], now: ContinuousClock.Instant) {
        let target = maxBuckets - maxBuckets / 10
        buckets = buckets.filter { refilled($0.value, now: now) < capacity }
        guard buckets.count > target else { return }
        let oldest = buckets.sorted { $0.value.at < $1.value.at }.prefix(buckets.count - target)
        for (key, _) in oldest { buckets[key] = nil }
    }
}

extension Double {
    func clamped(to range: ClosedRange<Double>) -> Double { Swift.min(Swift.max(self, range.lowerBound), range.upperBound) }
}
