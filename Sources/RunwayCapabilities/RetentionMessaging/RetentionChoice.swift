import LinkRunwayAPI
import RunwayJSON

/// Where a subscription came from, as retention rules see it.
struct SubscriptionAcquisition: Sendable, Equatable {
    /// One of `RetentionSource.all`.
    var source: String
    var affiliateId: String?
    var campaign: String?
    var linkId: String?

    static let unknown = SubscriptionAcquisition(source: "unknown")
}

/// The answer chosen for one realtime request, and which rule chose it.
struct RetentionDecision: Sendable, Equatable {
    /// The rule's name or position (`rule 2`), `fallback`, or `none`.
    var rule: String
    var answer: RetentionAnswer?

    static let none = RetentionDecision(rule: "none", answer: nil)
}

/// Choosing a retention message: the first rule whose conditions hold and whose message Apple may show, else the
/// fallback. A message Apple has listed as anything but `APPROVED` is passed over (Apple would ignore the answer and
/// show its default); one Apple has not listed yet is trusted.
enum RetentionChoice {
    static func decide(_ set: RetentionRuleSet, states: [String: String], acquisition: SubscriptionAcquisition,
                       productId: String, locale: String) -> RetentionDecision {
        for (index, rule) in set.rules.enumerated()
        where holds(rule.when, acquisition: acquisition, productId: productId, locale: locale) && usable(rule.answer, states: states) {
            return RetentionDecision(rule: rule.name ?? "rule \(index + 1)", answer: rule.answer)
        }
        return fallback(set, states: states)
    }

    /// The fallback, when Apple may show it.
    static func fallback(_ set: RetentionRuleSet, states: [String: String]) -> RetentionDecision {
        guard let answer = set.fallback, usable(answer, states: states) else { return .none }
        return RetentionDecision(rule: "fallback", answer: answer)
    }

    static func holds(_ conditions: RetentionConditions?, acquisition: SubscriptionAcquisition, productId: String, locale: String) -> Bool {
        guard let c = conditions else { return true }
        func among(_ wanted: [String]?, _ value: String?) -> Bool {
            guard let wanted else { return true }
            guard let value else { return false }
            return wanted.contains(value)
        }
        return among(c.sources, acquisition.source) && among(c.affiliateIds, acquisition.affiliateId) && among(c.campaigns, acquisition.campaign)
            && among(c.linkIds, acquisition.linkId) && among(c.productIds, productId)
            && (c.locales.map { $0.contains { localeMatches($0, locale) } } ?? true)
    }

    /// `en` holds for `en-US` and `en_GB`; `en-US` for itself alone; case and the separator do not count.
    static func localeMatches(_ wanted: String, _ locale: String) -> Bool {
        func parts(_ text: String) -> [Substring] { text.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }) }
        let want = parts(wanted), have = parts(locale)
        return !want.isEmpty && want.count <= have.count && zip(want, have).allSatisfy { $0 == $1 }
    }

    static func usable(_ answer: RetentionAnswer, states: [String: String]) -> Bool {
        guard let state = states[answer.messageId.lowercased()] else { return true }
        return state == "APPROVED"
    }

    /// Apple's `RealtimeResponseBody` for an answer: `message`, or `alternateProduct` for a switch-plan offer
    /// (https://developer.apple.com/documentation/retentionmessaging/realtimeresponsebody).
    static func body(_ answer: RetentionAnswer) -> JSONValue {
        guard let product = answer.alternateProductId else {
            return ["message": ["messageIdentifier": .string(answer.messageId)]]
        }
        var members: [(String, JSONValue)] = [("messageIdentifier", .string(answer.messageId)), ("productId", .string(product))]
        if let plan = answer.billingPlanType { members.append(("billingPlanType", .string(plan))) }
        return ["alternateProduct": .object(members)]
    }
}
