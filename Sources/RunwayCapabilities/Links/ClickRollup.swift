import RunwayStore

/// Counts the clicks and opens the writer inserts into `link_stats`, in the savepoint of the statement that inserts
/// them (the click rows' `InsertFollowUp`): a click acknowledged is counted once, and one that failed is not counted.
/// Under load the writer inserts up to 64 clicks in one statement, so this runs once for them, and clicks that say the
/// same (a busy link, one kind of phone) are summed before they are spread over the dimensions.
struct ClickRollup: InsertFollowUp {
    /// What a click says that is counted.
    struct Click: Hashable {
        let kind: String
        let linkId: String
        let day: Int64
        let facts: LinkRollup.Facts
    }

    private let kind: Int, link: Int, platform: Int, osVersion: Int, referrer: Int, createdAt: Int, variant: Int, country: Int, qr: Int, inAppBrowser: Int

    /// `columns`: those of the click rows' `InsertTarget`.
    init(columns: [String]) {
        // trap-safe: the columns are the click rows' own constant list, which names each of these
        func index(_ name: String) -> Int { columns.firstIndex(of: name)! }
        kind = index("kind")
        link = index("link_id")
        platform = index("platform")
        osVersion = index("os_version")
        referrer = index("referrer_host")
        createdAt = index("created_at")
        variant = index("variant")
        country = index("country")
        qr = index("qr")
        inAppBrowser = index("in_app_browser")
    }

    func inserted(_ rows: [[SQLValue]], db: any SQLExecutor) throws {
        var same: [Click: Int64] = [:]
        for row in rows { same[click(row), default: 0] += 1 }
        var rollup = LinkRollup()
        for (click, count) in same { Self.add(click, count: count, to: &rollup) }
        try rollup.write(db)
    }

    static func add(_ click: Click, count: Int64, to rollup: inout LinkRollup) {
        rollup.add(count, of: click.kind, link: click.linkId, at: click.day * LinkRollup.day, facts: click.facts)
    }

    private func click(_ row: [SQLValue]) -> Click {
        func text(_ index: Int) -> String? {
            if case .text(let value) = row[index] { return value }
            return nil
        }
        var milliseconds: Int64 = 0
        if case .integer(let value) = row[createdAt] { milliseconds = value }
        var scanned = false
        if case .integer(let value) = row[qr] { scanned = value != 0 }
        return Click(kind: text(kind) ?? "click", linkId: text(link) ?? "", day: milliseconds / LinkRollup.day,
                     facts: LinkRollup.Facts(platform: text(platform) ?? "", osVersion: text(osVersion), variant: text(variant), qr: scanned,
                                             place: .init(country: text(country), referrer: text(referrer), inAppBrowser: text(inAppBrowser))))
    }

    /// The contribution of stored clicks and opens (rows with the click columns these name), for taking it out again.
    static func stored(_ rows: [SQLRow]) throws -> LinkRollup {
        var rollup = LinkRollup()
        for row in rows {
            let click = Click(kind: try row.string("kind"), linkId: try row.string("link_id"), day: try row.int("created_at") / LinkRollup.day,
                              facts: LinkRollup.Facts(platform: try row.string("platform"), osVersion: try row.optionalString("os_version"),
                                                      variant: try row.optionalString("variant"), qr: try row.bool("qr"),
                                                      place: .init(country: try row.optionalString("country"),
                                                                   referrer: try row.optionalString("referrer_host"),
                                                                   inAppBrowser: try row.optionalString("in_app_browser"))))
            add(click, count: 1, to: &rollup)
        }
        return rollup
    }

    /// The columns `stored` reads.
    static let storedColumns = "token, kind, link_id, platform, os_version, variant, qr, country, referrer_host, in_app_browser, created_at"
}
