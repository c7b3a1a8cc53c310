// Retention messages chosen by where the subscriber came from: Apple's Retention Messaging API asks the app's server,
// when a subscriber views a subscription they may cancel, which message to show; LinkRunway answers from the rules
// an app sets here, by the link, campaign, affiliate or source that brought the subscriber.

/// Which subscribers a retention rule is for. Every condition given must hold; one left out holds for everyone.
public struct RetentionConditions: Codable, Sendable, Equatable {
    /// Where the subscription came from: `affiliate`, `apple_ads`, `link`, `ad` (a view-through), `organic` or
    /// `unknown` (no install is known for it).
    public var sources: [String]?
    public var affiliateIds: [String]?
    /// The install's campaign.
    public var campaigns: [String]?
    public var linkIds: [String]?
    /// The subscription's product ids, as in App Store Connect.
    public var productIds: [String]?
    /// Apple's locale codes (`en-US`); a language alone (`en`) holds for each of its regions.
    public var locales: [String]?

    public init(sources: [String]? = nil, affiliateIds: [String]? = nil, campaigns: [String]? = nil, linkIds: [String]? = nil,
                productIds: [String]? = nil, locales: [String]? = nil) {
        self.sources = sources
        self.affiliateIds = affiliateIds
        self.campaigns = campaigns
        self.linkIds = linkIds
        self.productIds = productIds
        self.locales = locales
    }
}

extension RetentionConditions: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "sources": .list(of: .oneOf(RetentionSource.all, "A source."), "Sources the subscription may come from.", maxItems: 6),
        "affiliateIds": .list(of: .id("An affiliate."), "Affiliates whose binds brought the subscription.", maxItems: 100),
        "campaigns": .list(of: FieldNote("A campaign.", maxLength: 200), "The install's campaign is one of these.", maxItems: 100),
        "linkIds": .list(of: .id("A link."), "The install came from one of these links.", maxItems: 100),
        "productIds": .list(of: FieldNote("A product id.", maxLength: 200), "The subscription's product is one of these.", maxItems: 100),
        "locales": .list(of: FieldNote("A locale (en-US) or a language (en).", pattern: "^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$", maxLength: 35),
                         "The subscriber's locale is one of these.", maxItems: 100),
    ]
}

/// The sources a retention rule can name.
public enum RetentionSource {
    public static let all = ["affiliate", "apple_ads", "link", "ad", "organic", "unknown"]
}

/// What LinkRunway answers Apple with: a message of the app's, and, for a switch-plan message (one without an image),
/// the product the subscriber may switch to.
public struct RetentionAnswer: Codable, Sendable, Equatable {
    /// The message's identifier at Apple (a UUID).
    public var messageId: String
    /// A product of the same subscription group: Apple shows the message as a switch-plan offer.
    public var alternateProductId: String?
    /// With `alternateProductId`: `MONTHLY` or `BILLED_UPFRONT` (Retention Messaging API 1.5).
    public var billingPlanType: String?

    public init(messageId: String, alternateProductId: String? = nil, billingPlanType: String? = nil) {
        self.messageId = messageId
        self.alternateProductId = alternateProductId
        self.billingPlanType = billingPlanType
    }
}

extension RetentionAnswer: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "messageId": FieldNote("The message's identifier at Apple (a UUID).", pattern: WirePattern.uuid),
        "alternateProductId": FieldNote("A product of the same subscription group to offer a switch to.", maxLength: 200),
        "billingPlanType": .oneOf(["MONTHLY", "BILLED_UPFRONT"], "With alternateProductId: the plan's billing."),
    ]
}

/// One rule: the first whose conditions hold answers.
public struct RetentionRule: Codable, Sendable, Equatable {
    /// What the rule is for, shown in reports (default: its position).
    public var name: String?
    public var when: RetentionConditions?
    public var answer: RetentionAnswer

    public init(name: String? = nil, when: RetentionConditions? = nil, answer: RetentionAnswer) {
        self.name = name
        self.when = when
        self.answer = answer
    }
}

extension RetentionRule: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "name": FieldNote("What the rule is for; reports use it.", minLength: 1, maxLength: 100),
        "when": FieldNote("Its conditions; none: every subscriber."),
        "answer": FieldNote("The message it answers with."),
    ]
}

/// `GET` and `PUT /v1/apps/{appId}/retention/rules`: an app's rules, in order, and its default.
public struct RetentionRuleSet: Codable, Sendable, Equatable {
    public var rules: [RetentionRule]
    /// Answered when no rule holds, or when the answer cannot be given in time; none: Apple shows the default message
    /// set for the product and locale in App Store Connect or through the API.
    public var fallback: RetentionAnswer?
    /// When they were last set (answers only).
    public var updatedAt: String?

    public init(rules: [RetentionRule], fallback: RetentionAnswer? = nil, updatedAt: String? = nil) {
        self.rules = rules
        self.fallback = fallback
        self.updatedAt = updatedAt
    }
}

extension RetentionRuleSet: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "rules": .list(of: nil, "Rules in order: the first that holds answers.", maxItems: 100),
        "fallback": FieldNote("The answer when no rule holds or time runs short; none lets Apple show its default message."),
        "updatedAt": .timestamp,
    ]
}

/// `POST /v1/apps/{appId}/retention/messages`: a text message, with an image Apple already has if it shows one.
public struct CreateRetentionMessageRequest: Codable, Sendable {
    /// `production` (default) or `sandbox`: Apple keeps each environment's messages apart.
    public var environment: String?
    /// Its identifier (a UUID); a new one when left out.
    public var messageId: String?
    public var header: String
    public var body: String
    /// An image uploaded to Apple (its identifier) and its alternative text.
    public var imageId: String?
    public var altText: String?

    public init(environment: String? = nil, messageId: String? = nil, header: String, body: String, imageId: String? = nil, altText: String? = nil) {
        self.environment = environment
        self.messageId = messageId
        self.header = header
        self.body = body
        self.imageId = imageId
        self.altText = altText
    }
}

extension CreateRetentionMessageRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "environment": .oneOf(["production", "sandbox"], "Apple's environment (default production)."),
        "messageId": FieldNote("Its identifier, a UUID (default: a new one).", pattern: WirePattern.uuid),
        "header": FieldNote("The header Apple shows, at most 66 characters.", minLength: 1, maxLength: 66),
        "body": FieldNote("The text Apple shows, at most 144 characters.", minLength: 1, maxLength: 144),
        "imageId": FieldNote("An image uploaded to Apple, by its identifier (a UUID).", pattern: WirePattern.uuid),
        "altText": FieldNote("The image's alternative text, at most 150 characters; needed with imageId.", minLength: 1, maxLength: 150),
    ]
}

/// A message of the app's at Apple, with the text LinkRunway uploaded when it was uploaded here.
public struct RetentionMessage: Codable, Sendable, Equatable {
    public var messageId: String
    public var environment: String
    /// Apple's review state as last listed: `PENDING`, `APPROVED`, `REJECTED`, or another value Apple adds (kept as
    /// sent); `unknown` until Apple has listed it.
    public var state: String
    public var header: String?
    public var body: String?
    public var imageId: String?
    public var altText: String?
    /// Whether Apple's latest list had it (a message made in App Store Connect has no text here).
    public var listedByApple: Bool
    public var createdAt: String?

    public init(messageId: String, environment: String, state: String, header: String? = nil, body: String? = nil, imageId: String? = nil,
                altText: String? = nil, listedByApple: Bool, createdAt: String? = nil) {
        self.messageId = messageId
        self.environment = environment
        self.state = state
        self.header = header
        self.body = body
        self.imageId = imageId
        self.altText = altText
        self.listedByApple = listedByApple
        self.createdAt = createdAt
    }
}

extension RetentionMessage: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "messageId": FieldNote("Its identifier at Apple.", pattern: WirePattern.uuid),
        "environment": .oneOf(["production", "sandbox"], "Apple's environment."),
        "state": FieldNote("Apple's review state as last listed (PENDING, APPROVED, REJECTED or a newer value), or unknown."),
        "listedByApple": FieldNote("Whether Apple's latest list had it."),
        "createdAt": .timestamp,
    ]
}

/// `GET /v1/apps/{appId}/retention/messages`: Apple's list, joined with what was uploaded through LinkRunway.
public struct RetentionMessageList: Codable, Sendable, Equatable {
    public var environment: String
    public var items: [RetentionMessage]

    public init(environment: String, items: [RetentionMessage]) {
        self.environment = environment
        self.items = items
    }
}

extension RetentionMessageList: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "environment": .oneOf(["production", "sandbox"], "Apple's environment."),
        "items": .list(of: nil, "Messages, Apple's first."),
    ]
}

/// `PUT /v1/apps/{appId}/retention/default-messages`: the message Apple shows for a product and locale when the
/// realtime answer fails or is late (Configure Default Message).
public struct RetentionDefaultMessageRequest: Codable, Sendable {
    public var environment: String?
    public var productId: String
    public var locale: String
    /// The message; none removes the default (Delete Default Message).
    public var messageId: String?

    public init(environment: String? = nil, productId: String, locale: String, messageId: String?) {
        self.environment = environment
        self.productId = productId
        self.locale = locale
        self.messageId = messageId
    }
}

extension RetentionDefaultMessageRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "environment": .oneOf(["production", "sandbox"], "Apple's environment (default production)."),
        "productId": FieldNote("The subscription's product id.", minLength: 1, maxLength: 200),
        "locale": FieldNote("Apple's locale code, as en-US.", pattern: "^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$", maxLength: 35),
        "messageId": FieldNote("The message to show; none removes the default.", pattern: WirePattern.uuid),
    ]
}

/// `PUT /v1/apps/{appId}/retention/realtime-url`: tells Apple where to ask (Configure Realtime URL).
public struct RetentionRealtimeURLRequest: Codable, Sendable {
    public var environment: String?
    /// The address Apple calls: `https://<your server>` + the surface's `retentionPath`.
    public var url: String

    public init(environment: String? = nil, url: String) {
        self.environment = environment
        self.url = url
    }
}

extension RetentionRealtimeURLRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "environment": .oneOf(["production", "sandbox"], "Apple's environment (default production)."),
        "url": FieldNote("https, at most 256 characters, ending in the surface's retentionPath.", pattern: WirePattern.https, maxLength: 256),
    ]
}

/// What Apple now has as the realtime URL of an environment.
public struct RetentionRealtimeURL: Codable, Sendable, Equatable {
    public var environment: String
    public var url: String?

    public init(environment: String, url: String?) {
        self.environment = environment
        self.url = url
    }
}

extension RetentionRealtimeURL: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "environment": .oneOf(["production", "sandbox"], "Apple's environment."),
        "url": FieldNote("The realtime URL Apple calls; none when it has none."),
    ]
}

/// `POST /v1/apps/{appId}/retention/performance-test`: asks Apple's sandbox to test the realtime URL with a
/// subscription's original transaction id (Initiate Performance Test).
public struct RetentionPerformanceTestRequest: Codable, Sendable {
    /// An active sandbox auto-renewable subscription's original transaction id.
    public var originalTransactionId: String

    public init(originalTransactionId: String) { self.originalTransactionId = originalTransactionId }
}

extension RetentionPerformanceTestRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "originalTransactionId": FieldNote("A sandbox subscription's original transaction id.", pattern: "^[0-9]{1,32}$"),
    ]
}

/// A performance test: how Apple runs it, and (once asked for) what it found.
public struct RetentionPerformanceTest: Codable, Sendable, Equatable {
    public var requestId: String
    /// `PENDING`, `PASS`, `FAIL` (or a value Apple adds), once results were asked for.
    public var result: String?
    public var maxConcurrentRequests: Int64?
    public var totalRequests: Int64?
    public var totalDurationMilliseconds: Int64?
    public var responseTimeThresholdMilliseconds: Int64?
    public var successRateThreshold: Int64?
    public var successRate: Int64?
    public var pending: Int64?
    public var p50Milliseconds: Int64?
    public var p90Milliseconds: Int64?
    public var p95Milliseconds: Int64?
    public var p99Milliseconds: Int64?
    /// Failed sends by Apple's reason (`TIMED_OUT`, `INVALID_RESPONSE`, …).
    public var failures: [String: Int64]?

    public init(requestId: String, result: String? = nil) {
        self.requestId = requestId
        self.result = result
    }
}

extension RetentionPerformanceTest: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "requestId": FieldNote("Apple's id of the test."),
        "result": FieldNote("PENDING, PASS or FAIL (or a newer value), as Apple reports it."),
        "successRate": FieldNote("Per cent of requests answered well in time."),
        "failures": FieldNote("Failed sends by Apple's reason."),
    ]
}

/// `GET /v1/apps/{appId}/retention/report`: what was shown, how often, and what the subscribers did after.
public struct RetentionMessageReport: Codable, Sendable, Equatable {
    public var from: String
    public var to: String
    public var rows: [RetentionMessageReportRow]

    public init(from: String, to: String, rows: [RetentionMessageReportRow]) {
        self.from = from
        self.to = to
        self.rows = rows
    }
}

extension RetentionMessageReport: DescribedWireType {
    public static let notes: [String: FieldNote] = ["from": .timestamp, "to": .timestamp, "rows": .list(of: nil, "One row per rule and message.")]
}

/// One rule's answers: how many, and what followed from later App Store notifications.
public struct RetentionMessageReportRow: Codable, Sendable, Equatable {
    /// The rule's name or position (`rule 2`), `fallback`, or `none` (Apple showed its own default).
    public var rule: String
    public var messageId: String?
    public var environment: String
    /// Requests answered with it.
    public var shown: Int64
    /// Of those, answered with the fallback because the rule could not be decided in time.
    public var late: Int64
    /// Subscribers who turned auto-renew off, or whose subscription expired, after it.
    public var cancelled: Int64
    /// Subscribers whose subscription renewed after it (and who did not cancel).
    public var stayed: Int64
    /// Neither yet.
    public var undecided: Int64

    public init(rule: String, messageId: String?, environment: String, shown: Int64, late: Int64, cancelled: Int64, stayed: Int64, undecided: Int64) {
        self.rule = rule
        self.messageId = messageId
        self.environment = environment
        self.shown = shown
        self.late = late
        self.cancelled = cancelled
        self.stayed = stayed
        self.undecided = undecided
    }
}

extension RetentionMessageReportRow: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "rule": FieldNote("The rule's name or position, fallback, or none."),
        "environment": .oneOf(["production", "sandbox"], "Apple's environment."),
        "late": FieldNote("Answered with the fallback because the rule could not be decided in time."),
        "cancelled": FieldNote("Turned auto-renew off, or expired, after the message."),
        "stayed": FieldNote("Renewed after the message, without cancelling."),
    ]
}
