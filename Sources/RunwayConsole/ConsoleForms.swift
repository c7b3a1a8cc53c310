import RunwayKit

/// One thing wrong with what a form sent: the message, and the id of the control at fault (nil: the form as a whole).
struct FormProblem: Sendable {
    var fieldId: String?
    var message: String

    /// The API's refusal, linked to the control that shows it: `fields` maps form control ids to the API field their
    /// errors come back under (a control missing from it answers to its own name).
    init(_ error: ConsoleAPIError, fields: [String: String?] = [:]) {
        fieldId = error.field.flatMap { field in fields.first { id, apiField in (apiField ?? id) == field }?.key }
        message = error.message
    }

    init(fieldId: String?, message: String) {
        self.fieldId = fieldId
        self.message = message
    }
}

/// Form controls and what a refused form shows: each bad control marked and described, and a summary of every problem
/// at the top of the page (the layout draws it, moves focus to it and says "Error" in the title).
enum ConsoleForms {
    /// A text field with its label and, when the API refused it, the reason beside it.
    static func field(_ name: String, _ label: String, value: String?, error: ConsoleAPIError?, errorField: String? = nil,
                      type: String = "text", hint: String? = nil, required: Bool = false) -> Markup {
        let failed = error.map { ($0.field ?? "") == (errorField ?? name) } ?? false
        return input(name, label, value: value, problem: failed ? error?.reason : nil, type: type, hint: hint, required: required)
    }

    /// A text field that shows `problem` beside it when there is one.
    static func input(_ name: String, _ label: String, value: String?, problem: String?, type: String = "text", hint: String? = nil,
                      required: Bool = false) -> Markup {
        let hintId = "\(name)-hint"
        let described = [problem.map { _ in "\(name)-error" }, hint.map { _ in hintId }].compactMap { $0 }
        var attributes: Markup = problem == nil ? "" : " aria-invalid=\"true\""
        if !described.isEmpty { attributes = attributes + " aria-describedby=\"\(described.joined(separator: " "))\"" }
        if required { attributes = attributes + " required" }
        let message: Markup = problem.map { "<span class=\"error\" id=\"\(name)-error\">\($0)</span>" } ?? ""
        let hintMarkup: Markup = hint.map { "<span class=\"hint\" id=\"\(hintId)\">\($0)</span>" } ?? ""
        return """
            <div class="field"><label for="\(name)">\(label)</label>
            <input id="\(name)" name="\(name)" type="\(type)" value="\(value ?? "")"\(attributes)>\(hintMarkup)\(message)</div>
            """
    }

    /// The list of problems a refused form had, each linked to its control; focus moves here when the page loads.
    static func summary(_ problems: [FormProblem]) -> Markup {
        guard !problems.isEmpty else { return "" }
        let items = Markup.join(problems.map { problem in
            problem.fieldId.map { "<li><a href=\"#\($0)\">\(problem.message)</a></li>" } ?? "<li>\(problem.message)</li>"
        })
        let heading = problems.count == 1 ? "There is a problem" : "There are \(problems.count) problems"
        return """
            <div class="error-summary" id="error-summary" role="alert" tabindex="-1" aria-labelledby="error-summary-title" autofocus>
            <h2 id="error-summary-title">\(heading)</h2><ul>\(items)</ul></div>
            """
    }
}
