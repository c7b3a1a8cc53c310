import Foundation

/// The part of a client address that rate limits count: the whole address for IPv4, the /64 network for IPv6. One
/// IPv6 subscriber is given a /64 (often more), so counting each /128 would give an attacker 2^64 fresh buckets.
package enum AddressBucket {
    /// `203.0.113.7` stays itself; `2001:db8:1:2:a:b:c:d` counts as `2001:db8:1:2::/64`; an IPv4-mapped IPv6 address
    /// counts as its IPv4 address. Text that is no address is counted as given.
    package static func key(for address: String) -> String {
        guard address.contains(":") else { return address }
        let bare = address.split(separator: "%", maxSplits: 1).first.map(String.init) ?? address
        var bytes = [UInt8](repeating: 0, count: 16)
        guard inet_pton(AF_INET6, bare, &bytes) == 1 else { return address }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {  // trap-safe: bytes has 16 elements
            return bytes[12..<16].map(String.init).joined(separator: ".")  // trap-safe: bytes has 16 elements
        }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}
