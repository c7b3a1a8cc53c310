import Foundation
import RunwayKit

/// A range of whole UTC days, chosen in a GET form (`from` and `to`, `2026-03-01`) or by a preset link (the last 7, 30
/// or 90 days). Whole days, so the first day of a chart counts all of that day and only that day.
struct ConsoleDateRange: Sendable, Equatable {
    static let presets = [7, 30, 90]
    static let defaultDays = 30
    static let maxDays = 366
    static let dayMilliseconds: Int64 = 86_400_000

    /// Days since 1970 (UTC), both included.
    let first: Int64
    let last: Int64

    /// The last `count` days, up to and including `today`.
    static func last(_ count: Int, today: Int64) -> ConsoleDateRange {
        ConsoleDateRange(first: today - Int64(count) + 1, last: today)
    }

    var count: Int { Int(last - first) + 1 }
    var days: [String] { (first...last).map(Self.iso) }
    var fromMilliseconds: Int64 { first * Self.dayMilliseconds }
    /// The start of the day after the last (the report's `to` is exclusive).
    var toMilliseconds: Int64 { (last + 1) * Self.dayMilliseconds }
    var fromText: String { Self.iso(first) }
    var toText: String { Self.iso(last) }

    /// The preset this range is, if it is one.
    func preset(today: Int64) -> Int? {
        last == today ? Self.presets.first { $0 == count } : nil
    }

    static func iso(_ day: Int64) -> String { Timestamp.isoDay(day) }

    static func today(_ milliseconds: Int64) -> Int64 {
        milliseconds >= 0 ? milliseconds / dayMilliseconds : (milliseconds - dayMilliseconds + 1) / dayMilliseconds
    }

    /// The range `from` and `to` ask for, or what is wrong with them (each problem names its field). Without `to` the
    /// range ends today, without `from` it is 30 days long; a `to` after today ends today, since later days have no
    /// data yet.
    static func read(from: String?, to: String?, today: Int64) -> (range: ConsoleDateRange?, problems: [FormProblem]) {
        func day(_ text: String?, field: String, name: String) -> (Int64?, FormProblem?) {
            guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return (nil, nil) }
            guard let start = ISOTime.dayStart(text) else {
                return (nil, FormProblem(fieldId: field, message: "\(name) must be a date written as 2026-03-01"))
            }
            return (start / dayMilliseconds, nil)
        }
        let (start, startProblem) = day(from, field: "from", name: "The start date")
        let (end, endProblem) = day(to, field: "to", name: "The end date")
        let problems = [startProblem, endProblem].compactMap { $0 }
        guard problems.isEmpty else { return (nil, problems) }
        let last = min(end ?? today, today)
        let first = start ?? last - Int64(defaultDays) + 1
        guard first <= last else {
            return (nil, [FormProblem(fieldId: "from", message: "The start date must be on or before the end date, and not after today (UTC)")])
        }
        guard last - first < Int64(maxDays) else {
            return (nil, [FormProblem(fieldId: "from", message: "A range is at most \(maxDays) days; this one is \(last - first + 1)")])
        }
        return (ConsoleDateRange(first: first, last: last), [])
    }
}
