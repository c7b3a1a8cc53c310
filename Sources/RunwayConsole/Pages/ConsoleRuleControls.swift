import LinkRunwayAPI
import RunwayKit

/// The rule editor's controls: a fieldset per rule and a blank one, then the link's variants, schedule, limit,
/// fallbacks and UTM values. Every control has its label; problems are shown beside their control.
extension LinkRoutingForm {
    static func controls(_ values: [String: String], problems: [FormProblem], zone: String) -> Markup {
        func problem(_ id: String) -> String? { problems.first { $0.fieldId == id }?.message }
        func field(_ id: String, _ label: String, type: String = "text", hint: String? = nil) -> Markup {
            ConsoleForms.input(id, label, value: values[id], problem: problem(id), type: type, hint: hint)
        }
        func area(_ id: String, _ label: String) -> Markup {
            let error = problem(id)
            let described: Markup = error == nil ? "" : " aria-invalid=\"true\" aria-describedby=\"\(id)-error\""
            let message: Markup = error.map { "<span class=\"error\" id=\"\(id)-error\">\($0)</span>" } ?? ""
            return "<div class=\"field\"><label for=\"\(id)\">\(label)</label><textarea id=\"\(id)\" name=\"\(id)\" rows=\"2\"\(described)>\(values[id] ?? "")</textarea>\(message)</div>"
        }
        func checks(_ row: Int, _ group: String, _ options: [String], _ legend: String) -> Markup {
            let first = id(row, "\(group)-\(options[0])")
            let error = problem(first)
            let boxes = Markup.join(options.map { option in
                let control = id(row, "\(group)-\(option)")
                let described: Markup = error != nil && control == first ? " aria-describedby=\"\(first)-error\"" : ""
                return "<label class=\"check\"><input type=\"checkbox\" id=\"\(control)\" name=\"\(control)\"\(values[control] == "on" ? Markup(" checked") : "")\(described)> \(option)</label>"
            })
            let message: Markup = error.map { "<span class=\"error\" id=\"\(first)-error\">\($0)</span>" } ?? ""
            return "<fieldset><legend>\(legend)</legend>\(boxes)\(message)</fieldset>"
        }
        let rows = FormFields.count(values["ruleRows"], in: 1...(LinkRoutingLimits.rules + 1), fallback: 1)
        let rules = Markup.join((0..<rows).map { row in
            let last = row == rows - 1
            let remove: Markup = last ? "" : "<label class=\"check\"><input type=\"checkbox\" id=\"\(id(row, "remove"))\" name=\"\(id(row, "remove"))\"\(values[id(row, "remove")] == "on" ? Markup(" checked") : "")> remove this rule</label>"
            return """
                <fieldset class="rule"><legend>\(last ? "Add a rule" : "Rule \(row + 1)")</legend>
                <div class="fields">\(field(id(row, "name"), "Name (optional)"))</div>
                \(checks(row, "platform", LinkCondition.platformValues, "Platforms (none ticked: any)"))
                \(checks(row, "device", LinkCondition.deviceValues, "Devices (none ticked: any)"))
                <div class="fields">
                \(field(id(row, "countries"), "Countries (ISO codes, e.g. FR, BE)")) \(field(id(row, "languages"), "Languages (e.g. en, pt-BR)"))
                \(field(id(row, "inAppBrowsers"), "In-app browsers (e.g. instagram, tiktok; any; none)"))
                \(field(id(row, "osMin"), "Lowest OS version (e.g. 17)")) \(field(id(row, "osMax"), "Highest OS version (e.g. 18.4)"))
                \(field(id(row, "from"), "From", type: "datetime-local", hint: "In your time zone, \(zone)")) \(field(id(row, "until"), "Until", type: "datetime-local"))
                \(field(id(row, "url"), "Send matching clicks to (https://…)", type: "url"))
                </div>
                \(area(id(row, "variants"), "Variants of this rule (JSON, optional)"))
                \(remove)
                </fieldset>
                """
        })
        return """
            <fieldset><legend>Rules: the first that holds decides where a click goes</legend>
            <input type="hidden" name="ruleRows" value="\(rows)">
            \(rules)
            </fieldset>
            <fieldset><legend>Variants, schedule and limit</legend>
            \(area("variants", "Variants when no rule holds (JSON: [{\"name\": \"a\", \"weight\": 50, \"url\": \"https://…\"}])"))
            <div class="fields">
            \(field("startsAt", "Starts (optional)", type: "datetime-local", hint: "Before it the link answers 404 or goes to the fallback below"))
            \(field("clickLimit", "Click limit (optional)", type: "number"))
            \(field("fallbackBeforeStart", "Before the start, send people to (https://…)", type: "url"))
            \(field("fallbackExpired", "After the expiry, send people to (https://…)", type: "url"))
            \(field("fallbackOverLimit", "Past the click limit, send people to (https://…)", type: "url"))
            </div></fieldset>
            <fieldset><legend>UTM parameters added to web pages</legend><div class="fields">
            \(field("utmSource", "utm_source")) \(field("utmMedium", "utm_medium")) \(field("utmCampaign", "utm_campaign"))
            \(field("utmTerm", "utm_term")) \(field("utmContent", "utm_content"))
            </div></fieldset>
            """
    }
}
