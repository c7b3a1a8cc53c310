import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayKit

/// Checks of a link's rules, variants, fallbacks, click limit and UTM parameters; each failure names its field to the
/// index (`rules[2].when.countries[0]`).
extension LinkValidate {
    /// The rules as stored: countries upper case, everything else as sent.
    static func rules(_ value: [LinkRule]?) throws -> [LinkRule]? {
        guard let value else { return nil }
        guard value.count <= LinkRoutingLimits.rules else {
            throw RequestError.invalidField("rules", "a link has at most \(LinkRoutingLimits.rules) rules")
        }
        return try value.enumerated().map { index, rule in
            let field = "rules[\(index)]"
            var rule = rule
            if let name = rule.name { rule.name = try Validate.name(name, field: field + ".name") }
            rule.when = try condition(rule.when, field: field + ".when")
            _ = try httpsURL(rule.url, field: field + ".url")
            if let variants = rule.variants {
                guard !variants.isEmpty else { throw RequestError.invalidField(field + ".variants", "must list at least one variant, or be left out") }
                _ = try self.variants(variants, field: field + ".variants")
            }
            guard rule.url != nil || rule.variants != nil else {
                throw RequestError.invalidField(field, "must have a url, variants or both: where its clicks go")
            }
            return rule
        }
    }

    static func condition(_ value: LinkCondition, field: String) throws -> LinkCondition {
        var condition = value
        try choices(value.platforms, from: LinkCondition.platformValues, field: field + ".platforms")
        try choices(value.devices, from: LinkCondition.deviceValues, field: field + ".devices")
        try choices(value.inAppBrowsers, from: LinkCondition.inAppBrowserValues, field: field + ".inAppBrowsers")
        if let range = value.osVersion {
            let minimum = try version(range.min, field: field + ".osVersion.min")
            let maximum = try version(range.max, field: field + ".osVersion.max")
            guard minimum != nil || maximum != nil else { throw RequestError.invalidField(field + ".osVersion", "must give min, max or both") }
            if let minimum, let maximum, !minimum.isAtMost(maximum) {
                throw RequestError.invalidField(field + ".osVersion", "min must not be above max")
            }
        }
        if let countries = value.countries {
            try list(countries, limit: 250, field: field + ".countries")
            condition.countries = try countries.enumerated().map { index, country in
                guard country.utf8.count == 2, country.allSatisfy({ $0.isASCII && $0.isLetter }) else {
                    throw RequestError.invalidField(field + ".countries[\(index)]", "must be an ISO 3166-1 alpha-2 code such as FR")
                }
                return country.uppercased()
            }
        }
        if let languages = value.languages {
            try list(languages, limit: 50, field: field + ".languages")
            for (index, language) in languages.enumerated() where language.wholeMatch(of: /[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*/) == nil || language.utf8.count > 35 {
                throw RequestError.invalidField(field + ".languages[\(index)]", "must be a language tag such as en or pt-BR")
            }
        }
        let from = try Validate.timestamp(value.from, field: field + ".from")
        let until = try Validate.timestamp(value.until, field: field + ".until")
        if let from, let until, until <= from { throw RequestError.invalidField(field + ".until", "must come after from") }
        return condition
    }

    /// A non-empty list of distinct values from `values`.
    static func choices(_ value: [String]?, from values: [String], field: String) throws {
        guard let value else { return }
        try list(value, limit: values.count, field: field)
        for (index, item) in value.enumerated() where !values.contains(item) {
            throw RequestError.invalidField(field + "[\(index)]", "must be one of \(values.joined(separator: ", "))")
        }
    }

    static func list(_ value: [String], limit: Int, field: String) throws {
        guard !value.isEmpty, value.count <= limit else { throw RequestError.invalidField(field, "must list 1 to \(limit) values, or be left out") }
        guard Set(value.map { $0.lowercased() }).count == value.count else { throw RequestError.invalidField(field, "must not repeat a value") }
    }

    static func version(_ value: String?, field: String) throws -> OSVersion? {
        guard let value else { return nil }
        guard value.wholeMatch(of: /[0-9]{1,3}(\.[0-9]{1,3})?/) != nil, let version = OSVersion(value) else {
            throw RequestError.invalidField(field, "must be a version such as 17 or 17.4")
        }
        return version
    }

    /// Variants: 1 to 10, names unique, weights 0 to 10,000 with one above 0, https destinations, checked previews.
    static func variants(_ value: [LinkVariant], field: String = "variants") throws -> [LinkVariant] {
        guard value.count <= LinkVariant.limit else { throw RequestError.invalidField(field, "must list at most \(LinkVariant.limit) variants") }
        var names = Set<String>()
        for (index, variant) in value.enumerated() {
            let at = field + "[\(index)]"
            guard variant.name.wholeMatch(of: /[A-Za-z0-9_-]{1,40}/) != nil else {
                throw RequestError.invalidField(at + ".name", "must be 1 to 40 letters, digits, - or _")
            }
            guard names.insert(variant.name).inserted else { throw RequestError.invalidField(at + ".name", "\(variant.name) is named twice") }
            guard (0...10_000).contains(variant.weight) else { throw RequestError.invalidField(at + ".weight", "must be from 0 to 10000") }
            _ = try httpsURL(variant.url, field: at + ".url")
            _ = try preview(variant.preview, field: at + ".preview")
        }
        if !value.isEmpty, !value.contains(where: { $0.weight > 0 }) {
            throw RequestError.invalidField(field, "at least one variant must have a weight above 0")
        }
        return value
    }

    static func fallbacks(_ value: LinkFallbacks?) throws -> LinkFallbacks? {
        guard let value else { return nil }
        _ = try httpsURL(value.beforeStart, field: "fallbacks.beforeStart")
        _ = try httpsURL(value.expired, field: "fallbacks.expired")
        _ = try httpsURL(value.overLimit, field: "fallbacks.overLimit")
        return value
    }

    static func utm(_ value: LinkUTM?) throws -> LinkUTM? {
        guard let value else { return nil }
        for (name, text) in [("source", value.source), ("medium", value.medium), ("campaign", value.campaign), ("term", value.term),
                             ("content", value.content)] {
            if let text, text.isEmpty || text.count > 200 || text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw RequestError.invalidField("utm." + name, "must be 1 to 200 characters without control characters")
            }
        }
        return value
    }

    /// A click limit: 0 (none) or up to a trillion.
    static func clickLimit(_ value: Int?) throws -> Int64? {
        guard let value else { return nil }
        guard value >= 0, Int64(value) <= LinkRoutingLimits.clicks else {
            throw RequestError.invalidField("clickLimit", "must be from 0 (no limit) to \(LinkRoutingLimits.clicks)")
        }
        return Int64(value)
    }

    /// A start before the expiry, when both are set.
    static func schedule(startsAt: Int64?, expiresAt: Int64?) throws {
        if let startsAt, let expiresAt, expiresAt <= startsAt {
            throw RequestError.invalidField("expiresAt", "must come after startsAt")
        }
    }
}
