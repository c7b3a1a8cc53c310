import LinkRunwayAPI
import RunwayStore

/// A link's counts per UTC day, by dimension (`link_stats`), kept up by the writer in the transaction of the rows they
/// count: clicks and opens as the writer inserts them (`ClickRollup`), installs as they are matched (`Matcher`),
/// events and revenue as they are stored (`EventWriter`); and taken out again, in the deletion's transaction, when an
/// install is forgotten. Each amount goes under the link's total and under the row's value of every dimension it has.
/// Each amount is counted under its UTC day and its UTC month, and on SQLite a breakdown's under its UTC year too, so a
/// long range reads a row per year or month and value, and day rows only around them (`LinkStatsQueries.pieces`; year
/// rows are read only once they are known whole, `LinkStatsYears`). The amounts of one statement's rows (a group
/// commit's clicks, an event batch) are summed here first, so a busy link costs one upserted row per dimension and
/// period, not one per click.
struct LinkRollup {
    /// One row of `link_stats`: `day` is the first day of its period (days since 1970, UTC).
    struct Key: Hashable, Comparable {
        let linkId: String
        let dimension: String
        let period: String
        let day: Int64
        let value: String
        let measure: String

        /// By link, dimension, period, day, value and measure; field by field, since a tuple of the six would copy
        /// each string for every comparison of a sort.
        static func < (a: Key, b: Key) -> Bool {
            if a.linkId != b.linkId { return a.linkId < b.linkId }
            if a.dimension != b.dimension { return a.dimension < b.dimension }
            if a.period != b.period { return a.period < b.period }
            if a.day != b.day { return a.day < b.day }
            if a.value != b.value { return a.value < b.value }
            return a.measure < b.measure
        }
    }

    /// What a counted row says about itself. Installs and events have no `place`: an install's row keeps no
    /// country, referrer or in-app browser, so they are counted by platform, OS version, variant and QR source only.
    struct Facts: Hashable {
        var platform: String
        var osVersion: String?
        var variant: String?
        var qr: Bool
        var place: Place?

        struct Place: Hashable {
            var country: String?
            var referrer: String?
            var inAppBrowser: String?
        }
    }

    /// The dimensions under the total, by their names in the API (`LinkStats.dimensions`).
    static let total = "total"

    /// The dimensions with year rows: the breakdowns, which read them. The total is read by day only.
    static let yearlyDimensions = Set(LinkStats.dimensions)

    static let day: Int64 = 86_400_000

    /// Measures: `click`, `open`, `install`, `event:<TYPE>`, `revenue:<CURRENCY>` (net, in minor units); those of
    /// simulated installs start with `simulated:`, so reports can leave them out.
    static func measure(_ base: String, simulated: Bool) -> String { simulated ? "simulated:" + base : base }

    private(set) var amounts: [Key: Int64] = [:]
    /// Set when amounts added up past 64 bits: `write` and `remove` then refuse, with the rest of their transaction.
    private(set) var overflowed = false

    var isEmpty: Bool { amounts.isEmpty }

    mutating func add(_ amount: Int64, of measure: String, link linkId: String, at milliseconds: Int64, facts: Facts) {
        add(amount, of: measure, link: linkId, day: milliseconds / Self.day, facts: facts)
    }

    /// `add` for the day (days since 1970, UTC) it happened.
    mutating func add(_ amount: Int64, of measure: String, link linkId: String, day: Int64, facts: Facts) {
        let month = Self.monthStart(day)
        let year = Self.yearStart(day)
        func add(_ dimension: String, _ value: String) {
            bump(Key(linkId: linkId, dimension: dimension, period: "day", day: day, value: value, measure: measure))
            bump(Key(linkId: linkId, dimension: dimension, period: "month", day: month, value: value, measure: measure))
            if Self.yearlyDimensions.contains(dimension) { bump(Key(linkId: linkId, dimension: dimension, period: "year", day: year, value: value, measure: measure)) }
        }
        func bump(_ key: Key) {
            let (sum, overflow) = amounts[key, default: 0].addingReportingOverflow(amount)
            amounts[key] = sum
            if overflow { overflowed = true }
        }
        add(Self.total, "")
        add("platform", facts.platform)
        add("osVersion", Self.osMajor(platform: facts.platform, version: facts.osVersion))
        add("variant", facts.variant ?? "")
        add("qr", facts.qr ? "scan" : "tap")
        if let place = facts.place {
            add("country", place.country ?? "")
            add("referrer", place.referrer ?? "")
            add("inAppBrowser", place.inAppBrowser ?? "")
        }
    }

    /// `ios 17` for iOS 17.4: the platform and the major version, or empty when the version is not known. The
    /// backfill of `LinkStatsSchema` computes the same in SQL.
    static func osMajor(platform: String, version: String?) -> String {
        guard let major = version?.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first, !major.isEmpty else {
            return ""
        }
        return platform + " " + major
    }

    /// The civil calendar's March-based year of `day` (days since 1970), from Howard Hinnant's `civil_from_days`: its
    /// 400-year era, the year within the era, and the day within that year (0 is March 1st). No time zone and no
    /// allocation, since it runs for every statement of clicks.
    private static func marchYear(_ day: Int64) -> (era: Int64, year: Int64, day: Int64) {
        let z = day + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        return (era, yearOfEra, dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100))
    }

    /// The first day of the UTC month of `day` (days since 1970).
    static func monthStart(_ day: Int64) -> Int64 {
        let dayOfYear = marchYear(day).day
        let monthIndex = (5 * dayOfYear + 2) / 153
        let dayOfMonth = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        return day - (dayOfMonth - 1)
    }

    /// The first day of the month after the one `month` starts.
    static func nextMonth(_ month: Int64) -> Int64 { monthStart(month + 31) }

    /// The first day of the UTC year of `day` (days since 1970). January and February close the March-based year
    /// before the one they are named in, so January 1st is day 306 of the March-based year before it.
    static func yearStart(_ day: Int64) -> Int64 {
        let march = marchYear(day)
        let before = march.day < 306 ? march.year - 1 : march.year
        let (era, year) = before >= 0 ? (march.era, before) : (march.era - 1, before + 400)
        return era * 146_097 + year * 365 + year / 4 - year / 100 + 306 - 719_468
    }

    /// The first day of the year after the one `year` starts.
    static func nextYear(_ year: Int64) -> Int64 { yearStart(year + 366) }

    /// Adds the amounts to the stored ones, in the rows of the writer's lane (`SQLExecutor.lane`): PostgreSQL's writers,
    /// which commit side by side, would otherwise queue on the row locks of a busy link's counts, one commit at a time.
    /// Upserts of up to 64 rows each, in key order, so that statements that do meet take the locks in one order.
    func write(_ db: any SQLExecutor) throws {
        if overflowed { throw StoreError.outOfRange("a link's figures add up past a 64-bit integer") }
        let years = LinkStatsYears.kept(db.dialect)
        // Filtered lazily: a dictionary's own filter would hash every key again into a new dictionary.
        let entries = Array(amounts.lazy.filter { $0.value != 0 && (years || $0.key.period != "year") })
        // Sorted as positions, so that the sort moves integers rather than keys of six strings.
        let order = entries.indices.sorted { entries[$0].key < entries[$1].key }
        let lane = SQLValue.integer(Int64(db.lane))
        for range in StatementChunks.ranges(count: order.count) {
            // trap-safe: the ranges lie within 0..<order.count; order holds positions of entries
            try Self.upsert.insert(order[range].map { position in
                // trap-safe: position comes from entries.indices
                let (key, amount) = entries[position]
                return RowInsert(into: Self.upsert, values: [.text(key.linkId), .text(key.dimension), .text(key.period), .integer(key.day),
                                                             .text(key.value), .text(key.measure), .integer(amount), lane])
            }, on: db)
        }
    }

    /// Takes the amounts back out of the stored ones (what a forgotten install had added): each row's lanes are
    /// folded into one row holding what is left, and none when nothing is, so nothing shows that something was there.
    /// A row that is not stored is left alone.
    func remove(from db: any SQLExecutor) throws {
        if overflowed { throw StoreError.outOfRange("a link's figures add up past a 64-bit integer") }
        let years = LinkStatsYears.kept(db.dialect)
        for (key, amount) in amounts.sorted(by: { $0.key < $1.key }) where amount != 0 && (years || key.period != "year") {
            let row = LinkRollupQueries.lanes(of: key)
            let lanes = try LinkRollupQueries.amounts(db, lanes: row)
            guard !lanes.isEmpty else { continue }
            let left = try Checked.subtract(try Checked.sum(lanes), amount)
            try LinkRollupQueries.delete(db, lanes: row)
            if left != 0 { try LinkRollupQueries.insert(db, key, amount: left) }
        }
    }

    /// Rows added to the amounts already stored.
    private static let upsert = InsertTarget(
        table: "link_stats", columns: ["link_id", "dimension", "period", "day", "value", "measure", "amount", "lane"],
        then: "ON CONFLICT (link_id, dimension, period, day, value, measure, lane) DO UPDATE SET amount = "
            + SQLText.checkedSum("link_stats.amount", "excluded.amount"))
}
