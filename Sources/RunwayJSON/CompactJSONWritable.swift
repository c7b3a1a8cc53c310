/// A value that writes its compact JSON itself, byte for byte what `CompactJSONEncoder` writes for its `Encodable`
/// form (keys sorted, nil optionals left out), without building the encoder's tree: for the rows an answer holds by
/// the thousand. Each conforming type needs a test that holds the two forms equal.
public protocol CompactJSONWritable: Encodable {
    func write(into writer: inout CompactJSONObjectWriter)
}

/// Writes one JSON object; the members must come in the order of their keys' bytes, as the encoder sorts them.
public struct CompactJSONObjectWriter {
    public private(set) var bytes: [UInt8]
    private var empty = true

    init(capacity: Int = 128) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    private mutating func key(_ key: String) {
        if !empty { bytes.append(UInt8(ascii: ",")) }
        empty = false
        Node.writeString(key, into: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    public mutating func member(_ name: String, _ value: String?) {
        guard let value else { return }
        key(name)
        Node.writeString(value, into: &bytes)
    }

    public mutating func member(_ name: String, _ value: Int?) {
        guard let value else { return }
        key(name)
        bytes.append(contentsOf: String(value).utf8)
    }

    public mutating func member(_ name: String, _ value: Int64?) {
        guard let value else { return }
        key(name)
        bytes.append(contentsOf: String(value).utf8)
    }

    public mutating func member(_ name: String, _ value: Bool?) {
        guard let value else { return }
        key(name)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    public mutating func member(_ name: String, _ value: [String]?) {
        guard let value else { return }
        key(name)
        bytes.append(UInt8(ascii: "["))
        for (index, text) in value.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            Node.writeString(text, into: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// A nested object that writes itself.
    public mutating func member(_ name: String, _ value: (some CompactJSONWritable)?) {
        guard let value else { return }
        key(name)
        object(value)
    }

    /// An array of objects that write themselves.
    public mutating func member(_ name: String, _ value: [some CompactJSONWritable]?) {
        guard let value else { return }
        key(name)
        bytes.append(UInt8(ascii: "["))
        for (index, item) in value.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            object(item)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    private mutating func object(_ value: some CompactJSONWritable) {
        bytes.append(UInt8(ascii: "{"))
        empty = true
        value.write(into: &self)
        bytes.append(UInt8(ascii: "}"))
        empty = false
    }

    /// A map of numbers as an object, its keys sorted by their bytes.
    public mutating func member(_ name: String, _ value: [String: Int]?) {
        guard let value else { return }
        key(name)
        map(value.map { ($0.key, Int64($0.value)) })
    }

    public mutating func member(_ name: String, _ value: [String: Int64]?) {
        guard let value else { return }
        key(name)
        map(value.map { ($0.key, $0.value) })
    }

    private mutating func map(_ members: [(String, Int64)]) {
        bytes.append(UInt8(ascii: "{"))
        for (index, (key, number)) in members.sorted(by: { Node.precedes($0.0, $1.0) }).enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            Node.writeString(key, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            bytes.append(contentsOf: String(number).utf8)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func close() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}

extension CompactJSONWritable {
    func compactJSON() -> [UInt8] {
        var writer = CompactJSONObjectWriter()
        write(into: &writer)
        return writer.close()
    }
}
