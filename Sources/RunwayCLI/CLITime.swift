import Foundation
import RunwayImport

/// Times typed on the command line: a bare day as well as a full ISO 8601 time.
enum CLITime {
    /// A day (`2026-12-31`) becomes the first moment after it in UTC (`2027-01-01T00:00:00Z`), so "expires on the
    /// 31st" keeps the whole of the 31st; anything else is passed on for the server to check.
    static func endOfDayOrTime(_ text: String) -> String { Cell.endOfDayOrTime(text) }

    /// The start of a `YYYY-MM-DD` day in UTC, or nil when `text` is not one.
    static func day(_ text: String) -> Date? {
        guard text.utf8.count == 10 else { return nil }
        return try? Date(text + "T00:00:00Z", strategy: .iso8601)
    }

    /// A moment typed as a span back from `now` (`12h`, `3d`) or a day (its start in UTC), as ISO 8601; anything else is
    /// passed on for the server to check.
    static func moment(_ text: String, now: Date) -> String {
        var formatter = Date.ISO8601FormatStyle()
        formatter.timeZone = .gmt
        if let unit = text.last, let hours = ["h": 1.0, "d": 24.0][String(unit)], let count = Double(text.dropLast()), count >= 0 {
            return now.addingTimeInterval(-count * hours * 3600).formatted(formatter)
        }
        return day(text)?.formatted(formatter) ?? text
    }
}
