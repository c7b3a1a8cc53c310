import RunwayKit
import RunwayStore

/// The SQL of a link's daily figures: reading them over a range (by the primary key, never the raw clicks), making the
/// year rows from the months (`LinkStatsYears`) and taking a forgotten install's clicks and opens out of them. The
/// three readers of amounts take their columns by name, not as `RowDecoder` records: a year's figures are tens of
/// thousands of rows, and decoding each through `Decodable` halved `link_stats_year` (measured); they return tuples
/// and `Amount`s, never rows.
enum LinkStatsQueries {
    /// One summed amount of the link's figures.
    struct Amount: Sendable {
        /// The day (for the total), or the dimension's value.
        let key: String
        let measure: String
        let amount: Int64
    }

    /// The SELECT list and GROUP BY of rows a caller adds up by `keys`: on SQLite, whose one writer keeps one lane,
    /// the rows as stored (its GROUP BY would cost more than the caller's adding); on PostgreSQL, whose writers each
    /// keep a lane, `amount` summed per key, so one row comes per key.
    private static func addedUp(_ db: any SQLExecutor, _ keys: String, _ amount: String) -> (columns: String, grouping: String) {
        db.dialect == .sqlite ? ("\(keys), \(amount)", "") : ("\(keys), SUM(\(amount)) AS \(amount)", "GROUP BY \(keys)")
    }

    /// The link's totals per day over the range; a day and measure may come more than once, for the caller to add up.
    static func days(_ db: any SQLExecutor, linkId: String, first: Int64, last: Int64) throws -> [(day: Int64, measure: String, amount: Int64)] {
        let select = addedUp(db, "day, measure", "amount")
        return try db.query("""
            SELECT \(raw: select.columns) FROM link_stats
            WHERE link_id = \(linkId) AND dimension = \(LinkRollup.total) AND period = 'day' AND day >= \(first) AND day <= \(last)
            \(raw: select.grouping)
            """).map { (try $0.int("day"), try $0.string("measure"), try $0.int("amount")) }
    }

    /// The link's amounts per value of `dimension`, summed over the range from the fewest rows that give it (`pieces`;
    /// `years` when year rows may be read). `today` only guides that choice; the sums are the same for any.
    static func breakdown(_ db: any SQLExecutor, linkId: String, dimension: String, first: Int64, last: Int64, today: Int64,
                          years: Bool) throws -> [Amount] {
        var sums: [String: [String: Int64]] = [:]
        let select = addedUp(db, "value, measure", "amount")
        for piece in pieces(first: first, last: last, today: today, years: years) {
            for row in try db.query("""
                SELECT \(raw: select.columns) FROM link_stats
                WHERE link_id = \(linkId) AND dimension = \(dimension) AND period = \(piece.period) AND day >= \(piece.first) AND day <= \(piece.last)
                \(raw: select.grouping)
                """) {
                let (value, measure, amount) = (try row.string("value"), try row.string("measure"), try row.int("amount"))
                let sum = sums[value, default: [:]][measure] ?? 0
                sums[value, default: [:]][measure] = piece.subtracted ? try Checked.subtract(sum, amount) : try Checked.add(sum, amount)
            }
        }
        // A year or month row is the sum of its day rows (they are written, and taken out, together), so a month less
        // some of its days is what the other days hold.
        return sums.flatMap { value, measures in measures.map { Amount(key: value, measure: $0.key, amount: $0.value) } }
    }

    /// Rows of one period over a span of days (both included), added to the sum or subtracted from it.
    struct Piece: Equatable, Sendable {
        let period: String
        let first: Int64
        let last: Int64
        let subtracted: Bool

        var negated: Piece { Piece(period: period, first: first, last: last, subtracted: !subtracted) }

        /// The rows of one value this piece reads: its periods that start on or before `today` (later ones hold
        /// nothing yet).
        func rows(today: Int64) -> Int64 {
            switch period {
            case "day": return max(0, min(last, today) - first + 1)
            default:
                var (count, start): (Int64, Int64) = (0, first)
                while start <= min(last, today) {
                    count += 1
                    start = period == "year" ? LinkRollup.nextYear(start) : LinkRollup.nextMonth(start)
                }
                return count
            }
        }
    }

    /// The range (days since 1970, both included) as the fewest rows that cover it. Without `years`: `month`
    /// rows (by their first days) for the whole months in it; for a month it covers in part, the range's own `day`
    /// rows, or, where the month has fewer days outside the range than in it, the month's row less the day rows
    /// outside (a year that starts on the 7th reads six days, not twenty-five). With `years` (once year rows are
    /// whole, `LinkStatsYears`), a year the range covers in part is read the same way from its months and days, or as
    /// its year row less the months and days outside, whichever reads fewer rows: the last 365 days are this year's
    /// row and a month of last year. Days after `today` hold nothing yet, so they cost nothing to read.
    static func pieces(first: Int64, last: Int64, today: Int64, years: Bool) -> [Piece] {
        guard years else { return monthPieces(first: first, last: last, today: today) }
        var chosen: [Piece] = []
        var start = LinkRollup.yearStart(first)
        while start <= last {
            let end = LinkRollup.nextYear(start) - 1
            let (inFirst, inLast) = (max(first, start), min(last, end))
            var whole = [Piece(period: "year", first: start, last: start, subtracted: false)]
            if inFirst > start { whole += monthPieces(first: start, last: inFirst - 1, today: today).map(\.negated) }
            if inLast < end { whole += monthPieces(first: inLast + 1, last: end, today: today).map(\.negated) }
            let part = monthPieces(first: inFirst, last: inLast, today: today)
            func rows(_ pieces: [Piece]) -> Int64 { pieces.reduce(0) { $0 + $1.rows(today: today) } }
            chosen += rows(whole) < rows(part) ? whole : part
            start = end + 1
        }
        return joined(chosen)
    }

    /// `pieces` from month and day rows only.
    static func monthPieces(first: Int64, last: Int64, today: Int64) -> [Piece] {
        var added: [Piece] = []
        var subtracted: [Piece] = []
        var months: (first: Int64, last: Int64)?
        func month(_ start: Int64) { months = (months?.first ?? start, start) }
        var start = LinkRollup.monthStart(first)
        while start <= last {
            let end = LinkRollup.nextMonth(start) - 1
            let (inFirst, inLast) = (max(first, start), min(last, end))
            let before = inFirst - start
            let after = max(0, min(end, today) - inLast)
            let inside = max(0, min(inLast, today) - inFirst + 1)
            if inFirst == start && inLast == end {
                month(start)
            } else if before + after < inside {
                month(start)
                if before > 0 { subtracted.append(Piece(period: "day", first: start, last: inFirst - 1, subtracted: true)) }
                if inLast < end { subtracted.append(Piece(period: "day", first: inLast + 1, last: end, subtracted: true)) }
            } else {
                added.append(Piece(period: "day", first: inFirst, last: inLast, subtracted: false))
            }
            start = end + 1
        }
        let whole = months.map { [Piece(period: "month", first: $0.first, last: $0.last, subtracted: false)] } ?? []
        return whole + added + subtracted
    }

    /// The pieces in a stable order (added before subtracted, years, months, then days), each run of pieces of one
    /// period and sign that follow each other joined into one.
    static func joined(_ pieces: [Piece]) -> [Piece] {
        let periods = ["year": 0, "month": 1, "day": 2]
        let sorted = pieces.sorted {
            ($0.subtracted ? 1 : 0, periods[$0.period] ?? 3, $0.first) < ($1.subtracted ? 1 : 0, periods[$1.period] ?? 3, $1.first)
        }
        var result: [Piece] = []
        for piece in sorted {
            if let previous = result.last, previous.period == piece.period, previous.subtracted == piece.subtracted,
               next(after: previous.last, period: piece.period) == piece.first {
                result[result.count - 1] = Piece(period: piece.period, first: previous.first, last: piece.last, subtracted: piece.subtracted)
            } else {
                result.append(piece)
            }
        }
        return result
    }

    /// The first day of the period after the one starting on `start`.
    private static func next(after start: Int64, period: String) -> Int64 {
        switch period {
        case "year": LinkRollup.nextYear(start)
        case "month": LinkRollup.nextMonth(start)
        default: start + 1
        }
    }

    /// Previews and bots of the link per day over the range (`link_automated_visits`, a count per client and day); a
    /// day and kind may come more than once, for the caller to add up.
    static func automated(_ db: any SQLExecutor, linkId: String, first: Int64, last: Int64) throws -> [(day: Int64, kind: String, visits: Int64)] {
        let select = addedUp(db, "day, kind", "visits")
        return try db.query("""
            SELECT \(raw: select.columns) FROM link_automated_visits
            WHERE link_id = \(linkId) AND day >= \(first) AND day <= \(last)
            \(raw: select.grouping)
            """).map { (try $0.int("day"), try $0.string("kind"), try $0.int("visits")) }
    }

    // MARK: Year rows (`LinkStatsYears`)

    /// Whether `instance_meta` holds the row named `marker`.
    static func isMarked(_ db: any SQLExecutor, _ marker: String) throws -> Bool {
        try db.first("SELECT value FROM instance_meta WHERE name = \(marker)") != nil
    }

    /// Adds the `instance_meta` row named `marker`, unless it is there already.
    static func mark(_ db: any SQLExecutor, _ marker: String) throws {
        try db.execute("INSERT INTO instance_meta (name, value) VALUES (\(marker), 'whole') ON CONFLICT (name) DO NOTHING")
    }

    static func deleteYearRows(_ db: any SQLExecutor) throws {
        try db.execute("DELETE FROM link_stats WHERE period = 'year'")
    }

    /// Makes the year rows of `LinkRollup.yearlyDimensions` from the month rows (SQLite's SQL), leaving out sums of
    /// zero; how many it made.
    static func insertYearRows(_ db: any SQLExecutor) throws -> Int {
        try db.execute("""
            INSERT INTO link_stats (link_id, dimension, period, day, value, measure, lane, amount)
            SELECT link_id, dimension, 'year', \(raw: yearStart), value, measure, 0, SUM(amount) FROM link_stats
            WHERE period = 'month' AND dimension IN (\(raw: LinkRollup.yearlyDimensions.sorted().map { "'\($0)'" }.joined(separator: ", ")))
            GROUP BY link_id, dimension, \(raw: yearStart), value, measure HAVING SUM(amount) <> 0
            """)
    }

    /// `LinkRollup.yearStart` in SQLite's SQL: the first day (days since 1970) of the UTC year of the `day` column.
    private static let yearStart = "(CAST(strftime('%s', day * 86400, 'unixepoch', 'start of year') AS BIGINT) / 86400)"

    /// Takes the install's clicks and opens, and the click it was matched to, out of their links' figures (before
    /// the deletion removes them).
    static func forgetClicks(of install: InstallReference, _ db: any SQLExecutor) throws {
        var visits = try db.query("""
            SELECT \(raw: LinkRows.Visit.columns) FROM clicks WHERE install_id = \(install.installId) AND workspace_id = \(install.workspaceId)
            """, as: LinkRows.Visit.self)
        if let token = install.clickToken, !visits.contains(where: { $0.token == token }) {
            visits += try db.query("SELECT \(raw: LinkRows.Visit.columns) FROM clicks WHERE token = \(token)", as: LinkRows.Visit.self)
        }
        try ClickRollup.stored(visits).remove(from: db)
    }
}
