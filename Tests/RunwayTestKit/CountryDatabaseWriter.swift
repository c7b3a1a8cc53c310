import Foundation
import Glibc

/// Writes a small MaxMind DB file (format 2.0) for tests: an IPv6 search tree with 24-bit records, IPv4 networks at
/// `::a.b.c.d`, each network's record `{"country": {"iso_code": …}}` (or `registered_country` only), and the metadata
/// libmaxminddb checks. Written from the published format: a binary trie of nodes (left record: bit 0, right: bit 1)
/// whose records point to another node, to "no data" (the node count) or into the data section after 16 zero bytes.
package struct CountryDatabaseWriter {
    package struct Network {
        /// The network's 16 address bytes and its prefix length in the IPv6 tree.
        package let bytes: [UInt8]
        package let prefix: Int
        package let country: String
        package let registeredOnly: Bool
    }

    package private(set) var networks: [Network] = []

    package init() {}

    /// `cidr` is `a.b.c.d/n` or an IPv6 `prefix/n`; `registeredOnly` stores only `registered_country`.
    package mutating func add(_ cidr: String, _ country: String, registeredOnly: Bool = false) {
        let parts = cidr.split(separator: "/")
        let address = String(parts[0])
        let length = Int(parts[1])!
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            let bytes = withUnsafeBytes(of: v4) { Array($0) }
            networks.append(Network(bytes: [UInt8](repeating: 0, count: 12) + bytes, prefix: 96 + length, country: country, registeredOnly: registeredOnly))
        } else {
            var v6 = in6_addr()
            precondition(inet_pton(AF_INET6, address, &v6) == 1, "not an address: \(address)")
            networks.append(Network(bytes: withUnsafeBytes(of: v6) { Array($0) }, prefix: length, country: country, registeredOnly: registeredOnly))
        }
    }

    /// The file's bytes.
    package func bytes() -> [UInt8] {
        // The trie: each node's two records, as .node(index), .data(offset) or .empty.
        enum Record { case empty, node(Int), data(Int) }
        var nodes: [[Record]] = [[.empty, .empty]]
        var data: [UInt8] = []
        var offsets: [String: Int] = [:]
        for network in networks {
            let key = network.country + (network.registeredOnly ? "/registered" : "")
            let offset = offsets[key] ?? {
                let start = data.count
                let country = Self.map([("iso_code", Self.string(network.country))])
                data += Self.map([(network.registeredOnly ? "registered_country" : "country", country)])
                return start
            }()
            offsets[key] = offset
            var node = 0
            for bit in 0..<network.prefix {
                let side = Int(network.bytes[bit / 8] >> (7 - UInt8(bit % 8))) & 1
                if bit == network.prefix - 1 {
                    nodes[node][side] = .data(offset)
                } else if case .node(let next) = nodes[node][side] {
                    node = next
                } else {
                    nodes.append([.empty, .empty])
                    nodes[node][side] = .node(nodes.count - 1)
                    node = nodes.count - 1
                }
            }
        }
        let count = nodes.count
        var file: [UInt8] = []
        for node in nodes {
            for record in node {
                let value: Int = switch record {
                case .empty: count
                case .node(let index): index
                case .data(let offset): count + 16 + offset
                }
                file += [UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
            }
        }
        file += [UInt8](repeating: 0, count: 16) + data
        file += [0xab, 0xcd, 0xef] + Array("MaxMind.com".utf8)
        file += Self.map([
            ("binary_format_major_version", Self.unsigned(2, type: 5)), ("binary_format_minor_version", Self.unsigned(0, type: 5)),
            ("build_epoch", Self.extended(9, Self.bigEndian(1_700_000_000))), ("database_type", Self.string("LinkRunway-Test-Country")),
            ("description", Self.map([("en", Self.string("Countries for LinkRunway's tests"))])),
            ("ip_version", Self.unsigned(6, type: 5)), ("languages", Self.array([Self.string("en")])),
            ("node_count", Self.unsigned(count, type: 6)), ("record_size", Self.unsigned(24, type: 5)),
        ])
        return file
    }

    /// Writes the file into `folder` and returns its path.
    package func write(in folder: String, name: String = "countries.mmdb") throws -> String {
        let path = folder + "/" + name
        try Data(bytes()).write(to: URL(fileURLWithPath: path))
        return path
    }

    // MARK: The data section's encoding: a control byte (type in the top 3 bits, size in the low 5), then the payload.

    package static func control(_ type: Int, size: Int) -> [UInt8] {
        precondition(size < 285, "only fields under 285 bytes are written here")
        // Sizes from 29 say 29 in the control byte and the rest in the byte after the type.
        let (low, extra): (Int, [UInt8]) = size < 29 ? (size, []) : (29, [UInt8(size - 29)])
        return (type <= 7 ? [UInt8(type << 5 | low)] : [UInt8(low), UInt8(type - 7)]) + extra
    }

    package static func string(_ text: String) -> [UInt8] { control(2, size: text.utf8.count) + Array(text.utf8) }

    package static func bigEndian(_ value: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = value
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xff), at: 0)
            rest >>= 8
        }
        return bytes
    }

    /// A uint16 (type 5) or uint32 (type 6), in as few bytes as it needs.
    package static func unsigned(_ value: Int, type: Int) -> [UInt8] {
        let bytes = bigEndian(value)
        return control(type, size: bytes.count) + bytes
    }

    package static func extended(_ type: Int, _ payload: [UInt8]) -> [UInt8] { control(type, size: payload.count) + payload }

    package static func map(_ pairs: [(String, [UInt8])]) -> [UInt8] {
        control(7, size: pairs.count) + pairs.flatMap { string($0.0) + $0.1 }
    }

    package static func array(_ items: [[UInt8]]) -> [UInt8] { control(11, size: items.count) + items.flatMap { $0 } }
}
