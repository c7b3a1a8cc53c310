import Foundation

/// Encodes `Encodable` values as compact JSON with sorted keys, as Foundation's `JSONEncoder` does with
/// `[.sortedKeys, .withoutEscapingSlashes]` (integral doubles without a fraction, nil optionals left out), in a
/// fraction of its time: values go into a small tree of their own and are written straight into bytes.
/// Non-finite numbers are refused, as Foundation refuses them.
public struct CompactJSONEncoder: Sendable {
    public init() {}

    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        if let writable = value as? any CompactJSONWritable { return writable.compactJSON() }
        let root = Slot()
        try value.encode(to: TreeEncoder(slot: root, codingPath: []))
        var out: [UInt8] = []
        out.reserveCapacity(256)
        root.node.write(into: &out)
        return out
    }

    public struct InvalidValue: Error, CustomStringConvertible {
        public let description: String
    }
}

/// A value being encoded; containers hold their children's slots, so a nested container fills its slot in place.
final class Slot {
    var node: Node = .null
}

enum Node {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([Node])
    case object([(String, Node)])
    /// JSON a value wrote itself (`CompactJSONWritable`).
    case written([UInt8])
    /// A nested container, filled in place through its slot.
    case container(Slot)

    func write(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.utf8)
        case .string(let s): Self.writeString(s, into: &out)
        case .container(let slot): slot.node.write(into: &out)
        case .written(let bytes): out.append(contentsOf: bytes)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            // Sorted by key, byte by byte (insertion sort: objects are small and mostly in order already); a key encoded
            // twice keeps its last value.
            var order = Array(members.indices)
            for i in 1..<max(1, order.count) {
                var j = i
                while j > 0 && Self.precedes(members[order[j]].0, members[order[j - 1]].0) {
                    order.swapAt(j, j - 1)
                    j -= 1
                }
            }
            var first = true
            for (position, index) in order.enumerated() {
                let key = members[index].0
                if position + 1 < order.count && members[order[position + 1]].0 == key { continue }
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                Self.writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                members[index].1.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func precedes(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings need no escape: copied whole.
        let plain = s.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where byte < 0x20 || byte == 0x22 || byte == 0x5C { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if plain == true {
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    static func number(_ value: Double, at path: [any CodingKey]) throws -> Node {
        guard value.isFinite else {
            throw CompactJSONEncoder.InvalidValue(description: "\(value) at \(path.map(\.stringValue).joined(separator: ".")) is not a JSON number")
        }
        if value == 0 { return .number(value.sign == .minus ? "-0" : "0") }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return .number(String(Int64(value))) }
        return .number(value.description)
    }
}

struct TreeEncoder: Encoder {
    let slot: Slot
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = slot.node {} else { slot.node = .object([]) }
        return KeyedEncodingContainer(KeyedTree<Key>(slot: slot, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = slot.node {} else { slot.node = .array([]) }
        return UnkeyedTree(slot: slot, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleTree(slot: slot, codingPath: codingPath) }
}

/// Encodes one value into a slot: the part every container shares.
protocol TreeWriting {
    var codingPath: [any CodingKey] { get }
}

extension TreeWriting {
    func node<T: Encodable>(_ value: T, path: [any CodingKey]) throws -> Node {
        // The common types by their metatype (a comparison of pointers), the rest by a cast.
        if T.self == String.self { return .string(unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return .number(String(unsafeBitCast(value, to: Int.self))) }
        if T.self == Int64.self { return .number(String(unsafeBitCast(value, to: Int64.self))) }
        if T.self == Bool.self { return .bool(unsafeBitCast(value, to: Bool.self)) }
        if T.self == Double.self { return try Node.number(unsafeBitCast(value, to: Double.self), at: path) }
        if T.self == Int32.self { return .number(String(unsafeBitCast(value, to: Int32.self))) }
        if T.self == UInt64.self { return .number(String(unsafeBitCast(value, to: UInt64.self))) }
        if T.self == UInt.self { return .number(String(unsafeBitCast(value, to: UInt.self))) }
        if T.self == UInt32.self { return .number(String(unsafeBitCast(value, to: UInt32.self))) }
        if T.self == Int16.self { return .number(String(unsafeBitCast(value, to: Int16.self))) }
        if T.self == UInt16.self { return .number(String(unsafeBitCast(value, to: UInt16.self))) }
        if T.self == Int8.self { return .number(String(unsafeBitCast(value, to: Int8.self))) }
        if T.self == UInt8.self { return .number(String(unsafeBitCast(value, to: UInt8.self))) }
        if T.self == Float.self {
            let v = unsafeBitCast(value, to: Float.self)
            return try Node.number(Double(v.description) ?? Double(v), at: path)
        }
        switch value {
        case let v as URL: return .string(v.absoluteString)
        case let v as Data: return .string(v.base64EncodedString())
        case let v as Decimal:
            // As Foundation writes it: the digits of its description (a JSON literal's numbers are kept as Decimal).
            guard v.isFinite else { throw CompactJSONEncoder.InvalidValue(description: "\(v) is not a JSON number") }
            return .number(v.description)
        case let v as any CompactJSONWritable: return .written(v.compactJSON())
        default:
            // Every primitive is matched above, so encoding here reaches containers and ends.
            let slot = Slot()
            try value.encode(to: TreeEncoder(slot: slot, codingPath: path))
            return slot.node
        }
    }
}

struct KeyedTree<Key: CodingKey>: KeyedEncodingContainerProtocol, TreeWriting {
    let slot: Slot
    let codingPath: [any CodingKey]

    private func add(_ key: Key, _ node: Node) {
        guard case .object(var members) = slot.node else { return }
        slot.node = .null  // keeps `members` uniquely referenced while it grows
        members.append((key.stringValue, node))
        slot.node = .object(members)
    }

    private func append(_ key: Key, _ child: Slot) { add(key, .container(child)) }

    mutating func encodeNil(forKey key: Key) throws { add(key, .null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { add(key, .bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { add(key, .string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws { add(key, try Node.number(value, at: codingPath + [key])) }
    mutating func encode(_ value: Int, forKey key: Key) throws { add(key, .number(String(value))) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { add(key, .number(String(value))) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { add(key, try node(value, path: codingPath + [key])) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let child = Slot()
        child.node = .object([])
        append(key, child)
        return KeyedEncodingContainer(KeyedTree<NestedKey>(slot: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = Slot()
        child.node = .array([])
        append(key, child)
        return UnkeyedTree(slot: child, codingPath: codingPath + [key])
    }

    // trap-safe: no type encoded by this encoder has keys that cannot be made from a string
    mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let child = Slot()
        append(key, child)
        return TreeEncoder(slot: child, codingPath: codingPath + [key])
    }
}

struct UnkeyedTree: UnkeyedEncodingContainer, TreeWriting {
    let slot: Slot
    let codingPath: [any CodingKey]

    var count: Int {
        if case .array(let items) = slot.node { return items.count }
        return 0
    }

    private struct Index: CodingKey {
        let intValue: Int?
        var stringValue: String { String(intValue ?? 0) }
        init(_ index: Int) { intValue = index }
        init?(stringValue: String) { return nil }
        init?(intValue: Int) { self.intValue = intValue }
    }

    private func add(_ node: Node) {
        guard case .array(var items) = slot.node else { return }
        slot.node = .null  // keeps `items` uniquely referenced while it grows
        items.append(node)
        slot.node = .array(items)
    }

    private func append(_ child: Slot) { add(.container(child)) }

    mutating func encodeNil() throws { add(.null) }
    mutating func encode(_ value: Bool) throws { add(.bool(value)) }
    mutating func encode(_ value: String) throws { add(.string(value)) }
    mutating func encode(_ value: Int) throws { add(.number(String(value))) }
    mutating func encode(_ value: Int64) throws { add(.number(String(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws { add(try node(value, path: codingPath + [Index(count)])) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = Slot()
        child.node = .object([])
        let path = codingPath + [Index(count)]
        append(child)
        return KeyedEncodingContainer(KeyedTree<NestedKey>(slot: child, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = Slot()
        child.node = .array([])
        let path = codingPath + [Index(count)]
        append(child)
        return UnkeyedTree(slot: child, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let child = Slot()
        let path = codingPath + [Index(count)]
        append(child)
        return TreeEncoder(slot: child, codingPath: path)
    }
}

struct SingleTree: SingleValueEncodingContainer, TreeWriting {
    let slot: Slot
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { slot.node = .null }
    mutating func encode(_ value: Bool) throws { slot.node = .bool(value) }
    mutating func encode(_ value: String) throws { slot.node = .string(value) }
    mutating func encode(_ value: Double) throws { slot.node = try Node.number(value, at: codingPath) }
    mutating func encode(_ value: Int) throws { slot.node = .number(String(value)) }
    mutating func encode(_ value: Int64) throws { slot.node = .number(String(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { slot.node = try node(value, path: codingPath) }
}
