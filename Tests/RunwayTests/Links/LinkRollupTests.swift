import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayKit
@testable import RunwayServer
import RunwaySQLite
import RunwayStore
import RunwayTestKit
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

    @Test("a range is read from the fewest rows: whole months as month rows, a month in part as its days or as its month less the others")
    func pieces() {
        let cases: [(String, String, [(String, String, String, Bool)])] = [
            ("2026-11-18", "2026-11-19", [("day", "2026-11-18", "2026-11-19", false)]),
            ("2026-11-01", "2026-11-30", [("month", "2026-11-01", "2026-11-01", false)]),
            ("2026-10-31", "2026-12-01", [("month", "2026-11-01", "2026-11-01", false), ("day", "2026-10-31", "2026-10-31", false),
                                          ("day", "2026-12-01", "2026-12-01", false)]),
            // Most of November 2025 is in the range, and the current month holds nothing after today.
            ("2025-11-03", "2026-12-05", [("month", "2025-11-01", "2026-12-01", false), ("day", "2025-11-01", "2025-11-02", true),
                                          ("day", "2026-12-06", "2026-12-31", true)]),
            ("2025-11-19", "2026-11-18", [("month", "2025-12-01", "2026-11-01", false), ("day", "2025-11-19", "2025-11-30", false),
                                          ("day", "2026-11-19", "2026-11-30", true)]),
            ("2026-02-01", "2026-02-27", [("month", "2026-02-01", "2026-02-01", false), ("day", "2026-02-28", "2026-02-28", true)]),
            ("2026-12-02", "2026-12-06", [("month", "2026-12-01", "2026-12-01", false), ("day", "2026-12-01", "2026-12-01", true),
                                          ("day", "2026-12-07", "2026-12-31", true)]),
        ]
        Self.expectPieces(cases, years: false)
    }

    /// The fixed cases (a range, and the pieces expected for it on 2026-12-06), then `expectExact`.
    static func expectPieces(_ cases: [(String, String, [(String, String, String, Bool)])], years: Bool) {
        let today = day("2026-12-06")
        for (first, last, expected) in cases {
            let pieces = LinkStatsQueries.pieces(first: day(first), last: day(last), today: today, years: years)
            #expect(pieces == expected.map { LinkStatsQueries.Piece(period: $0.0, first: day($0.1), last: day($0.2), subtracted: $0.3) },
                    "\(first) to \(last)")
        }
        expectExact(years: years)
    }

    /// Random ranges and days: what the pieces add less what they subtract is every day of the range once, and they
    /// never read more rows of a value than the range has days, nor, with years, more than months and days alone.
    static func expectExact(years: Bool) {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let first = Int64.random(in: 19_000...21_000, using: &random), last = first + Int64.random(in: 0...(years ? 800 : 365), using: &random)
            let today = first + Int64.random(in: -40...900, using: &random)
            var count: [Int64: Int] = [:]
            var read: Int64 = 0
            let pieces = LinkStatsQueries.pieces(first: first, last: last, today: today, years: years)
            for piece in pieces {
                var days: [Int64] = []
                if piece.period == "day" {
                    days = Array(piece.first...piece.last)
                } else {
                    let (start, next) = piece.period == "year" ? (LinkRollup.yearStart, LinkRollup.nextYear) : (LinkRollup.monthStart, LinkRollup.nextMonth)
                    #expect(start(piece.first) == piece.first && start(piece.last) == piece.last)
                    var period = piece.first
                    while period <= piece.last {
                        days += Array(period..<next(period))
                        period = next(period)
                    }
                }
                read += piece.rows(today: today)
                for day in days { count[day, default: 0] += piece.subtracted ? -1 : 1 }
            }
            #expect(count.filter { $0.value != 0 }.keys.sorted() == Array(first...last) && count.values.allSatisfy { $0 == 0 || $0 == 1 },
                    "\(first) to \(last), today \(today)")
            #expect(read <= max(0, min(last, today) - first + 1), "\(first) to \(last), today \(today)")
            if years {
                let monthsOnly = LinkStatsQueries.pieces(first: first, last: last, today: today, years: false).reduce(0) { $0 + $1.rows(today: today) }
                #expect(read <= monthsOnly, "\(first) to \(last), today \(today): \(pieces)")
            }
        }
    }

    @Test("the year of a day is the civil calendar's, for every day from 1970 to 2100")
    func years() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for day in stride(from: Int64(0), through: 47_482, by: 1) {
            let date = Date(timeIntervalSince1970: Double(day) * 86_400)
            let first = calendar.date(from: calendar.dateComponents([.year], from: date))!
            #expect(LinkRollup.yearStart(day) == Int64(first.timeIntervalSince1970 / 86_400), "day \(day)")
        }
        #expect(LinkRollup.yearStart(Self.day("2026-12-06")) == Self.day("2026-01-01") && LinkRollup.nextYear(Self.day("2024-01-01")) == Self.day("2025-01-01"))
    }

    @Test("with year rows, a year in part is read from its months and days or as its year row less the rest, whichever reads fewer")
    func piecesWithYears() {
        let cases: [(String, String, [(String, String, String, Bool)])] = [
            // The last 365 days: this year's row (December's days after today hold nothing) and last December less its first days.
            ("2025-12-07", "2026-12-06", [("year", "2026-01-01", "2026-01-01", false), ("month", "2025-12-01", "2025-12-01", false),
                                          ("day", "2025-12-01", "2025-12-06", true), ("day", "2026-12-07", "2026-12-31", true)]),
            ("2024-01-01", "2025-12-31", [("year", "2024-01-01", "2025-01-01", false)]),
            ("2026-01-01", "2026-11-30", [("year", "2026-01-01", "2026-01-01", false), ("month", "2026-12-01", "2026-12-01", true)]),
            ("2025-02-01", "2025-12-31", [("year", "2025-01-01", "2025-01-01", false), ("month", "2025-01-01", "2025-01-01", true)]),
            ("2025-03-01", "2025-06-30", [("month", "2025-03-01", "2025-06-01", false)]),
            ("2025-11-20", "2026-02-03", [("month", "2025-12-01", "2026-01-01", false), ("day", "2025-11-20", "2025-11-30", false),
                                          ("day", "2026-02-01", "2026-02-03", false)]),
        ]
        Self.expectPieces(cases, years: true)
    }

    @Test("year rows are made from the months once no older server runs, and read only then; a year's answer is its days' sum")
    func yearRows() async throws {
        let directory = TemporaryDirectory()
        let store = try SQLiteStore(path: directory.path("figures.db"))
        defer { Task { await store.close() } }
        _ = try await store.migrate(Schema.migrations)
        // Clicks written as today's writer writes them, from 2025-06-01 to 2026-12-06, from two countries in turn.
        let (first, today) = (Self.day("2025-06-01"), Self.day("2026-12-06"))
        var random = SystemRandomNumberGenerator()
        var clicks: [(day: Int64, country: String, count: Int64)] = []
        for day in first...today where Int.random(in: 0..<3, using: &random) > 0 {
            clicks.append((day, day % 2 == 0 ? "US" : "FR", Int64.random(in: 1...50, using: &random)))
        }
        let written = clicks
        clicks.append((Self.day("2026-03-03"), "US", 1000))
        try await store.write { db in
            var rollup = LinkRollup()
            for click in written {
                rollup.add(click.count, of: "click", link: "lnk_1", at: click.day * LinkRollup.day,
                           facts: .init(platform: "ios", qr: false, place: .init(country: click.country)))
            }
            try rollup.write(db)
            // A server of the release before year rows adds a day and its month only, in a lane of its own.
            for (period, day) in [("day", Self.day("2026-03-03")), ("month", Self.day("2026-03-01"))] {
                for (dimension, value) in [(LinkRollup.total, ""), ("country", "US")] {
                    try db.execute("""
                        INSERT INTO link_stats (link_id, dimension, period, day, value, measure, lane, amount)
                        VALUES ('lnk_1', \(dimension), \(period), \(day), \(value), 'click', 5, 1000)
                        """)
                }
            }
            // That server still runs: its heartbeat is fresh and names an older step.
            try db.execute("""
                INSERT INTO server_instances (id, owner, started_at, heartbeat_at, newest_step)
                VALUES ('inst_old', 'inst_old 1 1 elsewhere', 0, \(today * LinkRollup.day), '0067_app_attest_builds')
                """)
        }
        let truth = clicks
        func expectTruth(_ label: String) async throws {
            for (from, to) in [("2025-12-07", "2026-12-06"), ("2025-06-01", "2026-05-31"), ("2026-01-01", "2026-12-06"), ("2026-02-10", "2026-03-05")] {
                let (a, b) = (Self.day(from), Self.day(to))
                let stats = try await store.read { db in
                    try LinkStatsReport.read(db, linkId: "lnk_1", query: LinkStatsQuery(firstDay: a, lastDay: b, by: ["country"], today: today))
                }
                let countries = Dictionary(uniqueKeysWithValues: (stats.breakdowns.first?.rows ?? []).map { ($0.key, $0.clicks) })
                for country in ["US", "FR"] {
                    let sum = truth.filter { $0.country == country && $0.day >= a && $0.day <= b }.reduce(0) { $0 + $1.count }
                    #expect(countries[country] ?? 0 == sum, "\(label): \(country) from \(from) to \(to)")
                }
            }
        }
        let now = today * LinkRollup.day
        #expect(try await YearRowsBuild.run(store, now: now) == nil, "an older server runs")
        #expect(try await store.read { db in try LinkStatsYears.whole(db) } == false)
        try await expectTruth("read from months while an older server runs")
        try await store.write { db in try db.execute("DELETE FROM server_instances WHERE id = 'inst_old'") }
        let made = try await YearRowsBuild.run(store, now: now)
        #expect(made == 2 * 8, "2025 and 2026: every breakdown's one value, and two countries; no total")
        #expect(try await store.read { db in try LinkStatsYears.whole(db) } == true)
        try await expectTruth("read from years")
        #expect(try await YearRowsBuild.run(store, now: now) == 0, "made once")
    }

    @Test("a month less its days outside the range keeps net revenue below zero; lanes and clients of a day add up")
    func monthLessDays() async throws {
        let directory = TemporaryDirectory()
        let store = try SQLiteStore(path: directory.path("figures.db"))
        defer { Task { await store.close() } }
        _ = try await store.migrate(Schema.migrations)
        let (first, second, last) = (Self.day("2026-10-01"), Self.day("2026-10-02"), Self.day("2026-10-31"))
        try await store.write { db in
            // October: a purchase of 500 on the 1st, refunds of 800 on the 2nd (two lanes) and of 100 on the 31st.
            for (period, day, amount, lane) in [("day", first, 500, 0), ("day", second, -300, 0), ("day", second, -500, 3), ("day", last, -100, 0),
                                                 ("month", first, -400, 0)] as [(String, Int64, Int64, Int)] {
                for dimension in [LinkRollup.total, "platform"] {
                    try db.execute("""
                        INSERT INTO link_stats (link_id, dimension, period, day, value, measure, lane, amount)
                        VALUES ('lnk_1', \(dimension), \(period), \(day), \(dimension == "platform" ? "ios" : ""), 'revenue:USD', \(lane), \(amount))
                        """)
                }
            }
        }
        try await store.write { db in
            // Previews by two clients, and a bot, on the 2nd: counted per client, added up per day.
            for (kind, agent, visits) in [("preview", "slackbot", 2), ("preview", "twitterbot", 5), ("bot", "googlebot", 1)] {
                try db.execute("""
                    INSERT INTO link_automated_visits (link_id, workspace_id, day, kind, agent, visits)
                    VALUES ('lnk_1', 'ws_1', \(second), \(kind), \(agent), \(visits))
                    """)
            }
        }
        let stats = try await store.read { db in
            try LinkStatsReport.read(db, linkId: "lnk_1", query: LinkStatsQuery(firstDay: second, lastDay: last, today: Self.day("2026-12-06")))
        }
        #expect(stats.days?.first?.previews == 7 && stats.days?.first?.bots == 1 && stats.total.previews == 7)
        #expect(LinkStatsQueries.pieces(first: second, last: last, today: Self.day("2026-12-06"), years: false).contains { $0.subtracted },
                "the 2nd to the 31st is October less its 1st")
        #expect(stats.total.revenue == ["USD": -900] && stats.days?.first?.revenue == ["USD": -800])
        #expect(stats.breakdowns.first { $0.dimension == "platform" }?.rows.first?.revenue == ["USD": -900])
    }
}
