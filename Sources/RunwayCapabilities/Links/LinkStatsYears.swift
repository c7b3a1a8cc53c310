import RunwayStore

/// The year rows of `link_stats`. Writers add every amount to its year's row as they do to its month's, but a server of
/// a release before them, sharing the database during a rolling upgrade, adds to the month only. So the reader uses
/// year rows only once `build` has made them from the month rows, which the server runs when no server of an older
/// release is left (`ServerRuntime`), and marks in `instance_meta`; until then a range is read from months and days.
package enum LinkStatsYears {
    /// The `instance_meta` row that says the year rows hold every amount.
    static let marker = "link_stats_years"

    /// Whether year rows may be read.
    package static func whole(_ db: any SQLExecutor) throws -> Bool {
        try db.first("SELECT value FROM instance_meta WHERE name = \(marker)") != nil
    }

    /// Makes every year row again from the month rows and marks them whole, holding other writers off on PostgreSQL
    /// so that none adds to a month after it was read; returns how many year rows there are. Sums past 64 bits
    /// make it throw, and the year rows stay unread.
    package static func build(_ db: any SQLExecutor) throws -> Int {
        if db.dialect == .postgres { try db.execute("LOCK TABLE link_stats IN EXCLUSIVE MODE") }
        let year = yearStart(ofDay: "day", dialect: db.dialect)
        try db.execute("DELETE FROM link_stats WHERE period = 'year'")
        let rows = try db.execute("""
            INSERT INTO link_stats (link_id, dimension, period, day, value, measure, lane, amount)
            SELECT link_id, dimension, 'year', \(raw: year), value, measure, 0, SUM(amount) FROM link_stats WHERE period = 'month'
            GROUP BY link_id, dimension, \(raw: year), value, measure HAVING SUM(amount) <> 0
            """)
        try db.execute("INSERT INTO instance_meta (name, value) VALUES (\(marker), 'whole') ON CONFLICT (name) DO NOTHING")
        return rows
    }

    /// `LinkRollup.yearStart` in SQL: the first day (days since 1970) of the UTC year of a day.
    static func yearStart(ofDay day: String, dialect: SQLDialect) -> String {
        dialect == .sqlite
            ? "(CAST(strftime('%s', \(day) * 86400, 'unixepoch', 'start of year') AS BIGINT) / 86400)"
            : "(CAST(EXTRACT(EPOCH FROM date_trunc('year', to_timestamp(\(day) * 86400) AT TIME ZONE 'UTC')) AS BIGINT) / 86400)"
    }
}
