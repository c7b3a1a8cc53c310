import Foundation
import LinkRunwayAPI
import RunwayKit

/// The link form's rule editor and its routing fields: one fieldset a rule (conditions, destination, variants as
/// JSON) plus one blank to add a rule, the link's own variants, start, click limit, fallbacks and UTM values. Plain
/// HTML controls, so it works without script; a row left blank, or marked for removal, is no rule.
struct LinkRoutingForm {
    var rules: [LinkRule] = []
    var variants: [LinkVariant] = []
    var startsAt: String?
    var clickLimit: Int?
    var fallbacks = LinkFallbacks()
    var utm = LinkUTM()
    /// The form row each rule came from, so an API error about `rules[i]` is shown beside its row.
    var rows: [Int] = []

    /// Controls for what is not a rule, and the API fields their errors come back under.
    static let fields: [String: String?] = [
        "startsAt": nil, "clickLimit": nil, "variants": nil, "fallbackBeforeStart": "fallbacks.beforeStart",
        "fallbackExpired": "fallbacks.expired", "fallbackOverLimit": "fallbacks.overLimit", "utmSource": "utm.source",
        "utmMedium": "utm.medium", "utmCampaign": "utm.campaign", "utmTerm": "utm.term", "utmContent": "utm.content",
    ]
    static let ruleControls = ["name", "countries", "languages", "inAppBrowsers", "osMin", "osMax", "from", "until", "url", "variants", "remove"]
        + LinkCondition.platformValues.map { "platform-" + $0 } + LinkCondition.deviceValues.map { "device-" + $0 }

    static func id(_ row: Int, _ control: String) -> String { "rule\(row)-\(control)" }

    /// What the form sent, or every problem the console found in it.
    static func read(_ form: FormFields, format: ConsoleFormat) -> (LinkRoutingForm, [FormProblem]) {
        var routing = LinkRoutingForm()
        var problems: [FormProblem] = []
        func time(_ control: String, _ label: String) -> String? {
            guard let text = form.text(control) else { return nil }
            if let time = LinkForm.parseLocal(text, format: format) { return time }
            problems.append(FormProblem(fieldId: control, message: "\(label): must be a date and time"))
            return nil
        }
        func json<T: Decodable>(_ type: T.Type, _ control: String, _ label: String) -> T? {
            guard let text = form.text(control) else { return nil }
            if let value = try? JSONDecoder().decode(type, from: Data(text.utf8)) { return value }
            problems.append(FormProblem(fieldId: control, message: "\(label): must be a JSON list such as [{\"name\": \"a\", \"weight\": 50}]"))
            return nil
        }
        func list(_ control: String) -> [String]? {
            let items = (form.text(control) ?? "").split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
            return items.isEmpty ? nil : items
        }
        for row in 0..<form.count("ruleRows", in: 0...(LinkRoutingLimits.rules + 1), fallback: 0) {
            let names = ruleControls.map { id(row, $0) }
            guard form[id(row, "remove")] != "on", names.contains(where: { form.text($0) != nil }) else { continue }
            let platforms = LinkCondition.platformValues.filter { form[id(row, "platform-" + $0)] == "on" }
            let devices = LinkCondition.deviceValues.filter { form[id(row, "device-" + $0)] == "on" }
            let (osMin, osMax) = (form.text(id(row, "osMin")), form.text(id(row, "osMax")))
            let when = LinkCondition(platforms: platforms.isEmpty ? nil : platforms,
                                     osVersion: osMin == nil && osMax == nil ? nil : LinkVersionRange(min: osMin, max: osMax),
                                     countries: list(id(row, "countries")), languages: list(id(row, "languages")),
                                     devices: devices.isEmpty ? nil : devices, inAppBrowsers: list(id(row, "inAppBrowsers")),
                                     from: time(id(row, "from"), "rule \(row + 1), from"),
                                     until: time(id(row, "until"), "rule \(row + 1), until"))
            routing.rules.append(LinkRule(name: form.text(id(row, "name")), when: when, url: form.text(id(row, "url")),
                                          variants: json([LinkVariant].self, id(row, "variants"), "rule \(row + 1), variants")))
            routing.rows.append(row)
        }
        routing.variants = json([LinkVariant].self, "variants", "variants") ?? []
        routing.startsAt = time("startsAt", "startsAt")
        if let text = form.text("clickLimit") {
            if let limit = Int(text), limit >= 0 { routing.clickLimit = limit } else {
                problems.append(FormProblem(fieldId: "clickLimit", message: "clickLimit: must be a whole number (0 or empty: no limit)"))
            }
        }
        routing.fallbacks = LinkFallbacks(beforeStart: form.text("fallbackBeforeStart"), expired: form.text("fallbackExpired"),
                                          overLimit: form.text("fallbackOverLimit"))
        routing.utm = LinkUTM(source: form.text("utmSource"), medium: form.text("utmMedium"), campaign: form.text("utmCampaign"),
                              term: form.text("utmTerm"), content: form.text("utmContent"))
        return (routing, problems)
    }

    /// The form control an API field names: a rule's field to its row's control, the others by `fields`.
    func control(for field: String) -> String? {
        guard field.hasPrefix("rules["), let close = field.firstIndex(of: "]"), let index = Int(field.dropFirst(6).prefix(upTo: close)),
              index < rows.count else { return Self.fields.first { id, apiField in (apiField ?? id) == field }?.key }
        let rest = field[field.index(after: close)...]  // trap-safe: close is an index of field
        let control: String = switch rest {
        case _ where rest.hasPrefix(".name"): "name"
        case _ where rest.hasPrefix(".when.platforms"): "platform-ios"
        case _ where rest.hasPrefix(".when.devices"): "device-phone"
        case _ where rest.hasPrefix(".when.countries"): "countries"
        case _ where rest.hasPrefix(".when.languages"): "languages"
        case _ where rest.hasPrefix(".when.inAppBrowsers"): "inAppBrowsers"
        case _ where rest.hasPrefix(".when.osVersion.max"): "osMax"
        case _ where rest.hasPrefix(".when.osVersion"): "osMin"
        case _ where rest.hasPrefix(".when.from"): "from"
        case _ where rest.hasPrefix(".when.until"): "until"
        case _ where rest.hasPrefix(".variants"): "variants"
        default: "url"
        }
        return Self.id(rows[index], control)
    }

    /// The form's values for an existing link.
    static func values(of link: Link, format: ConsoleFormat) -> [String: String] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func text<T: Encodable>(_ value: T?) -> String { value.flatMap { try? encoder.encode($0) }.map { String(decoding: $0, as: UTF8.self) } ?? "" }
        let rules = link.rules ?? []
        var values: [String: String] = [
            "ruleRows": String(rules.count + 1), "variants": link.variants.map { text($0) } ?? "",
            "startsAt": link.startsAt.flatMap { LinkForm.local($0, format: format) } ?? "", "clickLimit": link.clickLimit.map(String.init) ?? "",
            "fallbackBeforeStart": link.fallbacks?.beforeStart ?? "", "fallbackExpired": link.fallbacks?.expired ?? "",
            "fallbackOverLimit": link.fallbacks?.overLimit ?? "", "utmSource": link.utm?.source ?? "", "utmMedium": link.utm?.medium ?? "",
            "utmCampaign": link.utm?.campaign ?? "", "utmTerm": link.utm?.term ?? "", "utmContent": link.utm?.content ?? "",
        ]
        for (row, rule) in rules.enumerated() {
            let when = rule.when
            values[id(row, "name")] = rule.name ?? ""
            values[id(row, "countries")] = (when.countries ?? []).joined(separator: ", ")
            values[id(row, "languages")] = (when.languages ?? []).joined(separator: ", ")
            values[id(row, "inAppBrowsers")] = (when.inAppBrowsers ?? []).joined(separator: ", ")
            values[id(row, "osMin")] = when.osVersion?.min ?? ""
            values[id(row, "osMax")] = when.osVersion?.max ?? ""
            values[id(row, "from")] = when.from.flatMap { LinkForm.local($0, format: format) } ?? ""
            values[id(row, "until")] = when.until.flatMap { LinkForm.local($0, format: format) } ?? ""
            values[id(row, "url")] = rule.url ?? ""
            values[id(row, "variants")] = rule.variants.map { text($0) } ?? ""
            for platform in when.platforms ?? [] { values[id(row, "platform-" + platform)] = "on" }
            for device in when.devices ?? [] { values[id(row, "device-" + device)] = "on" }
        }
        return values
    }

    /// The raw values a form sent, to show again beside its problems (with one blank rule row more).
    static func typed(_ form: FormFields) -> [String: String] {
        let rows = form.count("ruleRows", in: 0...(LinkRoutingLimits.rules + 1), fallback: 0)
        var values = Dictionary(uniqueKeysWithValues: fields.keys.map { ($0, form[$0] ?? "") })
        for row in 0..<rows { for control in ruleControls { values[id(row, control)] = form[id(row, control)] ?? "" } }
        values["ruleRows"] = String(rows)
        return values
    }
}
