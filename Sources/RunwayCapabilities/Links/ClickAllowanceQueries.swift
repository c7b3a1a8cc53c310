import RunwayStore

/// The SQL of `link_click_allowances`: how many clicks of each capped link the processes have reserved between them
/// (`ClickAllowances`).
enum ClickAllowanceQueries {
    /// The places reserved for the link's clicks so far, or nil when its row is not made yet.
    static func reserved(_ db: any SQLExecutor, linkId: String) throws -> Int64? {
        try db.first("SELECT reserved FROM link_click_allowances WHERE link_id = \(linkId)", as: LinkRows.Reserved.self)?.reserved
    }

    /// Locks the link's row, changing nothing; how many rows it locked (0 when the row is not made yet).
    @discardableResult
    static func lock(_ db: any SQLExecutor, linkId: String) throws -> Int {
        try db.execute("UPDATE link_click_allowances SET reserved = reserved WHERE link_id = \(linkId)")
    }

    /// Makes the link's row with the clicks stored so far as reserved, unless another writer made it first.
    static func insertCountingClicks(_ db: any SQLExecutor, linkId: String) throws {
        try db.execute("""
            INSERT INTO link_click_allowances (link_id, reserved)
            SELECT \(linkId), COUNT(*) FROM clicks WHERE link_id = \(linkId) AND kind = 'click'
            ON CONFLICT (link_id) DO NOTHING
            """)
    }

    /// Raises the places reserved for the link's clicks by `block`.
    static func reserve(_ db: any SQLExecutor, linkId: String, block: Int64) throws {
        try db.execute("UPDATE link_click_allowances SET reserved = reserved + \(block) WHERE link_id = \(linkId)")
    }
}
