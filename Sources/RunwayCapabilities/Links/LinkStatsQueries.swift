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

    /// The link's totals per day over the range (its writers' lanes summed).
    static func days(_ db: any SQLExecutor, linkId: String, first: Int64, last: Int64) throws -> [(day: Int64, measure: String, amount: Int64)] {
        try db.query("""
            SELECT day, measure, SUM(amount) AS amount FROM link_stats
            WHERE link_id = \(linkId) AND dimension = \(LinkRollup.total) AND period = 'day' AND day >= \(first) AND day <= \(last)
            GROUP BY day, measure
            """).map { (try $0.int("day"), try $0.string("measure"), try $0.int("amount")) }
    }

    /// The link's amounts per value of `dimension`, summed over the range: the month rows of the whole months in it,
    /// and the day rows of the days around them.
    static func breakdown(_ db: any SQLExecutor, linkId: String, dimension: String, first: Int64, last: Int64) throws -> [Amount] {
        var sums: [String: [String: Int64]] = [:]
        for piece in pieces(first: first, last: last) {
            for row in try db.query("""
                SELECT value, measure, SUM(amount) AS amount FROM link_stats
                WHERE link_id = \(linkId) AND dimension = \(dimension) AND period = \(piece.period) AND day >= \(piece.first) AND day <= \(piece.last)
                GROUP BY value, measure
                """) {
                sums[try row.string("value"), default: [:]][try row.string("measure"), default: 0] += try row.int("amount")
            }
        }
        return sums.flatMap { value, measures in measures.map { Amount(key: value, measure: $0.key, amount: $0.value) } }
    }

    /// The range (days since 1970, both included) as the rows that cover it: `month` rows (by their first days) for
    /// the whole months in it, `day` rows for the days before and after them.
    static func pieces(first: Int64, last: Int64) -> [(period: String, first: Int64, last: Int64)] {
        var start = LinkRollup.monthStart(first)
        if start < first { start = LinkRollup.nextMonth(start) }
        let end = LinkRollup.monthStart(last + 1)
        guard start < end else { return [("day", first, last)] }
        var pieces = [("month", start, end - 1)]
        if first < start { pieces.append(("day", first, start - 1)) }
        if end <= last { pieces.append(("day", end, last)) }
        return pieces
    }

    /// Previews and bots of the link per day over the range (`link_automated_visits`, a count per day already).
    static func automated(_ db: any SQLExecutor, linkId: String, first: Int64, last: Int64) throws -> [(day: Int64, kind: String, visits: Int64)] {
        try db.query("""
            SELECT day, kind, SUM(visits) AS visits FROM link_automated_visits
            WHERE link_id = \(linkId) AND day >= \(first) AND day <= \(last)
            GROUP BY day, kind
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
