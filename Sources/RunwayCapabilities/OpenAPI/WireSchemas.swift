import LinkRunwayAPI
import RunwayHTTP
import RunwayJSON

/// JSON Schemas (2020-12, as OpenAPI 3.1 uses it) derived from the wire types: the shape from each type's own
/// `Decodable` conformance (`WireShape`), the words and limits from its notes. An object allows no other keys; a
/// request's optional field may also be null; a type with a component name is referred to, any other is written inline.
struct WireSchemas {
    /// The components derived so far, each once.
    private(set) var components: [(String, JSONValue)] = []
    /// What the wire types get wrong (see `SchemaReference.problems`).
    private(set) var problems: [String] = []
    /// Component types met but not yet derived, and whether a caller sends them.
    private var pending: [(type: any DescribedWireType.Type, sent: Bool)] = []

    /// The component of `type` and every component it refers to, itself first.
    static func derive(_ type: any DescribedWireType.Type) -> WireSchemas {
        var derivation = WireSchemas()
        derivation.pending = [(type, type.role == .request)]
        while !derivation.pending.isEmpty {
            let (next, sent) = derivation.pending.removeFirst()
            guard let name = next.componentName, !derivation.components.contains(where: { $0.0 == name }) else { continue }
            derivation.components.append((name, derivation.object(next, sent: sent)))
        }
        return derivation
    }

    /// The object schema of `type`; `sent` when a caller sends it (inside a request).
    private mutating func object(_ type: any DescribedWireType.Type, sent: Bool) -> JSONValue {
        let fields: [WireField]
        do {
            fields = try WireShape.fields(of: type)
        } catch {
            preconditionFailure("the OpenAPI schema of \(type) cannot be derived: \(error)")
        }
        problems += Self.check(type, fields: fields, sent: sent)
        var properties: [(String, JSONValue)] = []
        for field in fields {
            let nullable = type.role == .request && !field.required
            properties.append((field.key, property(field.shape, type.notes[field.key], nullable: nullable, sent: sent)))
        }
        return Self.objectSchema(properties, required: fields.filter(\.required).map(\.key), description: type.summary)
    }

    static func objectSchema(_ properties: [(String, JSONValue)], required: [String], description: String?) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", "object")]
        if let description { members.append(("description", .string(description))) }
        members.append(("properties", .object(properties)))
        members.append(("required", .array(required.map { .string($0) })))
        members.append(("additionalProperties", false))
        return .object(members)
    }

    /// The schema of one field (or list item, or map value).
    private mutating func property(_ shape: WireShape, _ note: FieldNote?, nullable: Bool, sent: Bool) -> JSONValue {
        var members: [(String, JSONValue)]
        var description = note?.description
        switch shape {
        case .described(let type):
            if let name = type.componentName {
                pending.append((type, sent))
                let target = JSONValue.string("#/components/schemas/\(name)")
                members = nullable ? [("anyOf", [.object([("$ref", target)]), .object([("type", "null")])])] : [("$ref", target)]
                return .object(members + Self.described(description))
            }
            members = (object(type, sent: sent).objectValue ?? []).filter { $0.0 != "description" }
            description = description ?? type.summary
        case .undescribed(let name, let fields):
            problems.append("\(name) is not a DescribedWireType")
            let properties = fields.map { ($0.key, property($0.shape, nil, nullable: false, sent: sent)) }
            members = Self.objectSchema(properties, required: fields.filter(\.required).map(\.key), description: nil).objectValue ?? []
        case .string:
            members = [("type", "string")]
            if let values = note?.values { members.append(("enum", .array(values.map { .string($0) }))) }
        case .values(let values):
            members = [("type", "string"), ("enum", .array(values.map { .string($0) }))]
        case .integer:
            members = [("type", "integer")]
        case .number:
            members = [("type", "number")]
        case .boolean:
            members = [("type", "boolean")]
        case .anyJSON:
            members = []
        case .list(let item):
            members = [("type", "array"), ("items", property(item, note?.items, nullable: false, sent: sent))]
        case .map(let value):
            members = [("type", "object")]
            if case .anyJSON = value {} else {
                members.append(("additionalProperties", property(value, nil, nullable: false, sent: sent)))
            }
        }
        if nullable { members = Self.allowingNull(members) }
        return .object(members + Self.described(description) + Self.limits(note, of: shape))
    }

    /// `members` with `null` among the types (and the values, for an enumeration) it allows.
    static func allowingNull(_ members: [(String, JSONValue)]) -> [(String, JSONValue)] {
        members.map { key, value in
            switch (key, value) {
            case ("type", .string(let name)): return (key, [.string(name), "null"])
            case ("enum", .array(let values)): return (key, .array(values + [.null]))
            default: return (key, value)
            }
        }
    }

    private static func described(_ description: String?) -> [(String, JSONValue)] {
        description.map { [("description", .string($0))] } ?? []
    }

    /// The note's limits that apply to `shape`.
    static func limits(_ note: FieldNote?, of shape: WireShape) -> [(String, JSONValue)] {
        guard let note else { return [] }
        let number = { (value: Int) in JSONValue.number(String(value)) }
        let limits: [(String, JSONValue?)]
        switch shape {
        case .string:
            limits = [("pattern", note.pattern.map { .string($0) }), ("minLength", note.minLength.map(number)),
                      ("maxLength", note.maxLength.map(number)), ("format", note.format.map { .string($0) })]
        case .integer, .number:
            limits = [("minimum", note.minimum.map { .number(String($0)) }), ("maximum", note.maximum.map { .number(String($0)) })]
        case .list:
            limits = [("minItems", note.minItems.map(number)), ("maxItems", note.maxItems.map(number))]
        default:
            limits = []
        }
        return limits.compactMap { key, value in value.map { (key, $0) } }
    }
}

extension SchemaReference {
    /// The component schema of a wire type.
    package static func of(_ type: any DescribedWireType.Type) -> SchemaReference {
        guard let name = type.componentName else { preconditionFailure("\(type) is written inline; give it a component name to refer to it") }
        let derived = WireSchemas.derive(type)
        return SchemaReference(name: name, components: derived.components, problems: derived.problems)
    }
}

extension ResponseDoc {
    /// A JSON answer of a wire type.
    static func json(_ status: Int, _ type: any DescribedWireType.Type, _ description: String) -> ResponseDoc {
        ResponseDoc(status: status, description: description, schema: .of(type))
    }
}
