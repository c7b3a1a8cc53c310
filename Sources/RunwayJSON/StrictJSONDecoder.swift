import Foundation

/// Why a request body could not become the expected type. Each case names the field by its path (`a.b[2]`).
public enum JSONDecodeFailure: Error, Sendable, Equatable {
    case syntax(JSONSyntaxError)
    case unknownField(String)
    case missingField(String)
    case invalidField(String, String)
}

/// A type that documents the range of its number fields. `StrictJSONDecoder` refuses a number outside it as the field
/// is read, naming the field, so no code computes with it.
public protocol BoundedNumbers {
    /// The least and the greatest number the member `key` may hold (nil: unbounded on that side); nil when it has none.
    static func bounds(ofNumberAt key: String) -> (minimum: Int64?, maximum: Int64?)?
}

/// Decodes `Decodable` types from JSON and rejects members the type does not read, so typos never pass silently, and
/// numbers outside the bounds a `BoundedNumbers` type gives them.
public struct StrictJSONDecoder: Sendable {
    public var maxDepth: Int

    public init(maxDepth: Int = 64) { self.maxDepth = maxDepth }

    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(JSONDecodeFailure) -> T {
        let value: JSONValue
        do { value = try JSONParser(maxDepth: maxDepth).parse(bytes) } catch { throw .syntax(error) }
        return try decode(type, from: value)
    }

    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws(JSONDecodeFailure) -> T {
        if let readable = T.self as? any StrictlyReadable.Type, let read = readable.read(strictly: value) as? T { return read }
        return try decodeThroughDecoder(type, from: value)
    }

    /// `decode(_:from:)` through the `Decoder` protocol, whatever the type can read itself.
    func decodeThroughDecoder<T: Decodable>(_ type: T.Type, from value: JSONValue) throws(JSONDecodeFailure) -> T {
        let tracker = UsageTracker()
        let decoded: T
        do {
            decoded = try StrictDecoder(value: value, codingPath: [], tracker: tracker).decodeValue(T.self)
        } catch let error as DecodingError {
            throw Self.failure(from: error)
        } catch {
            throw .invalidField("", "\(error)")
        }
        if let unknown = tracker.firstUnknownField() { throw .unknownField(unknown) }
        return decoded
    }

    static func failure(from error: DecodingError) -> JSONDecodeFailure {
        switch error {
        case .keyNotFound(let key, let context):
            return .missingField(fieldPath(context.codingPath + [key]))
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return .invalidField(fieldPath(context.codingPath), context.debugDescription)
        @unknown default:
            return .invalidField("", "\(error)")
        }
    }
}

/// `name`, `a.b`, `items[3].id`; empty for the whole body.
func fieldPath(_ path: [any CodingKey]) -> String {
    var out = ""
    for key in path {
        if let i = key.intValue, key.stringValue == String(i), key is IndexKey {
            out += "[\(i)]"
        } else {
            if !out.isEmpty { out += "." }
            out += key.stringValue
        }
    }
    return out
}

struct IndexKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ index: Int) { stringValue = String(index); intValue = index }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.init(intValue) }
}

/// Lets `JSONValue.init(from:)` take the raw subtree without walking it.
protocol StrictDecoderAccess { var rawValue: JSONValue { get } }

/// Remembers, for every object decoded through a keyed container, which members were read.
final class UsageTracker {
    /// One object's members (in document order) and which of them the type read, by position.
    final class Usage {
        let path: [any CodingKey]
        let keys: [String]
        var used: [Bool]
        var readAll = false
        init(path: [any CodingKey], keys: [String]) {
            self.path = path
            self.keys = keys
            used = Array(repeating: false, count: keys.count)
        }
    }
    private var usages: [Usage] = []

    func register(path: [any CodingKey], keys: [String]) -> Usage {
        let usage = Usage(path: path, keys: keys)
        usages.append(usage)
        return usage
    }

    func firstUnknownField() -> String? {
        for usage in usages where !usage.readAll {
            if let index = usage.used.firstIndex(of: false) {
                return fieldPath(usage.path + [AnyKey(usage.keys[index])])
            }
        }
        return nil
    }
}

final class StrictDecoder: Decoder, StrictDecoderAccess {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let tracker: UsageTracker
    /// The type being decoded from this value, when it bounds its numbers.
    private(set) var bounded: (any BoundedNumbers.Type)?
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var rawValue: JSONValue { value }

    init(value: JSONValue, codingPath: [any CodingKey], tracker: UsageTracker) {
        self.value = value
        self.codingPath = codingPath
        self.tracker = tracker
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw DecodingError.typeMismatch([String: Any].self, .init(codingPath: codingPath, debugDescription: "must be an object, not \(value.typeName)"))
        }
        let usage = tracker.register(path: codingPath, keys: members.map(\.0))
        return KeyedDecodingContainer(StrictKeyedContainer<Key>(members: members, decoder: self, usage: usage))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "must be an array, not \(value.typeName)"))
        }
        return StrictUnkeyedContainer(elements: elements, decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { StrictSingleValue(decoder: self) }

    func child(_ value: JSONValue, key: any CodingKey) -> StrictDecoder {
        StrictDecoder(value: value, codingPath: codingPath + [key], tracker: tracker)
    }

    /// Decodes `T` from this decoder's value. Decimal is read from the number's text (its own Codable form is a
    /// structure, which only Foundation's JSONDecoder special-cases).
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == Decimal.self {
            guard case .number(let text) = value, let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw DecodingError.typeMismatch(type, .init(codingPath: codingPath, debugDescription: "must be a number, not \(value.typeName)"))
            }
            return decimal as! T  // trap-safe: T is Decimal, checked on the line above
        }
        bounded = T.self as? any BoundedNumbers.Type
        return try T(from: self)
    }

    /// Refuses `value`, the member `key` of this decoder's object, when it is a number outside the bounds the type
    /// gives that member.
    func checkBounds(_ value: JSONValue, key: any CodingKey) throws {
        guard let bounded, case .number(let text) = value, let (minimum, maximum) = bounded.bounds(ofNumberAt: key.stringValue) else { return }
        let below: Bool, above: Bool
        if let integer = Int64(text) {
            below = minimum.map { integer < $0 } ?? false
            above = maximum.map { integer > $0 } ?? false
        } else if let number = Double(text), number.isFinite {
            below = minimum.map { number < Double($0) } ?? false
            above = maximum.map { number > Double($0) } ?? false
        } else {
            below = text.hasPrefix("-")
            above = !below
        }
        guard below || above else { return }
        let range = switch (minimum, maximum) {
        case let (low?, high?): "\(low) to \(high)"
        case let (low?, nil): "at least \(low)"
        case let (nil, high?): "at most \(high)"
        case (nil, nil): ""
        }
        throw DecodingError.dataCorrupted(.init(codingPath: codingPath + [key], debugDescription: "must be \(range)"))
    }
}

struct StrictKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [(String, JSONValue)]
    let decoder: StrictDecoder
    let usage: UsageTracker.Usage
    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        usage.readAll = true
        return members.compactMap { Key(stringValue: $0.0) }
    }

    private func lookup(_ key: Key) -> JSONValue? {
        let name = key.stringValue
        guard let index = members.firstIndex(where: { $0.0 == name }) else { return nil }
        usage.used[index] = true
        return members[index].1
    }

    private func require(_ key: Key) throws -> JSONValue {
        guard let value = lookup(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "is required"))
        }
        return value
    }

    func contains(_ key: Key) -> Bool { lookup(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let value = lookup(key) else { return true }
        return value == .null
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        // A null reaches the type, which refuses it ("must be a string, not null") unless it takes null itself.
        let value = try require(key)
        try decoder.checkBounds(value, key: key)
        return try decoder.child(value, key: key).decodeValue(T.self)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = lookup(key), value != .null else { return nil }
        try decoder.checkBounds(value, key: key)
        return try decoder.child(value, key: key).decodeValue(T.self)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.child(try require(key), key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(try require(key), key: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { decoder }

    func superDecoder(forKey key: Key) throws -> any Decoder { decoder.child(try require(key), key: key) }
}

struct StrictUnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let decoder: StrictDecoder
    var currentIndex = 0
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    init(elements: [JSONValue], decoder: StrictDecoder) {
        self.elements = elements
        self.decoder = decoder
    }

    private mutating func next() throws -> StrictDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath + [IndexKey(currentIndex)], debugDescription: "array has too few elements"))
        }
        defer { currentIndex += 1 }
        return decoder.child(elements[currentIndex], key: IndexKey(currentIndex))
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return false }
        if elements[currentIndex] == .null { currentIndex += 1; return true }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try next().decodeValue(T.self)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }

    mutating func superDecoder() throws -> any Decoder { try next() }
}

struct StrictSingleValue: SingleValueDecodingContainer {
    let decoder: StrictDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    var value: JSONValue { decoder.value }

    private func mismatch<T>(_ type: T.Type, _ expected: String) -> DecodingError {
        .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "must be \(expected), not \(value.typeName)"))
    }

    func decodeNil() -> Bool { value == .null }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let b) = value else { throw mismatch(type, "a boolean") }
        return b
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let s) = value else { throw mismatch(type, "a string") }
        // No text the API takes holds NUL, and PostgreSQL could not store it.
        guard !s.utf8.contains(0) else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "must not contain NUL characters"))
        }
        return s
    }

    func decode(_ type: Double.Type) throws -> Double {
        guard case .number(let n) = value, let d = Double(n), d.isFinite else { throw mismatch(type, "a number") }
        return d
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }

    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard case .number(let n) = value else { throw mismatch(type, "an integer") }
        guard let i = T(n) else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "must be an integer in \(T.min)...\(T.max)"))
        }
        return i
    }

    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type) }
}
