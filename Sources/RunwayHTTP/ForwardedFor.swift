import Foundation

/// Addresses (single ones or CIDR ranges, IPv4 or IPv6) whose forwarded headers are believed.
public struct TrustedProxies: Sendable, Equatable {
    struct Range: Sendable, Equatable {
        let bytes: [UInt8]
        let prefix: Int
    }

    let ranges: [Range]

    public static let none = TrustedProxies(ranges: [])

    init(ranges: [Range]) { self.ranges = ranges }

    /// From `10.0.0.1, 192.168.0.0/16, ::1`; nil when an entry is not an address or range.
    public init?(_ list: String) {
        var ranges: [Range] = []
        for item in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            let parts = item.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard let bytes = Self.bytes(parts[0]) else { return nil }
            let prefix = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
            guard let prefix, (0...(bytes.count * 8)).contains(prefix) else { return nil }
            ranges.append(Range(bytes: bytes, prefix: prefix))
        }
        self.ranges = ranges
    }

    public var isEmpty: Bool { ranges.isEmpty }

    public func contains(_ address: String) -> Bool {
        guard let bytes = Self.bytes(address) else { return false }
        return ranges.contains { range in
            guard range.bytes.count == bytes.count else { return false }
            var remaining = range.prefix
            for (a, b) in zip(range.bytes, bytes) where remaining > 0 {
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if a & mask != b & mask { return false }
                remaining -= bits
            }
            return true
        }
    }

    /// 127.0.0.0/8 or ::1 (IPv4-mapped included).
    public static func isLoopback(_ address: String) -> Bool {
        guard let bytes = bytes(address) else { return false }
        // trap-safe: bytes gives 4 or 16 bytes
        return bytes.count == 4 ? bytes[0] == 127 : bytes == Array(repeating: 0, count: 15) + [1]
    }

    /// 4 or 16 bytes; IPv4-mapped IPv6 (`::ffff:a.b.c.d`) as the IPv4 address.
    static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let all = withUnsafeBytes(of: &v6) { Array($0) }
        // trap-safe: all is the 16 bytes of an in6_addr
        if all[0..<10].allSatisfy({ $0 == 0 }) && all[10] == 0xFF && all[11] == 0xFF { return Array(all[12...]) }
        return all
    }
}

/// When the connection comes from a trusted proxy, takes the client's address from `X-Forwarded-For` (the rightmost
/// entry that is not itself a trusted proxy) and the scheme from `X-Forwarded-Proto`. From anyone else those headers
/// are ignored, so a client cannot forge its address.
public struct ForwardedForMiddleware: Middleware {
    let trusted: TrustedProxies
    /// Told of a peer that is not trusted yet says the client used TLS (`X-Forwarded-Proto: https`): a proxy that
    /// terminates TLS but is missing from the trusted list.
    let untrustedTLSProxy: (@Sendable (String) -> Void)?

    /// Where a proxy of the operator's can be: this machine or a private network (anyone on the internet can send the
    /// header too, and is no misconfigured proxy).
    static let proxyLike = TrustedProxies("127.0.0.0/8, ::1, 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7") ?? .none

    /// Headers a proxy adds for the client it relays; a request holding any of them is not the proxy's own.
    static let forwardingHeaders = ["X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host", "X-Real-IP", "Forwarded", "Via"]

    public init(trusted: TrustedProxies, untrustedTLSProxy: (@Sendable (String) -> Void)? = nil) {
        self.trusted = trusted
        self.untrustedTLSProxy = untrustedTLSProxy
    }

    public func handle(_ request: HTTPRequest, context: RequestContext, next: Responder) async throws -> HTTPResponse {
        try await next(client(request), context)
    }

    /// The request as the client behind the trusted proxies sent it.
    func client(_ request: HTTPRequest) -> HTTPRequest {
        guard let peer = request.remoteAddress else { return request }
        let isTrusted = !trusted.isEmpty && trusted.contains(peer)
        var request = request
        request.connectionPeer = peer
        request.connectionPeerTrusted = isTrusted
        guard isTrusted else {
            if let untrustedTLSProxy, request.headers["X-Forwarded-Proto"]?.lowercased().contains("https") == true,
               Self.proxyLike.contains(peer) {
                untrustedTLSProxy(peer)
            }
            return request
        }
        let chain = request.headers.filter { $0.name.lowercased() == "x-forwarded-for" }.flatMap { $0.value.split(separator: ",") }
            .map { String($0).trimmingCharacters(in: .whitespaces) }.filter { TrustedProxies.bytes($0) != nil }
        if let client = chain.last(where: { !trusted.contains($0) }) ?? chain.first {
            request.remoteAddress = client
        }
        if let proto = request.headers["X-Forwarded-Proto"]?.split(separator: ",").last.map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }),
           proto == "https" || proto == "http" {
            request.scheme = proto
        }
        return request
    }
}
