/// The probe's containers. `Decodable` asks for each basic type through its own method; every one of them records
/// through the same generic one.
extension WireProbe {
    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let recorder: Recorder
        let depth: Int
        var codingPath: [any CodingKey] { [] }

        /// One made-up key, so that a map decodes one value and shows its type.
        var allKeys: [Key] {
            recorder.readAllKeys = true
            return Key(stringValue: "key").map { [$0] } ?? []
        }

        func contains(_ key: Key) -> Bool { true }

        func decodeNil(forKey key: Key) throws -> Bool {
            recorder.nullable.insert(key.stringValue)
            return false
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try recorder.record(type, key: key.stringValue, required: true, depth: depth)
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            try recorder.record(type, key: key.stringValue, required: false, depth: depth)
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            let nested = Recorder()
            recorder.entries.append(.nested(key: key.stringValue, nested))
            return try Decoder(recorder: nested, depth: depth + 1).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            let nested = Recorder()
            recorder.entries.append(.nested(key: key.stringValue, nested))
            return try Decoder(recorder: nested, depth: depth + 1).unkeyedContainer()
        }

        func superDecoder() throws -> any Swift.Decoder {
            guard let key = Key(stringValue: "super") else { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "\(Key.self) has no key super")) }
            return try superDecoder(forKey: key)
        }

        func superDecoder(forKey key: Key) throws -> any Swift.Decoder {
            let nested = Recorder()
            recorder.entries.append(.nested(key: key.stringValue, nested))
            return Decoder(recorder: nested, depth: depth + 1)
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(generic: type, key) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(generic: type, key) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(generic: type, key) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(generic: type, key) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(generic: type, key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(generic: type, key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(generic: type, key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(generic: type, key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(generic: type, key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(generic: type, key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(generic: type, key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(generic: type, key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(generic: type, key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(generic: type, key) }

        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try optional(generic: type, key) }
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try optional(generic: type, key) }
        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try optional(generic: type, key) }
        func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try optional(generic: type, key) }
        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optional(generic: type, key) }
        func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try optional(generic: type, key) }
        func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try optional(generic: type, key) }
        func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try optional(generic: type, key) }
        func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optional(generic: type, key) }
        func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try optional(generic: type, key) }
        func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try optional(generic: type, key) }
        func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try optional(generic: type, key) }
        func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try optional(generic: type, key) }
        func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try optional(generic: type, key) }

        private func decode<T: Decodable>(generic type: T.Type, _ key: Key) throws -> T {
            try recorder.record(type, key: key.stringValue, required: true, depth: depth)
        }

        private func optional<T: Decodable>(generic type: T.Type, _ key: Key) throws -> T? {
            try recorder.record(type, key: key.stringValue, required: false, depth: depth)
        }
    }

    /// A list: it holds one item, whose type is the list's.
    struct Unkeyed: UnkeyedDecodingContainer {
        let recorder: Recorder
        let depth: Int
        var codingPath: [any CodingKey] { [] }
        var count: Int? { nil }
        var isAtEnd: Bool { recorder.inner != nil || recorder.nestedItem != nil }
        var currentIndex: Int { isAtEnd ? 1 : 0 }

        mutating func decodeNil() throws -> Bool { false }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try recorder.record(type, depth: depth) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let nested = Recorder()
            recorder.nestedItem = nested
            return try Decoder(recorder: nested, depth: depth + 1).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let nested = Recorder()
            recorder.nestedItem = nested
            return try Decoder(recorder: nested, depth: depth + 1).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Swift.Decoder { Decoder(recorder: recorder, depth: depth) }

        mutating func decode(_ type: Bool.Type) throws -> Bool { try recorder.record(type, depth: depth) }
        mutating func decode(_ type: String.Type) throws -> String { try recorder.record(type, depth: depth) }
        mutating func decode(_ type: Double.Type) throws -> Double { try recorder.record(type, depth: depth) }
        mutating func decode(_ type: Float.Type) throws -> Float { try recorder.record(type, depth: depth) }
        mutating func decode(_ type: Int.Type) throws -> Int { try recorder.record(type, depth: depth) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try recorder.record(type, depth: depth) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try recorder.record(type, depth: depth) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try recorder.record(type, depth: depth) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try recorder.record(type, depth: depth) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try recorder.record(type, depth: depth) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try recorder.record(type, depth: depth) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try recorder.record(type, depth: depth) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try recorder.record(type, depth: depth) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try recorder.record(type, depth: depth) }
    }

    /// A single value: its shape is the type it is read as.
    struct Single: SingleValueDecodingContainer {
        let recorder: Recorder
        let depth: Int
        var codingPath: [any CodingKey] { [] }

        func decodeNil() -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try recorder.record(type, depth: depth) }

        func decode(_ type: Bool.Type) throws -> Bool { try recorder.record(type, depth: depth) }
        func decode(_ type: String.Type) throws -> String { try recorder.record(type, depth: depth) }
        func decode(_ type: Double.Type) throws -> Double { try recorder.record(type, depth: depth) }
        func decode(_ type: Float.Type) throws -> Float { try recorder.record(type, depth: depth) }
        func decode(_ type: Int.Type) throws -> Int { try recorder.record(type, depth: depth) }
        func decode(_ type: Int8.Type) throws -> Int8 { try recorder.record(type, depth: depth) }
        func decode(_ type: Int16.Type) throws -> Int16 { try recorder.record(type, depth: depth) }
        func decode(_ type: Int32.Type) throws -> Int32 { try recorder.record(type, depth: depth) }
        func decode(_ type: Int64.Type) throws -> Int64 { try recorder.record(type, depth: depth) }
        func decode(_ type: UInt.Type) throws -> UInt { try recorder.record(type, depth: depth) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try recorder.record(type, depth: depth) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try recorder.record(type, depth: depth) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try recorder.record(type, depth: depth) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try recorder.record(type, depth: depth) }
    }
}
