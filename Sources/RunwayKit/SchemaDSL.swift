import RunwayJSON

/// Small builders for JSON Schema (2020-12, as OpenAPI 3.1 uses it).
package enum JSONSchema {
    package static func object(_ properties: [(String, JSONValue)], required: [String], description: String? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", "object")]
        if let description { members.append(("description", .string(description))) }
        members.append(("properties", .object(properties)))
        members.append(("required", .array(required.map { .string($0) })))
        members.append(("additionalProperties", false))
        return .object(members)
    }

    package static func string(_ description: String, pattern: String? = nil, minLength: Int? = nil,
                               maxLength: Int? = nil, format: String? = nil, nullable: Bool = false) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", nullable ? ["string", "null"] : "string"), ("description", .string(description))]
        if let pattern { members.append(("pattern", .string(pattern))) }
        if let minLength { members.append(("minLength", .number(String(minLength)))) }
        if let maxLength { members.append(("maxLength", .number(String(maxLength)))) }
        if let format { members.append(("format", .string(format))) }
        return .object(members)
    }

    package static func enumeration(_ values: [String], _ description: String, nullable: Bool = false) -> JSONValue {
        .object([("type", nullable ? ["string", "null"] : "string"), ("enum", .array(values.map { .string($0) } + (nullable ? [.null] : []))),
                 ("description", .string(description))])
    }

    package static func array(_ items: JSONValue, _ description: String, minItems: Int? = nil, nullable: Bool = false) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", nullable ? ["array", "null"] : "array"), ("items", items), ("description", .string(description))]
        if let minItems { members.append(("minItems", .number(String(minItems)))) }
        return .object(members)
    }

    package static func ref(_ name: String) -> JSONValue { .object([("$ref", .string("#/components/schemas/\(name)"))]) }

    package static func page(of item: String) -> JSONValue {
        object([
            ("items", array(ref(item), "The items of this page.")),
            ("nextCursor", string("Pass as cursor to get the next page; absent on the last page.")),
        ], required: ["items"])
    }

    package static let timestamp = string("UTC time, ISO 8601 with milliseconds.", format: "date-time")
}
