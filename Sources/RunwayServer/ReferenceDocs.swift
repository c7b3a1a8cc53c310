import RunwayCapabilities
import RunwayConsole
import RunwayJSON
import RunwayKit

/// The reference pages generated from the code (`docs/configuration.md`, `docs/api-reference.md`); a test keeps the files equal
/// to what these return, and `make docs` rewrites them.
public enum ReferenceDocs {
    /// Every setting of `linkrunway serve`, then the command line's own.
    public static func configuration() -> String {
        var out = """
            # Configuration reference

            Generated from the server's list of settings by `make docs`; a test fails when this page and the code differ.

            `linkrunway serve` reads each setting from its environment variable, then from its flag (a flag wins). A value
            it cannot use stops the start with exit code 64 and names the setting. `linkrunway migrate`, `backup` and
            `restore` read `LINKRUNWAY_DATABASE_URL` the same way. With systemd, put the variables in the environment file
            (`deploy/linkrunway.env.example`).

            | variable | flag | default | meaning |
            |---|---|---|---|

            """
        for setting in ServerConfiguration.settings {
            out += "| `\(setting.environment)` | `\(setting.flag)` | \(code(setting.defaultValue)) | \(cell(setting.summary)) |\n"
        }
        out += """

            ## The management commands

            The commands that manage a running server (everything but `serve`, `migrate`, `backup`, `restore` and the
            offline `verify` commands) read these:

            | variable | flag | default | meaning |
            |---|---|---|---|
            | `LINKRUNWAY_URL` | `--server` | `http://127.0.0.1:8080` | The server to talk to. |
            | `LINKRUNWAY_KEY` | `--key` | none | An admin or server key; prefer the variable, flags show up in `ps`. |

            """
        return out
    }

    /// Every error code with its status, then every operation of the OpenAPI document, grouped by tag, then every schema
    /// with its fields.
    public static func api(document: JSONValue) -> String {
        var out = """
            # HTTP API reference

            Generated from the server's OpenAPI document (`GET /openapi.json`) by `make docs`; a test fails when this page and
            the code differ. Authenticate with `Authorization: Bearer <key>`; errors are `{"error":{"code","message","field"}}`
            with the stable codes listed under [Errors](#errors). Lists take `limit` (1 to 200) and `cursor` (the
            `nextCursor` of the previous page).

            """
        out += errors()
        var byTag: [(String, [String])] = []
        for (path, methods) in document["paths"]?.objectValue ?? [] {
            for (method, operation) in methods.objectValue ?? [] {
                let tag = operation["tags"]?.arrayValue?.first?.stringValue ?? "Other"
                let text = self.operation(method: method.uppercased(), path: path, operation)
                if let index = byTag.firstIndex(where: { $0.0 == tag }) { byTag[index].1.append(text) } else { byTag.append((tag, [text])) }
            }
        }
        for (tag, operations) in byTag.sorted(by: { $0.0 < $1.0 }) {
            out += "\n## \(tag)\n\n" + operations.joined(separator: "\n")
        }
        out += "\n## Schemas\n"
        for (name, schema) in (document["components"]?["schemas"]?.objectValue ?? []).sorted(by: { $0.0 < $1.0 }) {
            out += "\n### \(name)\n\n"
            if let description = schema["description"]?.stringValue { out += cell(description) + "\n\n" }
            let required = Set(schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            guard let properties = schema["properties"]?.objectValue, !properties.isEmpty else {
                out += "`\(type(schema))`\n"
                continue
            }
            out += "| field | type | required | meaning |\n|---|---|---|---|\n"
            for (field, property) in properties {
                out += "| `\(field)` | \(code(type(property))) | \(required.contains(field) ? "yes" : "") | \(cell(property["description"]?.stringValue ?? "")) |\n"
            }
        }
        return out
    }

    /// Every code the API answers, with the status `ErrorMapping` gives it.
    static func errors() -> String {
        var out = """

            ## Errors

            A code never changes meaning once released; messages are for people and may change. `field` names the request
            field at fault, when there is one. Every 401 carries `WWW-Authenticate: Bearer`.

            | code | status | when |
            |---|---|---|

            """
        for entry in ErrorMapping.table {
            out += "| `\(entry.code)` | \(entry.status) | \(cell(entry.meaning)) |\n"
        }
        return out
    }

    static func operation(method: String, path: String, _ operation: JSONValue) -> String {
        var out = "### `\(method) \(path)`\n\n\(cell(operation["summary"]?.stringValue ?? "")).\n\n"
        if let kinds = operation["x-linkrunway-key-kinds"]?.arrayValue?.compactMap(\.stringValue), !kinds.isEmpty {
            out += "- Keys: \(kinds.joined(separator: ", "))\n"
        } else {
            out += "- Keys: none\n"
        }
        let parameters = operation["parameters"]?.arrayValue ?? []
        for place in ["path", "query", "header"] {
            let names = parameters.filter { $0["in"]?.stringValue == place }.compactMap { $0["name"]?.stringValue }
            if !names.isEmpty { out += "- \(place.prefix(1).uppercased() + place.dropFirst()): \(names.map { "`\($0)`" }.joined(separator: ", "))\n" }
        }
        if let content = operation["requestBody"]?["content"]?.objectValue?.first {
            out += "- Body: \(code(type(content.1["schema"] ?? .null))) (\(content.0))\n"
        }
        for (status, response) in operation["responses"]?.objectValue ?? [] where status.hasPrefix("2") || status.hasPrefix("3") {
            let body = response["content"]?.objectValue?.first.map { " \(code(type($0.1["schema"] ?? .null))) (\($0.0))" } ?? ""
            out += "- \(status)\(body): \(cell(response["description"]?.stringValue ?? ""))\n"
        }
        let errors = (operation["responses"]?.objectValue ?? []).map(\.0).filter { $0.hasPrefix("4") || $0.hasPrefix("5") }
        if !errors.isEmpty { out += "- Errors: \(errors.joined(separator: ", "))\n" }
        return out
    }

    /// A schema as a short type: `App`, `[string]`, `"a" | "b"`, `{string: integer}`.
    static func type(_ schema: JSONValue) -> String {
        if let reference = schema["$ref"]?.stringValue { return String(reference.split(separator: "/").last ?? "") }
        if let options = schema["oneOf"]?.arrayValue ?? schema["anyOf"]?.arrayValue { return options.map(type).joined(separator: " | ") }
        if let values = schema["enum"]?.arrayValue {
            return values.map { $0.stringValue.map { "\"\($0)\"" } ?? "\($0)" }.joined(separator: " | ")
        }
        if let names = schema["type"]?.arrayValue?.compactMap(\.stringValue), let members = schema.objectValue {
            // `["array", "null"]`: each type as it would show alone, so a list still shows its items.
            return names.map { name in
                name == "null" ? name : type(.object(members.map { $0.0 == "type" ? ($0.0, .string(name)) : $0 }))
            }.joined(separator: " | ")
        }
        switch schema["type"]?.stringValue {
        case "array": return "[\(type(schema["items"] ?? .null))]"
        case "object":
            if let values = schema["additionalProperties"], values.objectValue != nil { return "{string: \(type(values))}" }
            return "object"
        case let name?: return name + (schema["format"]?.stringValue.map { " (\($0))" } ?? "")
        default: return "any"
        }
    }

    private static func code(_ text: String) -> String {
        // Defaults such as "none" or "number of cores" are words, not values.
        if text == "none" || (text.contains(" ") && !text.contains("\"") && !text.contains("|")) { return text }
        return "`" + text.replacingOccurrences(of: "|", with: "\\|") + "`"
    }

    /// Text safe inside a table cell.
    public static func cell(_ text: String) -> String {
        // Outside code spans, `<word>` would be taken for an HTML tag.
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().map { index, part in
            index % 2 == 0 ? part.replacingOccurrences(of: "<", with: "\\<") : String(part)
        }.joined(separator: "`").replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}
