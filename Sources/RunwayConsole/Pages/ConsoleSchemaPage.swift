import Foundation
import LinkRunwayAPI
import RunwayCapabilities
import RunwayHTTP
import RunwayKit

/// An app's conversion schema as editable tables: the first window's rules (fine and coarse values) and the rules of
/// SKAdNetwork 4's later windows 2 and 3 (coarse values only). The API's verdict shows beside the cell at fault.
enum SchemaPage {
    struct Row {
        var type = "", name = "", minAmount = "", fine = "", coarse = "", lock = false
    }

    /// The form's rows of each window (1, 2, 3).
    typealias Windows = [Int: [Row]]

    static let windows = [1, 2, 3]

    /// Form field names of window 1 are bare (`fine0`); later windows are prefixed (`w2_coarse0`).
    static func prefix(_ window: Int) -> String { window == 1 ? "" : "w\(window)_" }

    static func show(_ context: ConsoleContext) async throws -> ConsoleResult {
        let apps = try await context.apps()
        guard let app = chosenApp(context, apps) else {
            return .page(ConsolePage(title: "Conversion schema", body: ConsoleLayout.empty("No apps yet.", "<p><a href=\"\(context.link("/console/apps"))\">Register one</a> (or use <code>linkrunway app create</code>).</p>")))
        }
        let current = try await schema(context, app: app.id)
        var rows: Windows = [1: (current?.rules ?? []).map { rule in
            Row(type: rule.type, name: rule.name ?? "", minAmount: rule.minAmount.map(String.init) ?? "", fine: String(rule.fine),
                coarse: rule.coarse ?? "", lock: rule.lockWindow ?? false)
        }]
        for later in current?.laterWindows ?? [] {
            rows[later.window] = later.rules.map { rule in
                Row(type: rule.type, name: rule.name ?? "", minAmount: rule.minAmount.map(String.init) ?? "", coarse: rule.coarse,
                    lock: rule.lockWindow ?? false)
            }
        }
        return .page(page(context, apps: apps, app: app, current: current, rows: rows))
    }

    /// What was sent: per window, the form rows that became rules (blank rows are skipped), and the later windows in
    /// the order of `laterWindows`. The API's field names (`laterWindows[0].rules[2].coarse`) map back through it.
    struct Sent {
        var used: [Int: [Int]] = [:]
        var laterOrder: [Int] = []

        /// The window, form row and column a field names, or nil when it names none.
        func locate(_ field: String) -> (window: Int, row: Int, column: String)? {
            var rest = Substring(field)
            var window = 1
            if rest.hasPrefix("laterWindows[") {
                rest = rest.dropFirst("laterWindows[".count)
                // trap-safe: close is an index of rest, and k is checked against laterOrder
                guard let close = rest.firstIndex(of: "]"), let k = Int(rest[..<close]), laterOrder.indices.contains(k) else { return nil }
                window = laterOrder[k]
                rest = rest[rest.index(after: close)...].drop { $0 == "." }  // trap-safe: close is an index of rest
            }
            guard rest.hasPrefix("rules[") else { return nil }
            rest = rest.dropFirst("rules[".count)
            // trap-safe: close is an index of rest, and n is checked against rows
            guard let close = rest.firstIndex(of: "]"), let n = Int(rest[..<close]), let rows = used[window], rows.indices.contains(n),
                  let column = rest[close...].split(separator: ".").last else { return nil }  // trap-safe: close is an index of rest
            return (window, rows[n], String(column))
        }
    }

    static func save(_ context: ConsoleContext) async throws -> ConsoleResult {
        let apps = try await context.apps()
        guard let app = chosenApp(context, apps) else { throw ConsoleAPIError(status: 404, code: ErrorCode.notFound, message: "no app", field: nil) }
        let form = context.form
        var rows: Windows = [:]
        var sent = Sent()
        for window in windows {
            let p = prefix(window)
            let count = form.count(p + "rows", in: 0...200, fallback: 0)
            let sentRows = (0..<count).map { i in
                Row(type: form["\(p)type\(i)"] ?? "", name: form["\(p)name\(i)"] ?? "", minAmount: form["\(p)minAmount\(i)"] ?? "",
                    fine: form["\(p)fine\(i)"] ?? "", coarse: form["\(p)coarse\(i)"] ?? "", lock: form["\(p)lock\(i)"] == "on")
            }
            rows[window] = sentRows
            let used = sentRows.indices.filter { !sentRows[$0].type.trimmingCharacters(in: .whitespaces).isEmpty }
            sent.used[window] = used
            // A later window without rules is left out (Apple then sends no coarse value for it).
            if window > 1, !used.isEmpty { sent.laterOrder.append(window) }
        }
        // Every cell the console cannot read is marked at once; what the API refuses comes back one rule at a time.
        var marks: [Mark] = []
        var rules: [ConversionRule] = []
        var laterWindows: [LaterWindow] = []
        for window in windows {
            var later: [LaterWindowRule] = []
            let windowRows = rows[window] ?? []
            for index in sent.used[window] ?? [] {
                let row = windowRows[index]
                let minimum = row.minAmount.trimmingCharacters(in: .whitespaces)
                if !minimum.isEmpty, Int64(minimum) == nil {
                    marks.append(Mark(window: window, row: index, column: "minAmount", reason: "must be a whole number of minor units (cents)"))
                }
                let type = row.type.trimmingCharacters(in: .whitespaces)
                let name = row.name.isEmpty ? nil : row.name
                if window == 1 {
                    guard let fine = Int(row.fine.trimmingCharacters(in: .whitespaces)) else {
                        marks.append(Mark(window: window, row: index, column: "fine", reason: "must be a number from 0 to 63"))
                        continue
                    }
                    rules.append(ConversionRule(type: type, name: name, minAmount: Int64(minimum), fine: fine,
                                                coarse: row.coarse.isEmpty ? nil : row.coarse, lockWindow: row.lock ? true : nil))
                } else {
                    later.append(LaterWindowRule(type: type, name: name, minAmount: Int64(minimum), coarse: row.coarse,
                                                 lockWindow: row.lock ? true : nil))
                }
            }
            if !later.isEmpty { laterWindows.append(LaterWindow(window: window, rules: later)) }
        }
        guard marks.isEmpty else {
            return .page(page(context, apps: apps, app: app, current: try await schema(context, app: app.id), rows: rows, marks: marks, status: 400))
        }
        do {
            let saved = try await context.api.send(.PUT, "/v1/apps/\(app.id)/conversion-schema",
                                                   ConversionSchemaRequest(rules: rules, laterWindows: laterWindows), as: ConversionSchema.self)
            return .redirect(context.link("/console/schema", [("app", app.id), ("notice", "Saved as version \(saved.version).")]))
        } catch let error as ConsoleAPIError where error.status == 400 {
            let mark = error.field.flatMap(sent.locate).map { Mark(window: $0.window, row: $0.row, column: $0.column, reason: error.reason) }
            return .page(page(context, apps: apps, app: app, current: try await schema(context, app: app.id), rows: rows, marks: mark.map { [$0] } ?? [],
                              general: mark == nil ? error.message : nil, status: 400))
        }
    }

    static func chosenApp(_ context: ConsoleContext, _ apps: [App]) -> App? {
        let id = context.request.queryValue("app") ?? context.form["app"]
        return apps.first { $0.id == id } ?? apps.first
    }

    static func schema(_ context: ConsoleContext, app: String) async throws -> ConversionSchema? {
        do {
            return try await context.api.get("/v1/apps/\(app)/conversion-schema", as: ConversionSchema.self)
        } catch let error as ConsoleAPIError where error.status == 404 {
            return nil
        }
    }

    /// A cell refused: its window, form row and column, and why.
    struct Mark {
        let window: Int, row: Int, column: String, reason: String

        static let labels = ["type": "Event type", "name": "Event name", "minAmount": "Minimum amount", "fine": "Fine value", "coarse": "Coarse value"]

        /// The form control's id (its name).
        var fieldId: String { "\(prefix(window))\(column)\(row)" }

        /// What the error summary says.
        var problem: FormProblem {
            FormProblem(fieldId: fieldId, message: "\(Self.labels[column] ?? column), rule \(row + 1)\(window == 1 ? "" : ", window \(window)"): \(reason)")
        }
    }

    /// The schema's rules as a form; `marks` are the cells refused, `general` what was refused of the schema as a whole.
    static func page(_ context: ConsoleContext, apps: [App], app: App, current: ConversionSchema?, rows: Windows, marks: [Mark] = [],
                     general: String? = nil, status: Int = 200) -> ConsolePage {
        var hidden: [Markup] = []
        var tables: [Markup] = []
        for window in windows {
            let shown = (rows[window] ?? []) + Array(repeating: Row(), count: window == 1 ? 3 : 2)
            hidden.append("<input type=\"hidden\" name=\"\(prefix(window))rows\" value=\"\(shown.count)\">")
            tables.append(table(window: window, rows: shown, marks: marks.filter { $0.window == window }))
        }
        let version: Markup = current.map { "<p class=\"hint\">Version \($0.version), saved \(context.format.time($0.createdAt)). Saving makes a new version; postbacks decode with the version in force when their value was set.</p>" }
            ?? "<p class=\"hint\">No schema yet: the SDK sets no conversion values until there is one.</p>"
        let body: Markup = """
            \(ConsolePages.appFilter(context, apps: apps, selected: app.id, allowAll: false))
            \(version)
            <form method="post" action="/console/schema" novalidate>
            \(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)"><input type="hidden" name="app" value="\(app.id)">
            \(hidden)
            \(tables[0])
            <h2>Later windows (SKAdNetwork 4)</h2>
            <p class="hint">Windows 2 (days 3–7) and 3 (days 8–35) carry a coarse value only. A window without rules sends none.</p>
            \(tables[1])
            \(tables[2])
            <p class="hint">Leave the event type empty to drop a rule. Event types: \(Events.types.sorted().joined(separator: ", ")).</p>
            <button type="submit">Save a new version</button>
            </form>
            """
        return ConsolePage(title: "Conversion schema", body: body, status: status,
                           problems: marks.map(\.problem) + (general.map { [FormProblem(fieldId: nil, message: $0)] } ?? []))
    }

    /// One window's rules as a table of inputs, the refused cells marked.
    static func table(window: Int, rows: [Row], marks: [Mark]) -> Markup {
        let p = prefix(window)
        let suffix = window == 1 ? "" : ", window \(window)"
        func marked(_ column: String, _ row: Int) -> (attributes: Markup, message: Markup) {
            guard let mark = marks.first(where: { $0.row == row && $0.column == column }) else { return ("", "") }
            let id = "error-\(p)\(column)\(row)"
            return (" aria-invalid=\"true\" aria-describedby=\"\(id)\"", "<span class=\"error\" id=\"\(id)\">\(mark.reason)</span>")
        }
        func cell(_ column: String, _ row: Int, _ value: String, label: String) -> Markup {
            let mark = marked(column, row)
            return "<input class=\"\(column)\" id=\"\(p)\(column)\(row)\" name=\"\(p)\(column)\(row)\" value=\"\(value)\" aria-label=\"\(label), rule \(row + 1)\(suffix)\"\(mark.attributes)>\(mark.message)"
        }
        let coarseChoices = window == 1 ? ["", "low", "medium", "high"] : ["low", "medium", "high"]
        let tableRows: [[Markup]] = rows.enumerated().map { index, row in
            let options = Markup.join(coarseChoices.map { choice in
                let selected: Markup = choice == row.coarse ? " selected" : ""
                return "<option value=\"\(choice)\"\(selected)>\(choice.isEmpty ? "–" : choice)</option>"
            })
            let coarse = marked("coarse", index)
            let checked: Markup = row.lock ? " checked" : ""
            var cells: [Markup] = [
                cell("type", index, row.type, label: "Event type"), cell("name", index, row.name, label: "Event name"),
                cell("minAmount", index, row.minAmount, label: "Minimum amount"),
            ]
            if window == 1 { cells.append(cell("fine", index, row.fine, label: "Fine value")) }
            cells.append("<select id=\"\(p)coarse\(index)\" name=\"\(p)coarse\(index)\" aria-label=\"Coarse value, rule \(index + 1)\(suffix)\"\(coarse.attributes)>\(options)</select>\(coarse.message)")
            cells.append("<input type=\"checkbox\" name=\"\(p)lock\(index)\" aria-label=\"Lock the window, rule \(index + 1)\(suffix)\"\(checked)>")
            return cells
        }
        if window == 1 {
            return ConsoleLayout.table(["event type", "name", "minimum amount (minor units)", "fine value (0–63)", "coarse value", "lock window"], tableRows,
                                       caption: "First-window rules: the first that matches an event sets the value; values never go down")
        }
        return ConsoleLayout.table(["event type", "name", "minimum amount (minor units)", "coarse value", "lock window"], tableRows,
                                   caption: "Window \(window) rules: the first that matches sets the coarse value; it never goes down")
    }
}
