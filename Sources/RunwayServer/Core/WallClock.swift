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

/// Stored times are integer milliseconds since 1970 (UTC); the API shows them as ISO 8601.
public enum Timestamp {
    /// `2026-11-30T05:19:19.123Z`.
    public static func iso(_ milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds / 1000)
        let ms = Int(milliseconds % 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec, ms)
    }
}
