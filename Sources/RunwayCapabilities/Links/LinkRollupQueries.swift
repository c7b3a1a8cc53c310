import RunwayStore

/// The SQL that takes amounts back out of `link_stats` (`LinkRollup.remove`): one row's lanes read, deleted and, when
/// something is left, stored again as one row.
enum LinkRollupQueries {
    /// The condition that picks out the lanes of one row of `link_stats`.
    static func lanes(of key: LinkRollup.Key) -> SQL {
        """
        link_id = \(key.linkId) AND dimension = \(key.dimension) AND period = \(key.period) AND day = \(key.day) AND value = \(key.value)
          AND measure = \(key.measure)
        """
    }

    /// The amounts of the lanes `lanes` picks out, one per lane stored.
    static func amounts(_ db: any SQLExecutor, lanes: SQL) throws -> [Int64] {
        try db.query("SELECT amount FROM link_stats WHERE " + lanes, as: LinkRows.LaneAmount.self).map(\.amount)
    }

    static func delete(_ db: any SQLExecutor, lanes: SQL) throws {
        try db.execute("DELETE FROM link_stats WHERE " + lanes)
    }

    /// Stores `amount` as the row of `key`, in lane 0.
    static func insert(_ db: any SQLExecutor, _ key: LinkRollup.Key, amount: Int64) throws {
        try db.execute("""
            INSERT INTO link_stats (link_id, dimension, period, day, value, measure, amount, lane)
            VALUES (\(key.linkId), \(key.dimension), \(key.period), \(key.day), \(key.value), \(key.measure), \(amount), 0)
            """)
    }
}
