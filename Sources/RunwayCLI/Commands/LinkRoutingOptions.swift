import Foundation
import LinkRunwayAPI
import RunwayJSON

/// The routing options of `link create` and `link update`: rules and variants from JSON files, the start, the click
/// limit, fallbacks and UTM values.
struct LinkRoutingOptions {
    var rules: [LinkRule]?
    var variants: [LinkVariant]?
    var startsAt: String?
    var clickLimit: Int?
    /// The fallbacks and UTM values given; what is nil was not given.
    var fallbacks = LinkFallbacks()
    var utm = LinkUTM()

    init(_ a: ParsedArguments) throws {
        rules = try a.value("--rules").map { try Self.json([LinkRule].self, file: $0, option: "--rules") }
        variants = try a.value("--variants").map { try Self.json([LinkVariant].self, file: $0, option: "--variants") }
        startsAt = a.value("--starts").map { CLITime.day($0).map { Self.iso($0) } ?? $0 }
        if let text = a.value("--click-limit") {
            guard let limit = Int(text), limit >= 0 else { throw UsageError("--click-limit must be a whole number, 0 for no limit") }
            clickLimit = limit
        }
        fallbacks = LinkFallbacks(beforeStart: a.value("--fallback-before-start"), expired: a.value("--fallback-expired"),
                                  overLimit: a.value("--fallback-over-limit"))
        utm = LinkUTM(source: a.value("--utm-source"), medium: a.value("--utm-medium"), campaign: a.value("--utm-campaign"),
                      term: a.value("--utm-term"), content: a.value("--utm-content"))
    }

    /// The fallbacks to send: those given over the link's `current` ones; nil when none was given.
    func fallbacks(over current: LinkFallbacks?) -> LinkFallbacks? {
        guard fallbacks != LinkFallbacks() else { return nil }
        let base = current ?? LinkFallbacks()
        return LinkFallbacks(beforeStart: fallbacks.beforeStart ?? base.beforeStart, expired: fallbacks.expired ?? base.expired,
                             overLimit: fallbacks.overLimit ?? base.overLimit)
    }

    /// The UTM values to send: those given over the link's `current` ones; nil when none was given.
    func utm(over current: LinkUTM?) -> LinkUTM? {
        guard utm != LinkUTM() else { return nil }
        let base = current ?? LinkUTM()
        return LinkUTM(source: utm.source ?? base.source, medium: utm.medium ?? base.medium, campaign: utm.campaign ?? base.campaign,
                       term: utm.term ?? base.term, content: utm.content ?? base.content)
    }

    /// A JSON file's contents as `type`, or a usage error that says what is wrong with it.
    static func json<T: Decodable>(_ type: T.Type, file: String, option: String) throws -> T {
        guard let data = FileManager.default.contents(atPath: file) else { throw UsageError("\(option): cannot read \(file)") }
        // Strict, as the server is: a misspelt condition is an error here rather than dropped before it gets there.
        do {
            return try StrictJSONDecoder().decode(type, from: Array(data))
        } catch {
            throw UsageError("\(option): \(file) is not a JSON list of the right shape: \(error)")
        }
    }

    static func iso(_ date: Date) -> String {
        var formatter = Date.ISO8601FormatStyle()
        formatter.timeZone = .gmt
        return date.formatted(formatter)
    }
}
