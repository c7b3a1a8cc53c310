import RunwayKit
import RunwayStore

/// The SQL of a link's daily figures: reading them over a range (by the primary key, never the raw clicks) and taking
/// a forgotten install's clicks and opens out of them.
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

    /// The link's amounts per value of `dimension`, summed over the range from the fewest rows that give it (`pieces`).
    /// `today` only guides that choice; the sums are the same for any.
    static func breakdown(_ db: any SQLExecutor, linkId: String, dimension: String, first: Int64, last: Int64, today: Int64) throws -> [Amount] {
        var sums: [String: [String: Int64]] = [:]
        for piece in pieces(first: first, last: last, today: today) {
            for row in try db.query("""
                SELECT value, measure, SUM(amount) AS amount FROM link_stats
                WHERE link_id = \(linkId) AND dimension = \(dimension) AND period = \(piece.period) AND day >= \(piece.first) AND day <= \(piece.last)
                GROUP BY value, measure
                """) {
                let (value, measure, amount) = (try row.string("value"), try row.string("measure"), try row.int("amount"))
                let sum = sums[value, default: [:]][measure] ?? 0
                sums[value, default: [:]][measure] = piece.subtracted ? try Checked.subtract(sum, amount) : try Checked.add(sum, amount)
            }
        }
        // A month row is the sum of its day rows (they are written, and taken out, together), so a month less some of
        // its days is what the other days hold.
        return sums.flatMap { value, measures in measures.map { Amount(key: value, measure: $0.key, amount: $0.value) } }
    }

    /// Rows of one period over a span of days (both included), added to the sum or subtracted from it.
    struct Piece: Equatable, Sendable {
        let period: String
        let first: Int64
        let last: Int64
        let subtracted: Bool
    }

    /// The range (days since 1970, both included) as the rows that cover it: `month` rows (by their first days) for
    /// the whole months in it; for a month it covers in part, the range's own `day` rows, or, where the month has
    /// fewer days outside the range than in it, the month's row less the day rows outside (a year that starts on the
    /// 7th reads six days, not twenty-five). Days after `today` hold nothing yet, so the current month is read
    /// whole.
    static func pieces(first: Int64, last: Int64, today: Int64) -> [Piece] {
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
            if inFirst == start && inLast == end {
                month(start)
            } else if before + after < inLast - inFirst + 1 {
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

    /// Takes the install's clicks and opens, and the click it was matched to, out of their links' figures (before
    /// the deletion removes them).
    static func forgetClicks(of install: InstallReference, _ db: any SQLExecutor) throws {
        var rows = try db.query("""
            SELECT \(raw: ClickRollup.storedColumns) FROM clicks WHERE install_id = \(install.installId) AND workspace_id = \(install.workspaceId)
            """)
        if let token = install.clickToken, try !rows.contains(where: { try $0.string("token") == token }) {
            rows += try db.query("SELECT \(raw: ClickRollup.storedColumns) FROM clicks WHERE token = \(token)")
        }
        try ClickRollup.stored(rows).remove(from: db)
    }
}
