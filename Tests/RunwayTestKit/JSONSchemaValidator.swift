import Foundation
import RunwayJSON

/// Checks a JSON value against the subset of JSON Schema our OpenAPI document uses: type (or list of types), enum,
/// properties, required, additionalProperties false, items, minItems, pattern, minLength, maxLength, anyOf and $ref.
package struct JSONSchemaValidator {
    package let schemas: [String: JSONValue]

    package init(document: JSONValue) {
        var schemas: [String: JSONValue] = [:]
        for (name, schema) in document["components"]?["schemas"]?.objectValue ?? [] { schemas[name] = schema }
        self.schemas = schemas
    }

    /// Problems found, each with the path where it is; empty when the value conforms.
    package func validate(_ value: JSONValue, against schema: JSONValue, path: String = "$") -> [String] {
        if let ref = schema["$ref"]?.stringValue {
            let name = String(ref.split(separator: "/").last ?? "")
            guard let target = schemas[name] else { return ["\(path): unresolved \(ref)"] }
            return validate(value, against: target, path: path)
        }
        if let options = schema["anyOf"]?.arrayValue {
            let attempts = options.map { validate(value, against: $0, path: path) }
            return attempts.contains(where: \.isEmpty) ? [] : ["\(path): matches none of anyOf: \(attempts.flatMap { $0 })"]
        }
        var problems: [String] = []
        if let type = schema["type"] {
            let allowed = type.arrayValue?.compactMap(\.stringValue) ?? [type.stringValue ?? ""]
            guard allowed.contains(where: { Self.matches(value, type: $0) }) else {
                return ["\(path): \(value.typeName) is not \(allowed.joined(separator: "|"))"]
            }
        }
        if let options = schema["enum"]?.arrayValue, !options.contains(value) {
            problems.append("\(path): \(value.serialized()) is not in the enum")
        }
        switch value {
        case .string(let s):
            if let pattern = schema["pattern"]?.stringValue, s.range(of: pattern, options: .regularExpression) == nil {
                problems.append("\(path): \"\(s)\" does not match \(pattern)")
            }
            if let min = schema["minLength"]?.int64Value, s.count < min { problems.append("\(path): shorter than \(min)") }
            if let max = schema["maxLength"]?.int64Value, s.count > max { problems.append("\(path): longer than \(max)") }
        case .array(let items):
            if let min = schema["minItems"]?.int64Value, items.count < min { problems.append("\(path): fewer than \(min) items") }
            if let itemSchema = schema["items"] {
                for (i, item) in items.enumerated() { problems += validate(item, against: itemSchema, path: "\(path)[\(i)]") }
            }
        case .object(let members):
            let properties = schema["properties"]?.objectValue ?? []
            for required in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where value[required] == nil {
                problems.append("\(path): missing \(required)")
            }
            for (key, member) in members {
                if let propertySchema = properties.first(where: { $0.0 == key })?.1 {
                    problems += validate(member, against: propertySchema, path: "\(path).\(key)")
                } else if schema["additionalProperties"] == .bool(false) {
                    problems.append("\(path): undocumented member \(key)")
                }
            }
        default:
            break
        }
        return problems
    }

    package static func matches(_ value: JSONValue, type: String) -> Bool {
        switch (value, type) {
        case (.null, "null"), (.bool, "boolean"), (.string, "string"), (.array, "array"), (.object, "object"), (.number, "number"):
            return true
        case (.number(let n), "integer"): return Int64(n) != nil
        default: return false
        }
    }
}
