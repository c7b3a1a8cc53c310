#if canImport(Glibc)
import Glibc
#endif

/// Which addresses the server may send to on a tenant's behalf (webhooks, forwarded postbacks). Anything that reaches
/// this machine or a private network is refused unless the operator allows private targets: loopback, private
/// (RFC 1918), carrier-grade NAT, link-local (cloud metadata lives there), unique local, site-local, multicast,
/// unspecified, reserved and documentation ranges, and IPv6 forms that carry one of those IPv4 addresses (mapped,
/// compatible, NAT64, 6to4).
public enum OutboundAddress {
    /// Why an address is refused, or nil for a public one.
    public static func refusal(ipv4 address: UInt32) -> String? {
        let a = address >> 24, b = (address >> 16) & 0xff, c = (address >> 8) & 0xff
        switch a {
        case 0: return "unspecified"
        case 10: return "private"
        case 127: return "loopback"
        case 224...239: return "multicast"
        case 240...255: return "reserved"
        default: break
        }
        if a == 100 && (64...127).contains(b) { return "carrier-grade NAT" }
        if a == 169 && b == 254 { return "link-local" }
        if a == 172 && (16...31).contains(b) { return "private" }
        if a == 192 && b == 168 { return "private" }
        if a == 192 && b == 0 && (c == 0 || c == 2) { return "reserved" }
        if a == 198 && (b == 18 || b == 19) { return "reserved" }
        if (a == 198 && b == 51 && c == 100) || (a == 203 && b == 0 && c == 113) { return "documentation" }
        return nil
    }

    /// Why an IPv6 address (16 bytes, network order) is refused, or nil for a public one.
    public static func refusal(ipv6 bytes: [UInt8]) -> String? {
        precondition(bytes.count == 16)
        let embedded = UInt32(bytes[12]) << 24 | UInt32(bytes[13]) << 16 | UInt32(bytes[14]) << 8 | UInt32(bytes[15])
        // trap-safe: bytes has 16 elements, a precondition above
        if bytes[0..<15].allSatisfy({ $0 == 0 }) { return bytes[15] == 1 ? "loopback" : (bytes[15] == 0 ? "unspecified" : refusal(ipv4: embedded) ?? "reserved") }
        // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible): the IPv4 address decides.
        // trap-safe: bytes has 16 elements
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && ((bytes[10] == 0xff && bytes[11] == 0xff) || (bytes[10] == 0 && bytes[11] == 0)) {
            return refusal(ipv4: embedded).map { "IPv4-mapped \($0)" }
        }
        // 64:ff9b::/96 (NAT64) carries the IPv4 address in its last four bytes.
        // trap-safe: bytes has 16 elements
        if bytes[0..<12] == [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0][...] { return refusal(ipv4: embedded).map { "NAT64 \($0)" } }
        // 2002::/16 (6to4) carries it in bytes 2 to 5.
        if bytes[0] == 0x20 && bytes[1] == 0x02 {
            let sixToFour = UInt32(bytes[2]) << 24 | UInt32(bytes[3]) << 16 | UInt32(bytes[4]) << 8 | UInt32(bytes[5])
            return refusal(ipv4: sixToFour).map { "6to4 \($0)" }
        }
        if bytes[0] & 0xfe == 0xfc { return "unique local" }
        if bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80 { return "link-local" }
        if bytes[0] == 0xfe && bytes[1] & 0xc0 == 0xc0 { return "site-local" }
        if bytes[0] == 0xff { return "multicast" }
        if bytes[0] == 0x20 && bytes[1] == 0x01 && bytes[2] == 0x0d && bytes[3] == 0xb8 { return "documentation" }
        return nil
    }

    /// A host as written in a URL, read the way resolvers and HTTP clients read it: an IPv4 address in any spelling
    /// `inet_aton` accepts (decimal `2130706433`, hex `0x7f000001`, octal `0177.0.0.1`, short `127.1`), or an IPv6
    /// address in brackets. Nil for a name.
    public enum Literal: Equatable {
        case ipv4(UInt32)
        case ipv6([UInt8])
    }

    public static func literal(_ host: String) -> Literal? {
        if host.hasPrefix("[") && host.hasSuffix("]") {
            var address = in6_addr()
            var text = String(host.dropFirst().dropLast())
            if let zone = text.firstIndex(of: "%") { text = String(text[..<zone]) }  // trap-safe: zone is an index of text
            guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
            return .ipv6(withUnsafeBytes(of: &address) { Array($0) })
        }
        var address = in_addr()
        guard inet_aton(host, &address) != 0 else { return nil }
        return .ipv4(UInt32(bigEndian: address.s_addr))
    }

    /// Why a URL host is refused before anything is sent: a literal address in a refused range, or a name that always
    /// means this machine or a private network (`localhost`, `*.localhost`, `*.local`, `*.internal`, one label). Nil
    /// when the host may be tried; the address finally connected to is checked again at send time.
    public static func refusal(host: String) -> String? {
        let host = host.lowercased().trimmingCharacters(in: ".")
        switch literal(host) {
        case .ipv4(let address): return refusal(ipv4: address)
        case .ipv6(let bytes): return refusal(ipv6: bytes)
        case nil: break
        }
        if host.isEmpty { return "empty" }
        if host == "localhost" || host.hasSuffix(".localhost") { return "loopback" }
        if host.hasSuffix(".local") || host.hasSuffix(".internal") || host.hasSuffix(".home.arpa") || !host.contains(".") { return "private name" }
        return nil
    }
}

extension String {
    func trimmingCharacters(in character: Character) -> String {
        var text = Substring(self)
        while text.first == character { text = text.dropFirst() }
        while text.last == character { text = text.dropLast() }
        return String(text)
    }
}
