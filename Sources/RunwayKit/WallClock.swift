import Foundation

/// The time of day, passed in wherever validity or ordering matters so that tests can pin it.
public struct WallClock: Sendable {
    private let read: @Sendable () -> Date

    public init(_ read: @escaping @Sendable () -> Date) { self.read = read }

    public static let system = WallClock { Date() }

    /// A clock stopped at `date`.
    public static func fixed(_ date: Date) -> WallClock { WallClock { date } }

    public func now() -> Date { read() }

    /// Milliseconds since 1970, as stored.
    public func nowMilliseconds() -> Int64 { Int64((read().timeIntervalSince1970 * 1000).rounded(.down)) }
}

/// Elapsed time, for what expires or refills by itself (caches, rate limits): never set back, and passed in so that
/// tests can move it by hand.
public struct MonotonicClock: Sendable {
    private let read: @Sendable () -> ContinuousClock.Instant

    public init(_ read: @escaping @Sendable () -> ContinuousClock.Instant) { self.read = read }

    public static let system = MonotonicClock { .now }

    public func now() -> ContinuousClock.Instant { read() }
}

/// Stored times are integer milliseconds since 1970 (UTC); the API shows them as ISO 8601.
public enum Timestamp {
    /// `2026-11-30T05:19:19.123Z`. Written digit by digit: it is in nearly every answer, and `String(format:)` was a
    /// measurable share of a request.
    /// A time outside the years 1 to 9999 (none the API takes) is written as the nearer end of them, never trapped on.
    public static func iso(_ stored: Int64) -> String {
        let milliseconds = min(max(stored, earliest), latest)
        let fraction = Int(((milliseconds % 1000) + 1000) % 1000)
        var seconds = time_t((milliseconds - Int64(fraction)) / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let year = Int(parts.tm_year) + 1900
        guard (0...9999).contains(year) else {
            return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", year, parts.tm_mon + 1, parts.tm_mday,
                          parts.tm_hour, parts.tm_min, parts.tm_sec, fraction)
        }
        var text: [UInt8] = Array("0000-00-00T00:00:00.000Z".utf8)
        func put(_ value: Int, width: Int, at offset: Int) {
            var rest = value
            for index in stride(from: offset + width - 1, through: offset, by: -1) {
                text[index] = UInt8(48 + rest % 10)
                rest /= 10
            }
        }
        put(year, width: 4, at: 0)
        put(Int(parts.tm_mon) + 1, width: 2, at: 5)
        put(Int(parts.tm_mday), width: 2, at: 8)
        put(Int(parts.tm_hour), width: 2, at: 11)
        put(Int(parts.tm_min), width: 2, at: 14)
        put(Int(parts.tm_sec), width: 2, at: 17)
        put(fraction, width: 3, at: 20)
        return String(decoding: text, as: UTF8.self)
    }

    /// `2026-11-30`: the UTC day `day` (days since 1970), clamped as `iso` clamps times.
    public static func isoDay(_ day: Int64) -> String {
        String(iso(min(max(day, earliest / dayMilliseconds), latest / dayMilliseconds) * dayMilliseconds).prefix(10))
    }

    static let dayMilliseconds: Int64 = 86_400_000
    /// 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z.
    static let earliest: Int64 = -62_135_596_800_000
    static let latest: Int64 = 253_402_300_799_999
}
