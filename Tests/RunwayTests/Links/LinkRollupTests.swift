import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayKit
import Testing

/// The calendar of the rollups: each amount under its UTC day and its UTC month, and a range read as its whole months
/// and the days around them.
@Suite("Link rollup periods")
struct LinkRollupTests {
    @Test("the month of a day is the civil calendar's, for every day from 1970 to 2100")
    func months() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for day in stride(from: Int64(0), through: 47_482, by: 1) {
            let date = Date(timeIntervalSince1970: Double(day) * 86_400)
            let first = calendar.date(from: calendar.dateComponents([.year, .month], from: date))!
            #expect(LinkRollup.monthStart(day) == Int64(first.timeIntervalSince1970 / 86_400), "day \(day)")
        }
        let november = LinkRollup.monthStart(20_775)  // 2026-11-18
        #expect(november == 20_758 && LinkRollup.nextMonth(november) == 20_788, "2026-11-01 and 2026-12-01")
    }

    static func day(_ text: String) -> Int64 { ISOTime.dayStart(text)! / 86_400_000 }

    @Test("a range is read as month rows for its whole months and day rows around them, covering each day once")
    func pieces() {
        let cases: [(String, String, [(String, String, String)])] = [
            ("2026-11-18", "2026-11-19", [("day", "2026-11-18", "2026-11-19")]),
            ("2026-11-01", "2026-11-30", [("month", "2026-11-01", "2026-11-30")]),
            ("2026-10-31", "2026-12-01", [("month", "2026-11-01", "2026-11-30"), ("day", "2026-10-31", "2026-10-31"), ("day", "2026-12-01", "2026-12-01")]),
            ("2025-11-19", "2026-11-18", [("month", "2025-12-01", "2026-10-31"), ("day", "2025-11-19", "2025-11-30"), ("day", "2026-11-01", "2026-11-18")]),
            ("2026-02-01", "2026-02-27", [("day", "2026-02-01", "2026-02-27")]),
        ]
        for (first, last, expected) in cases {
            let pieces = LinkStatsQueries.pieces(first: Self.day(first), last: Self.day(last))
            #expect(pieces.map { "\($0.period) \($0.first) \($0.last)" } == expected.map { "\($0.0) \(Self.day($0.1)) \(Self.day($0.2))" },
                    "\(first) to \(last)")
        }
        // Random ranges: the pieces cover every day of the range once and nothing else.
        var random = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let first = Int64.random(in: 19_000...21_000, using: &random), last = first + Int64.random(in: 0...365, using: &random)
            var covered: [Int64] = []
            for piece in LinkStatsQueries.pieces(first: first, last: last) {
                if piece.period == "month" {
                    var month = piece.first
                    #expect(LinkRollup.monthStart(month) == month)
                    while month <= piece.last {
                        let next = LinkRollup.nextMonth(month)
                        covered += Array(month..<next)
                        month = next
                    }
                } else {
                    covered += Array(piece.first...piece.last)
                }
            }
            #expect(covered.sorted() == Array(first...last))
        }
    }
}
