import RunwayJSON

/// A link's figures over a range of UTC days (`GET /v1/links/{id}/stats`): the total, each day, and breakdowns by
/// platform, OS version, country, referrer, in-app browser, variant and QR source, read from the daily rollups the writer keeps.
public struct LinkStats: Codable, Sendable, Equatable {
    public var linkId: String
    /// The first and last UTC day of the range, both included (`2026-11-01`).
    public var from: String
    public var to: String
    public var includeSimulated: Bool
    public var total: LinkStatsRow
    /// The days with anything counted, oldest first (when `by` asks for `day`).
    public var days: [LinkStatsRow]?
    public var breakdowns: [LinkStatsBreakdown]

    public init(linkId: String, from: String, to: String, includeSimulated: Bool, total: LinkStatsRow, days: [LinkStatsRow]?,
                breakdowns: [LinkStatsBreakdown]) {
        self.linkId = linkId
        self.from = from
        self.to = to
        self.includeSimulated = includeSimulated
        self.total = total
        self.days = days
        self.breakdowns = breakdowns
    }
}

extension LinkStats: DescribedWireType {
    /// What a link's figures are broken down by.
    public static let dimensions = ["platform", "osVersion", "country", "referrer", "inAppBrowser", "variant", "qr"]
    /// What `by` may ask for: the days, and the dimensions.
    public static let groupings = ["day"] + dimensions
    /// The dimensions whose rows count clicks and opens only: an install keeps no country, referrer or in-app browser.
    public static let clickOnlyDimensions: Set<String> = ["country", "referrer", "inAppBrowser"]
    /// The longest range one request covers, in days.
    public static let maxDays = 366

    public static let summary: String? = "A link's clicks, opens, installs, events and net revenue over a range of UTC days."
    public static let notes: [String: FieldNote] = [
        "linkId": .id("The link."),
        "from": FieldNote("The first UTC day, included.", pattern: dayPattern),
        "to": FieldNote("The last UTC day, included.", pattern: dayPattern),
        "includeSimulated": FieldNote("Whether simulated installs and their events are counted."),
        "total": FieldNote("The whole range, with its previews and bots."),
        "days": .list(of: nil, "The days with anything counted, oldest first; present when `by` asks for day."),
        "breakdowns": .list(of: nil, "One per dimension `by` asks for, in the order asked."),
    ]

    public static let dayPattern = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
    /// The key of a row for visits that had no value of the dimension (no referrer, no country database…).
    public static let noValue = "(none)"
}

/// One row of a link's figures: the total, a day, or a value of a dimension.
public struct LinkStatsRow: Codable, Sendable, Equatable {
    /// `total`, the day (`2026-11-01`), or the dimension's value (`(none)` when the visit had none).
    public var key: String
    public var clicks: Int
    public var opens: Int
    /// Left out in the country and referrer breakdowns: an install keeps no country and no referrer.
    public var installs: Int?
    public var events: [String: Int]?
    /// Net revenue (purchases and subscriptions less refunds) in minor units, by currency.
    public var revenue: [String: Int64]?
    /// On the total and the days only: previews and bots are counted per link and day, not by dimension.
    public var previews: Int?
    public var bots: Int?

    public init(key: String, clicks: Int = 0, opens: Int = 0, installs: Int? = nil, events: [String: Int]? = nil, revenue: [String: Int64]? = nil,
                previews: Int? = nil, bots: Int? = nil) {
        self.key = key
        self.clicks = clicks
        self.opens = opens
        self.installs = installs
        self.events = events
        self.revenue = revenue
        self.previews = previews
        self.bots = bots
    }
}

/// A year of days and hundreds of values in one answer: each row writes itself.
extension LinkStatsRow: CompactJSONWritable {
    public func write(into writer: inout CompactJSONObjectWriter) {
        writer.member("bots", bots)
        writer.member("clicks", clicks)
        writer.member("events", events)
        writer.member("installs", installs)
        writer.member("key", key)
        writer.member("opens", opens)
        writer.member("previews", previews)
        writer.member("revenue", revenue)
    }
}

extension LinkStatsRow {
    /// Nothing counted (what there was was left out, as simulated installs are by default).
    public var isEmpty: Bool {
        clicks == 0 && opens == 0 && (installs ?? 0) == 0 && (events ?? [:]).values.allSatisfy { $0 == 0 }
            && (revenue ?? [:]).values.allSatisfy { $0 == 0 } && (previews ?? 0) == 0 && (bots ?? 0) == 0
    }
}

extension LinkStatsRow: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "key": FieldNote("total, the UTC day, or the dimension's value ((none) when there was none)."),
        "clicks": .between(0, nil, "Links followed by people."),
        "opens": .between(0, nil, "The app resolved the link (POST /v1/resolve)."),
        "installs": .between(0, nil, "Installs the link brought (returning devices left out); not in the country and referrer breakdowns."),
        "events": FieldNote("Events of those installs, by type; not in the country and referrer breakdowns."),
        "revenue": FieldNote("Their net revenue in minor units, by currency; not in the country and referrer breakdowns."),
        "previews": .between(0, nil, "Visits by link previews, never counted as clicks; on the total and the days only."),
        "bots": .between(0, nil, "Visits by bots, never counted as clicks; on the total and the days only."),
    ]
}

/// A link's figures by the values of one dimension, most clicks first.
public struct LinkStatsBreakdown: Codable, Sendable, Equatable {
    public var dimension: String
    public var rows: [LinkStatsRow]

    public init(dimension: String, rows: [LinkStatsRow]) {
        self.dimension = dimension
        self.rows = rows
    }
}

extension LinkStatsBreakdown: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "dimension": .oneOf(LinkStats.dimensions, "What the rows are values of: platform, OS version (`ios 17`), country, referrer host, variant, or QR scan against tap."),
        "rows": .list(of: nil, "A row per value, most clicks first."),
    ]
}
