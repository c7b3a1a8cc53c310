/// What a field's Swift type cannot say about it: its meaning and the limits the server checks. Only the keywords
/// that fit the field's shape may be set (a test checks): text limits on strings, bounds on numbers, item limits and
/// an item note on lists.
public struct FieldNote: Sendable, Equatable {
    public var description: String?
    /// A regular expression the whole string matches.
    public var pattern: String?
    public var minLength: Int?
    public var maxLength: Int?
    /// `date-time`, `uuid`.
    public var format: String?
    /// The only values a string may take.
    public var values: [String]?
    public var minimum: Int64?
    public var maximum: Int64?
    public var minItems: Int?
    public var maxItems: Int?
    /// For a list: the note of its items (kept in an array because a struct cannot hold itself).
    private var itemNotes: [FieldNote]

    public var items: FieldNote? { itemNotes.first }

    public init(_ description: String? = nil, pattern: String? = nil, minLength: Int? = nil, maxLength: Int? = nil,
                format: String? = nil, values: [String]? = nil, minimum: Int64? = nil, maximum: Int64? = nil,
                minItems: Int? = nil, maxItems: Int? = nil, items: FieldNote? = nil) {
        self.description = description
        self.pattern = pattern
        self.minLength = minLength
        self.maxLength = maxLength
        self.format = format
        self.values = values
        self.minimum = minimum
        self.maximum = maximum
        self.minItems = minItems
        self.maxItems = maxItems
        self.itemNotes = items.map { [$0] } ?? []
    }

    /// A string that is one of `values`.
    public static func oneOf(_ values: [String], _ description: String) -> FieldNote {
        FieldNote(description, values: values)
    }

    /// A number between `minimum` and `maximum`.
    public static func between(_ minimum: Int64?, _ maximum: Int64?, _ description: String? = nil) -> FieldNote {
        FieldNote(description, minimum: minimum, maximum: maximum)
    }

    /// A list whose items are described by `items`.
    public static func list(of items: FieldNote?, _ description: String, minItems: Int? = nil, maxItems: Int? = nil) -> FieldNote {
        FieldNote(description, minItems: minItems, maxItems: maxItems, items: items)
    }

    /// A time the server wrote: UTC, ISO 8601 with milliseconds.
    public static let timestamp = FieldNote("UTC time, ISO 8601 with milliseconds.", format: "date-time")

    /// An id the server made (`app_…`).
    public static func id(_ description: String) -> FieldNote { FieldNote(description, pattern: WirePattern.id) }

    /// A request's `workspaceId`, which only an admin key must give.
    static let adminWorkspace = FieldNote("Required with an admin key.")
}

/// Bounds many wire types share.
public enum WireLimits {
    /// The largest amount of money the API takes, in minor units (10^12: ten billion dollars, far beyond any
    /// purchase). Sums of amounts are checked as well, so no total passes what can be counted.
    public static let money: Int64 = 1_000_000_000_000
    /// The latest time the API takes, in milliseconds since 1970: the end of the year 9999.
    public static let latestTime: Int64 = 253_402_300_799_999
}

extension FieldNote {
    /// An amount of money in minor units, from `minimum` to `WireLimits.money`.
    public static func money(from minimum: Int64, _ description: String) -> FieldNote {
        .between(minimum, WireLimits.money, description)
    }
}

/// Patterns several wire types share.
public enum WirePattern {
    /// Ids the server makes: a lower-case prefix, `_`, and base62 characters.
    public static let id = "^[a-z]+_[0-9A-Za-z]{8,64}$"
    /// The SDK's install id.
    public static let installId = "^[0-9A-Za-z-]{1,64}$"
    public static let teamId = "^[A-Z0-9]{10}$"
    public static let bundleId = "^[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+$"
    public static let appStoreId = "^[1-9][0-9]{0,11}$"
    public static let hostname = "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$"
    public static let https = "^https://"
    /// A link's own address: https, or plain http on the local development domain (`http://localhost:8080/summer`).
    public static let link = "^(https://|http://localhost[:/])"
    /// ISO 4217 currency codes.
    public static let currency = "^[A-Z]{3}$"
    public static let base64 = "^[A-Za-z0-9+/=_-]+$"
}
