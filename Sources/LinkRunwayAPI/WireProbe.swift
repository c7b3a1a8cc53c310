import Foundation

/// The decoder behind `WireShape`: it records what a type's `init(from:)` asks for and answers with stand-ins (empty
/// strings, zeros, a type's first case, one list item, one map entry) so that decoding runs to its end.
enum WireProbe {
    /// Deeper than any wire type nests; only a type that contains itself gets there.
    static let maxDepth = 32

    /// A stand-in value of `type` and its shape.
    static func probe<T: Decodable>(_ type: T.Type, depth: Int) throws -> (value: T, shape: WireShape) {
        if let value = "" as? T, T.self == String.self { return (value, .string) }
        if let value = false as? T, T.self == Bool.self { return (value, .boolean) }
        // trap-safe: T is the type checked on this line
        if let integer = T.self as? any FixedWidthInteger.Type { return (integer.zero as! T, .integer) }
        // trap-safe: T is the type checked on this line
        if let floating = T.self as? any BinaryFloatingPoint.Type { return (floating.zero as! T, .number) }
        if T.self == Decimal.self { return (Decimal() as! T, .number) }  // trap-safe: T is the type checked on this line
        if T.self == JSONLiteral.self { return (JSONLiteral.null as! T, .anyJSON) }  // trap-safe: T is the type checked on this line
        // trap-safe: T is the enumeration checked on this line
        if let enumeration = T.self as? any WireEnumeration.Type { return (enumeration.anyValue as! T, .values(enumeration.wireValues)) }
        guard depth < maxDepth else { throw WireProbeError.tooDeep(String(describing: T.self)) }
        let recorder = Recorder()
        let value = try T(from: Decoder(recorder: recorder, depth: depth + 1))
        if let described = T.self as? any DescribedWireType.Type { return (value, .described(described)) }
        return (value, recorder.shape(named: String(describing: T.self)))
    }

    /// What one `init(from:)` asked for.
    final class Recorder {
        enum Container { case none, keyed, unkeyed, single }
        enum Entry {
            case field(WireField)
            /// A `nestedContainer(forKey:)`: its shape is known once decoding is over.
            case nested(key: String, Recorder)
        }

        var container = Container.none
        var entries: [Entry] = []
        /// Keys whose null was asked for: the type accepts them absent or null.
        var nullable: Set<String> = []
        /// `allKeys` was read: the object is a map with any keys, not a fixed set of fields.
        var readAllKeys = false
        /// The shape of a list's item or of a single value.
        var inner: WireShape?
        /// A list's item read through a nested container: its shape is known once decoding is over.
        var nestedItem: Recorder?

        var fields: [WireField] {
            entries.map { entry in
                switch entry {
                case .field(var field):
                    if nullable.contains(field.key) { field.required = false }
                    return field
                case .nested(let key, let recorder):
                    return WireField(key: key, shape: recorder.shape(named: key), required: !nullable.contains(key))
                }
            }
        }

        func shape(named name: String) -> WireShape {
            switch container {
            case .keyed: return readAllKeys ? .map(fields.first?.shape ?? .anyJSON) : .undescribed(name, fields)
            case .unkeyed: return .list(inner ?? nestedItem?.shape(named: "item") ?? .anyJSON)
            case .single, .none: return inner ?? .anyJSON
            }
        }

        func record<T: Decodable>(_ type: T.Type, key: String, required: Bool, depth: Int) throws -> T {
            let (value, shape) = try WireProbe.probe(type, depth: depth)
            entries.append(.field(WireField(key: key, shape: shape, required: required)))
            return value
        }

        func record<T: Decodable>(_ type: T.Type, depth: Int) throws -> T {
            let (value, shape) = try WireProbe.probe(type, depth: depth)
            inner = shape
            return value
        }
    }

    struct Decoder: Swift.Decoder {
        let recorder: Recorder
        let depth: Int
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            recorder.container = .keyed
            return KeyedDecodingContainer(Keyed(recorder: recorder, depth: depth))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            recorder.container = .unkeyed
            return Unkeyed(recorder: recorder, depth: depth)
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            recorder.container = .single
            return Single(recorder: recorder, depth: depth)
        }
    }
}
