import RunwayJSON

/// What a postback reports, from either framework, read from the fields Apple documents. Only `signed` fields are
/// covered by Apple's signature; the others (conversion values, country) are recorded but never trusted for validity.
public struct PostbackFields: Sendable, Equatable {
    public var adNetworkId: String?
    /// SKAdNetwork 1.0–3.0: the ad network's campaign (1–100).
    public var campaignId: String?
    /// SKAdNetwork 4.0 and AdAttributionKit: two to four digits, as many as the crowd-anonymity tier allows.
    public var sourceIdentifier: String?
    /// The advertised app's App Store id (`app-id`, `advertised-item-identifier`).
    public var appStoreId: String?
    /// SKAdNetwork `transaction-id` or AdAttributionKit `postback-identifier`.
    public var transactionId: String?
    /// 0, 1 or 2: the conversion window (SKAdNetwork 4.0 and AdAttributionKit; 0 before).
    public var sequenceIndex: Int = 0
    /// Nil before SKAdNetwork 3.0, where every postback is a winning one.
    public var didWin: Bool?
    public var redownload: Bool?
    /// AdAttributionKit: `download`, `redownload` or `re-engagement`.
    public var conversionType: String?
    public var fidelityType: Int?
    /// The publisher app (`source-app-id`, `publisher-item-identifier`); absent in low tiers.
    public var sourceAppId: String?
    public var sourceDomain: String?
    public var marketplace: String?
    /// Unsigned: the fine value 0–63.
    public var fineValue: Int?
    /// Unsigned: `low`, `medium` or `high`.
    public var coarseValue: String?
    public var countryCode: String?
    /// AdAttributionKit: `click` or `view`.
    public var interactionType: String?

    public init() {}
}

/// The outcome of checking one postback body.
public struct PostbackVerdict: Sendable, Equatable {
    public enum Framework: String, Sendable { case skadnetwork, adattributionkit }

    public let framework: Framework
    /// True when Apple's signature verified over the fields it covers.
    public let valid: Bool
    /// A stable code when not valid: `unreadable`, `unsupported_version`, `missing_field`, `unsigned`,
    /// `bad_signature_encoding`, `signature_mismatch`, `unsupported_alg`, `unknown_kid`, `development_key`, `wrong_type` and
    /// `out_of_range` (a field of another JSON type than Apple's, or outside the values its format allows: `PostbackBounds`).
    public let reason: String?
    /// What went wrong, for people.
    public let detail: String?
    /// SKAdNetwork version (`1.0` when the body has none).
    public let version: String?
    /// AdAttributionKit key id.
    public let kid: String?
    /// `production` or `development` (AdAttributionKit development keys); SKAdNetwork is always production.
    public let environment: String
    /// SKAdNetwork: the exact string that was verified. AdAttributionKit: the JWS header JSON.
    public let signedMessage: String?
    public let fields: PostbackFields
    /// On a valid verdict, the SHA-256 (hex) of exactly what Apple's signature covers: SKAdNetwork's signed string, or
    /// AdAttributionKit's JWS `header.payload`. Two bodies with the same digest are the same postback, whatever else
    /// they carry unsigned.
    public var signedDigest: String? = nil

    /// The same postback refused for a reason of the receiver's (say, a development key an app does not accept).
    public func refused(_ reason: String, _ detail: String) -> PostbackVerdict {
        PostbackVerdict(framework: framework, valid: false, reason: reason, detail: detail, version: version, kid: kid,
                        environment: environment, signedMessage: signedMessage, fields: fields)
    }

    static func failure(_ framework: Framework, _ reason: String, _ detail: String, version: String? = nil, kid: String? = nil,
                        environment: String = "production", signedMessage: String? = nil, fields: PostbackFields = PostbackFields()) -> PostbackVerdict {
        PostbackVerdict(framework: framework, valid: false, reason: reason, detail: detail, version: version, kid: kid,
                        environment: environment, signedMessage: signedMessage, fields: fields)
    }
}

/// Reads JSON members as the text Apple signs: strings as they are, numbers as written, booleans as true/false.
struct PostbackObject {
    let members: [String: JSONValue]

    init?(_ value: JSONValue) {
        guard let object = value.objectValue else { return nil }
        var members: [String: JSONValue] = [:]
        for (key, value) in object where members[key] == nil { members[key] = value }
        self.members = members
    }

    func text(_ key: String) -> String? {
        switch members[key] {
        case .string(let s)?: return s
        case .number(let n)?: return n
        case .bool(let b)?: return b ? "true" : "false"
        default: return nil
        }
    }

    func bool(_ key: String) -> Bool? {
        switch members[key] {
        case .bool(let b)?: return b
        case .string("true")?, .number("1")?: return true
        case .string("false")?, .number("0")?: return false
        default: return nil
        }
    }

    func int(_ key: String) -> Int? { text(key).flatMap { Int($0) } }

    func has(_ key: String) -> Bool { members[key] != nil && members[key] != .null }
}
