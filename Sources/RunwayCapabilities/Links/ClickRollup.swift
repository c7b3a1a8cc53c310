import RunwayStore

/// Counts the clicks and opens the writer inserts into `link_stats`, in the savepoint of the statement that inserts
/// them (the click rows' `InsertFollowUp`): a click acknowledged is counted once, and one that failed is not counted.
/// Under load the writer inserts up to 64 clicks in one statement, so this runs once for them, and clicks that say the
/// same (a busy link, one kind of phone) are summed before they are spread over the dimensions.
struct ClickRollup: InsertFollowUp {
    /// What a click says that is counted, carried from the visit with its row (`RowInsert.followUpValue`).
    struct Click: Hashable, Sendable {
        let kind: String
        let linkId: String
        let day: Int64
        let facts: LinkRollup.Facts
    }

    func inserted(_ rows: [RowInsert], db: any SQLExecutor) throws {
        var same: [Click: Int64] = [:]
        for row in rows {
            guard let click = row.followUpValue as? Click else { throw StoreError.corrupt("a click row came without its click") }
            same[click, default: 0] += 1
        }
        var rollup = LinkRollup()
        for (click, count) in same { Self.add(click, count: count, to: &rollup) }
        try rollup.write(db)
    }

    static func add(_ click: Click, count: Int64, to rollup: inout LinkRollup) {
        rollup.add(count, of: click.kind, link: click.linkId, day: click.day, facts: click.facts)
    }

    /// The contribution of stored clicks and opens, for taking it out again.
    static func stored(_ visits: [LinkRows.Visit]) -> LinkRollup {
        var rollup = LinkRollup()
        for visit in visits { add(visit.click, count: 1, to: &rollup) }
        return rollup
    }
}
