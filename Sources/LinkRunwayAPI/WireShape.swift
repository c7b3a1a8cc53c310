/// The shape of a wire type as its own `Decodable` conformance reads it: which keys, of which Swift types, required
/// (`decode`) or optional (`decodeIfPresent`). Found by running `init(from:)` against a decoder that records every
/// request and answers each with a stand-in value, so a custom `init(from:)` is read the same way as a synthesized one.
public indirect enum WireShape {
    case string
    case integer
    case number
    case boolean
    /// Any JSON value (`JSONLiteral`).
    case anyJSON
    /// A string from a fixed list (a `WireEnumeration`).
    case values([String])
    case list(WireShape)
    /// A JSON object with any keys (`[String: Value]`).
    case map(WireShape)
    /// A described wire type.
    case described(any DescribedWireType.Type)
    /// An object type that is not described: the fields its decoding reads, under its Swift name.
    case undescribed(String, [WireField])

    /// The shape of `type`.
    public static func of(_ type: any Decodable.Type) throws -> WireShape {
        try WireProbe.probe(type, depth: 0).shape
    }

    /// The fields `type` decodes, in the order its `init(from:)` reads them.
    public static func fields(of type: any Decodable.Type) throws -> [WireField] {
        let recorder = WireProbe.Recorder()
        _ = try type.init(from: WireProbe.Decoder(recorder: recorder, depth: 0))
        guard recorder.container == .keyed, !recorder.readAllKeys else { throw WireProbeError.notAnObject(String(describing: type)) }
        return recorder.fields
    }
}

/// One key of a JSON object as a type decodes it.
public struct WireField {
    public var key: String
    public var shape: WireShape
    /// Read with `decode` (the key must be present) rather than `decodeIfPresent`.
    public var required: Bool
}

/// What probing found a type's decoding to be.
public enum WireProbeError: Error, CustomStringConvertible {
    /// Nesting deeper than any wire type (a type that contains itself).
    case tooDeep(String)
    /// A described type must decode a JSON object with named fields.
    case notAnObject(String)

    public var description: String {
        switch self {
        case .tooDeep(let type): return "\(type) nests too deeply to describe (does it contain itself?)"
        case .notAnObject(let type): return "\(type) does not decode a JSON object with named fields"
        }
    }
}
