import RunwayStore

/// The year rows of `link_stats` (for `LinkRollup.yearlyDimensions`), kept on SQLite only. Writers add each amount of
/// those dimensions to its year's row as they do to its month's, but a server of a release before them, still running
/// on the database for a moment of an upgrade, adds to the month only. So the reader uses year rows only once `build`
/// has made them from the month rows, which the server runs when no server of an older release is left
/// (`YearRowsBuild`), and marks in `instance_meta`; until then a range is read from months and days.
package enum LinkStatsYears {
    /// Whether a backend keeps year rows. SQLite's one writer adds them at no cost its benchmarks can see; PostgreSQL's
    /// writers pay for every row they upsert (a tenth of the redirects a second for these), so there a year is read
    /// from its months.
    package static func kept(_ dialect: SQLDialect) -> Bool { dialect == .sqlite }

    /// The `instance_meta` row that says the year rows hold every amount.
    static let marker = "link_stats_years"

    /// Whether year rows may be read.
    package static func whole(_ db: any SQLExecutor) throws -> Bool {
        try kept(db.dialect) && LinkStatsQueries.isMarked(db, marker)
    }

    /// Makes every year row again from the month rows and marks them whole, in one write (SQLite's one writer adds
    /// nothing meanwhile); returns how many year rows there are, none where they are not kept. Sums past 64 bits make
    /// it throw, and the year rows stay unread.
    package static func build(_ db: any SQLExecutor) throws -> Int {
        guard kept(db.dialect) else { return 0 }
        try LinkStatsQueries.deleteYearRows(db)
        let rows = try LinkStatsQueries.insertYearRows(db)
        try LinkStatsQueries.mark(db, marker)
        return rows
    }
}
