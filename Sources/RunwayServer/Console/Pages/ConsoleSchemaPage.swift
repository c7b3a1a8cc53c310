import Foundation
import LinkRunwayAPI
import RunwayHTTP

/// An app's conversion schema (its first-window rules) as an editable table; the API's verdict shows beside the cell
/// at fault. Later-window rules are kept as they are (edit them with `linkrunway rules set`).
enum SchemaPage {
    struct Row {
        var type = "", name = "", minAmount = "", fine = "", coarse = "", lock = false
    }

    static func show(_ context: ConsoleContext) async throws -> ConsoleResult {
        let apps = try await context.apps()
        guard let app = chosenApp(context, apps) else {
            return .page(ConsolePage(title: "Conversion schema", body: ConsoleLayout.empty("No apps yet. Register one with linkrunway app create.")))
        }
        let current = try await schema(context, app: app.id)
        let rows = (current?.rules ?? []).map { rule in
            Row(type: rule.type, name: rule.name ?? "", minAmount: rule.minAmount.map(String.init) ?? "", fine: String(rule.fine),
                coarse: rule.coarse ?? "", lock: rule.lockWindow ?? false)
        }
        return .page(page(context, apps: apps, app: app, current: current, rows: rows, error: nil))
    }

    static func save(_ context: ConsoleContext) async throws -> ConsoleResult {
        let apps = try await context.apps()
        guard let app = chosenApp(context, apps) else { throw ConsoleAPIError(status: 404, code: ErrorCode.notFound, message: "no app", field: nil) }
        let form = context.form
        let count = min(Int(form["rows"] ?? "") ?? 0, 200)
        var rows: [Row] = []
        for i in 0..<count {
            rows.append(Row(type: form["type\(i)"] ?? "", name: form["name\(i)"] ?? "", minAmount: form["minAmount\(i)"] ?? "",
                            fine: form["fine\(i)"] ?? "", coarse: form["coarse\(i)"] ?? "", lock: form["lock\(i)"] == "on"))
        }
        // Rows without an event type are blank; the API numbers the rest in order.
        let used = rows.indices.filter { !rows[$0].type.trimmingCharacters(in: .whitespaces).isEmpty }
        var rules: [ConversionRule] = []
        for (position, index) in used.enumerated() {
            let row = rows[index]
            guard let fine = Int(row.fine.trimmingCharacters(in: .whitespaces)) else {
                return .page(page(context, apps: apps, app: app, current: nil, rows: rows,
                                  error: ConsoleAPIError(status: 400, code: ErrorCode.invalidField, message: "must be a number from 0 to 63", field: "rules[\(position)].fine"),
                                  used: used))
            }
            let minimum = row.minAmount.trimmingCharacters(in: .whitespaces)
            guard minimum.isEmpty || Int64(minimum) != nil else {
                return .page(page(context, apps: apps, app: app, current: nil, rows: rows,
                                  error: ConsoleAPIError(status: 400, code: ErrorCode.invalidField, message: "must be a whole number of minor units (cents)", field: "rules[\(position)].minAmount"),
                                  used: used))
            }
            rules.append(ConversionRule(type: row.type.trimmingCharacters(in: .whitespaces), name: row.name.isEmpty ? nil : row.name,
                                        minAmount: Int64(minimum), fine: fine, coarse: row.coarse.isEmpty ? nil : row.coarse,
                                        lockWindow: row.lock ? true : nil))
        }
        let laterWindows = try await schema(context, app: app.id)?.laterWindows
        do {
            let saved = try await context.api.send(.PUT, "/v1/apps/\(app.id)/conversion-schema",
                                                   ConversionSchemaRequest(rules: rules, laterWindows: laterWindows), as: ConversionSchema.self)
            return .redirect(context.link("/console/schema", [("app", app.id), ("notice", "Saved as version \(saved.version).")]))
        } catch let error as ConsoleAPIError where error.status == 400 {
            return .page(page(context, apps: apps, app: app, current: nil, rows: rows, error: error, used: used))
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

    /// `used` maps the API's rule numbers back to form rows (blank rows are skipped when sending).
    static func page(_ context: ConsoleContext, apps: [App], app: App, current: ConversionSchema?, rows: [Row], error: ConsoleAPIError?,
                     used: [Int]? = nil) -> ConsolePage {
        let shown = rows + Array(repeating: Row(), count: 3)
        let used = used ?? Array(rows.indices)
        // Which form row and column the error names, if any.
        var failedRow: Int?, failedColumn: String?
        if let field = error?.field, field.hasPrefix("rules["), let close = field.firstIndex(of: "]"),
           let number = Int(field[field.index(field.startIndex, offsetBy: 6)..<close]), number < used.count {
            failedRow = used[number]
            failedColumn = field[close...].split(separator: ".").last.map(String.init)
        }
        func cell(_ name: String, _ row: Int, _ value: String, label: String, width: String = "") -> Markup {
            let failed = failedRow == row && failedColumn == name
            let invalid: Markup = failed ? " aria-invalid=\"true\" aria-describedby=\"error-\(name)\(row)\"" : ""
            let message: Markup = failed ? "<span class=\"error\" id=\"error-\(name)\(row)\">\(error!.reason)</span>" : ""
            return "<input name=\"\(name)\(row)\" value=\"\(value)\" aria-label=\"\(label), rule \(row + 1)\"\(Markup(raw: width))\(invalid)>\(message)"
        }
        let coarseChoices = ["", "low", "medium", "high"]
        let tableRows: [[Markup]] = shown.enumerated().map { index, row in
            let options = Markup.join(coarseChoices.map { choice in
                let mark: Markup = choice == row.coarse ? " selected" : ""
                return "<option value=\"\(choice)\"\(mark)>\(choice.isEmpty ? "–" : choice)</option>"
            })
            let coarseFailed = failedRow == index && failedColumn == "coarse"
            let coarseMessage: Markup = coarseFailed ? "<span class=\"error\">\(error!.reason)</span>" : ""
            let checked: Markup = row.lock ? " checked" : ""
            return [
                cell("type", index, row.type, label: "Event type"), cell("name", index, row.name, label: "Event name"),
                cell("minAmount", index, row.minAmount, label: "Minimum amount"), cell("fine", index, row.fine, label: "Fine value"),
                "<select name=\"coarse\(index)\" aria-label=\"Coarse value, rule \(index + 1)\">\(options)</select>\(coarseMessage)",
                "<input type=\"checkbox\" name=\"lock\(index)\" aria-label=\"Lock the window, rule \(index + 1)\"\(checked)>",
            ]
        }
        let general: Markup = error.map { error in failedRow == nil ? "<p class=\"error\" role=\"alert\">\(error.message)</p>" : "<p class=\"error\" role=\"alert\">A rule needs fixing: see the marked cell.</p>" } ?? ""
        let version: Markup = current.map { "<p class=\"hint\">Version \($0.version), saved \(context.format.time($0.createdAt)). Saving makes a new version; postbacks decode with the version in force when their value was set.</p>" }
            ?? "<p class=\"hint\">No schema yet: the SDK sets no conversion values until there is one.</p>"
        let body: Markup = """
            \(ConsolePages.appFilter(context, apps: apps, selected: app.id, allowAll: false))
            \(version)
            \(general)
            <form method="post" action="/console/schema" novalidate>
            \(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)"><input type="hidden" name="app" value="\(app.id)">
            <input type="hidden" name="rows" value="\(shown.count)">
            \(ConsoleLayout.table(["event type", "name", "minimum amount (minor units)", "fine value (0–63)", "coarse value", "lock window"], tableRows,
                                  caption: "First-window rules: the first that matches an event sets the value; values never go down"))
            <p class="hint">Leave the event type empty to drop a rule. Event types: \(EventRoutes.types.sorted().joined(separator: ", ")).</p>
            <button type="submit">Save a new version</button>
            </form>
            """
        return ConsolePage(title: "Conversion schema", body: body, status: error == nil ? 200 : 400)
    }
}
