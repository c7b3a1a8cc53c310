import LinkRunwayAPI

/// What a wire type's description can get wrong, found while its schema is derived, so that notes cannot go stale.
extension WireSchemas {
    /// Notes for keys `type` does not decode, limits that do not fit their field, and optional fields a caller sends
    /// in a type that does not say it is a request.
    static func check(_ type: any DescribedWireType.Type, fields: [WireField], sent: Bool) -> [String] {
        var problems: [String] = []
        let keys = Set(fields.map(\.key))
        for key in type.notes.keys.sorted() where !keys.contains(key) {
            problems.append("\(type): a note for \"\(key)\", which it does not decode")
        }
        for field in fields {
            if let note = type.notes[field.key] {
                problems += misfits(note, field.shape).map { "\(type).\(field.key): \($0)" }
            }
        }
        if sent, type.role != .request, fields.contains(where: { !$0.required }) {
            problems.append("\(type): callers send it, so its role is .request (its optional fields may be null)")
        }
        return problems
    }

    /// The keywords of `note` that `shape` cannot have.
    static func misfits(_ note: FieldNote, _ shape: WireShape) -> [String] {
        var set: [String: Bool] = [
            "pattern": note.pattern != nil, "minLength": note.minLength != nil, "maxLength": note.maxLength != nil,
            "format": note.format != nil, "values": note.values != nil, "minimum": note.minimum != nil, "maximum": note.maximum != nil,
            "minItems": note.minItems != nil, "maxItems": note.maxItems != nil, "items": note.items != nil,
        ]
        switch shape {
        case .string: ["pattern", "minLength", "maxLength", "format", "values"].forEach { set[$0] = false }
        case .integer, .number: ["minimum", "maximum"].forEach { set[$0] = false }
        case .list(let item):
            ["minItems", "maxItems", "items"].forEach { set[$0] = false }
            if let items = note.items { return misfits(items, item).map { "items: \($0)" } + Self.names(set) }
        default: break
        }
        return Self.names(set)
    }

    private static func names(_ set: [String: Bool]) -> [String] {
        set.filter(\.value).keys.sorted().map { "\($0) does not fit this field" }
    }
}
