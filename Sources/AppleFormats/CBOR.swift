/// A decoded CBOR (RFC 8949) item. Only definite lengths; App Attest uses nothing else.
public indirect enum CBOR: Sendable, Equatable {
    case unsigned(UInt64)
    /// -1 - n, kept as n.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    case map([(CBOR, CBOR)])
    case tagged(UInt64, CBOR)
    case bool(Bool)
    case null
    case undefined
    case float(Double)

    public static func == (lhs: CBOR, rhs: CBOR) -> Bool {
        switch (lhs, rhs) {
        case let (.unsigned(a), .unsigned(b)), let (.negative(a), .negative(b)): return a == b
        case let (.bytes(a), .bytes(b)): return a == b
        case let (.text(a), .text(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.map(a), .map(b)): return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case let (.tagged(t, a), .tagged(u, b)): return t == u && a == b
        case let (.bool(a), .bool(b)): return a == b
        case (.null, .null), (.undefined, .undefined): return true
        case let (.float(a), .float(b)): return a == b || (a.isNaN && b.isNaN)
        default: return false
        }
    }

    /// The value of a text key in a map.
    public subscript(key: String) -> CBOR? {
        guard case .map(let pairs) = self else { return nil }
        return pairs.first(where: { $0.0 == .text(key) })?.1
    }

    /// The value of an integer key in a map (COSE keys).
    public subscript(int key: Int) -> CBOR? {
        guard case .map(let pairs) = self else { return nil }
        let wanted: CBOR = key >= 0 ? .unsigned(UInt64(key)) : .negative(UInt64(-1 - key))
        return pairs.first(where: { $0.0 == wanted })?.1
    }

    public var bytesValue: [UInt8]? { if case .bytes(let b) = self { return b } else { return nil } }
    public var textValue: String? { if case .text(let t) = self { return t } else { return nil } }
    public var arrayValue: [CBOR]? { if case .array(let a) = self { return a } else { return nil } }
}

public struct CBORError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public let offset: Int
    public var description: String { "\(message) at byte \(offset)" }
}

/// Decodes one CBOR item from untrusted bytes: bounded depth and item count, lengths checked against the input
/// before anything is allocated, nothing after the item.
public struct CBORDecoder: Sendable {
    public var maxDepth: Int
    public var maxItems: Int

    public init(maxDepth: Int = 16, maxItems: Int = 10_000) {
        self.maxDepth = maxDepth
        self.maxItems = maxItems
    }

    public func decode(_ bytes: [UInt8]) throws(CBORError) -> CBOR {
        var reader = CBORReader(bytes: bytes, maxDepth: maxDepth, maxItems: maxItems)
        let item = try reader.item(depth: 0)
        guard reader.index == bytes.count else { throw reader.error("data after the item") }
        return item
    }

    /// Decodes the item the bytes start with, and says how many bytes it took (what follows is the caller's).
    public func decodePrefix(_ bytes: ArraySlice<UInt8>) throws(CBORError) -> (item: CBOR, length: Int) {
        var reader = CBORReader(bytes: Array(bytes), maxDepth: maxDepth, maxItems: maxItems)
        let item = try reader.item(depth: 0)
        return (item, reader.index)
    }
}

private struct CBORReader {
    let bytes: [UInt8]
    let maxDepth: Int
    let maxItems: Int
    var index = 0
    var items = 0

    init(bytes: [UInt8], maxDepth: Int, maxItems: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.maxItems = maxItems
    }

    func error(_ message: String) -> CBORError { CBORError(message: message, offset: index) }

    mutating func byte() throws(CBORError) -> UInt8 {
        guard index < bytes.count else { throw error("unexpected end") }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func take(_ count: UInt64) throws(CBORError) -> ArraySlice<UInt8> {
        guard count <= UInt64(bytes.count - index) else { throw error("length beyond the input") }
        let start = index
        index += Int(count)
        return bytes[start..<index]  // trap-safe: count <= bytes.count - index, checked above
    }

    /// The argument of a head: the low five bits, or the 1, 2, 4 or 8 bytes after it.
    mutating func argument(_ info: UInt8) throws(CBORError) -> UInt64 {
        switch info {
        case 0..<24: return UInt64(info)
        case 24: return UInt64(try byte())
        case 25: return try take(2).reduce(0) { $0 << 8 | UInt64($1) }
        case 26: return try take(4).reduce(0) { $0 << 8 | UInt64($1) }
        case 27: return try take(8).reduce(0) { $0 << 8 | UInt64($1) }
        default: throw error(info == 31 ? "indefinite lengths are not accepted" : "reserved additional information")
        }
    }

    mutating func item(depth: Int) throws(CBORError) -> CBOR {
        guard depth <= maxDepth else { throw error("nesting deeper than \(maxDepth)") }
        items += 1
        guard items <= maxItems else { throw error("more than \(maxItems) items") }
        let head = try byte()
        let major = head >> 5, info = head & 0x1f
        switch major {
        case 0: return .unsigned(try argument(info))
        case 1: return .negative(try argument(info))
        case 2: return .bytes(Array(try take(try argument(info))))
        case 3:
            guard let text = String(validating: try take(try argument(info)), as: UTF8.self) else { throw error("invalid UTF-8") }
            return .text(text)
        case 4:
            let count = try argument(info)
            // Every element takes at least a byte: a count beyond the input is a lie, refused before allocating.
            guard count <= UInt64(bytes.count - index) else { throw error("array longer than the input") }
            var elements: [CBOR] = []
            elements.reserveCapacity(Int(count))
            for _ in 0..<count { elements.append(try item(depth: depth + 1)) }
            return .array(elements)
        case 5:
            let count = try argument(info)
            guard count <= UInt64(bytes.count - index) / 2 else { throw error("map longer than the input") }
            var pairs: [(CBOR, CBOR)] = []
            pairs.reserveCapacity(Int(count))
            for _ in 0..<count {
                let key = try item(depth: depth + 1)
                pairs.append((key, try item(depth: depth + 1)))
            }
            return .map(pairs)
        case 6:
            let tag = try argument(info)
            return .tagged(tag, try item(depth: depth + 1))
        default:
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            case 23: return .undefined
            case 25: return .float(Double(Float16Bits.decode(UInt16(try argument(25)))))
            case 26: return .float(Double(Float(bitPattern: UInt32(try argument(26)))))
            case 27: return .float(Double(bitPattern: try argument(27)))
            default: throw error("unsupported simple value")
            }
        }
    }
}

/// IEEE half precision to Float, without relying on the platform's Float16.
enum Float16Bits {
    static func decode(_ bits: UInt16) -> Float {
        let sign: Float = bits & 0x8000 == 0 ? 1 : -1
        let exponent = Int((bits >> 10) & 0x1f), fraction = Float(bits & 0x3ff)
        switch exponent {
        case 0: return sign * fraction * powf2(-24)
        case 31: return fraction == 0 ? sign * .infinity : .nan
        default: return sign * (1 + fraction / 1024) * powf2(exponent - 15)
        }
    }

    static func powf2(_ n: Int) -> Float { n >= 0 ? Float(1 << n) : 1 / Float(1 << -n) }
}
