import CCurl
import Foundation

/// What the operator lets outbound requests reach.
public struct OutboundPolicy: Sendable, Equatable {
    /// Private, loopback and link-local targets, and plain `http://`, for a server on a private network
    /// (`LINKRUNWAY_OUTBOUND_PRIVATE_TARGETS`). Off by default.
    public var allowPrivateTargets: Bool
    /// The ports a URL may name (`LINKRUNWAY_OUTBOUND_PORTS`); nil for the default: 443, or any port when private
    /// targets are allowed. Checked again at the address connected to.
    public var allowedPorts: Set<Int>?

    public init(allowPrivateTargets: Bool = false, allowedPorts: Set<Int>? = nil) {
        self.allowPrivateTargets = allowPrivateTargets
        self.allowedPorts = allowedPorts
    }

    /// Whether a connection to `port` may be made.
    public func allows(port: Int) -> Bool {
        if let allowedPorts { return allowedPorts.contains(port) }
        return allowPrivateTargets || port == 443
    }

    /// Why a URL may not be sent to, checked when a tenant gives it: https only, and no host that means this machine or
    /// a private network (unless allowed). Nil when it may be tried.
    public func refusal(url text: String) -> String? {
        guard text.utf8.count <= 2048, let components = URLComponents(string: text), let host = components.host, !host.isEmpty,
              components.user == nil, components.password == nil else {
            return "must be an absolute https:// URL"
        }
        let scheme = components.scheme?.lowercased()
        if allowPrivateTargets {
            guard scheme == "https" || scheme == "http" else { return "must be an https:// or http:// URL" }
        } else {
            guard scheme == "https" else { return "must be an https:// URL" }
        }
        if !allows(port: components.port ?? (scheme == "http" ? 80 : 443)) {
            return "must use port \((allowedPorts ?? [443]).sorted().map(String.init).joined(separator: ", ")) (LINKRUNWAY_OUTBOUND_PORTS allows others)"
        }
        if allowPrivateTargets { return nil }
        // An IPv6 host, with or without the brackets URLComponents may keep.
        let written = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return OutboundAddress.refusal(host: written).map { "must not name a \($0) address or host" }
    }
}

/// One POST sent with libcurl: no redirect followed, no proxy from the environment, and the address actually
/// connected to checked against the policy (a name can resolve to a private address after it was accepted).
public enum OutboundPost {
    /// The outcome of a POST, with a short stable reason for a failure (the transport's own text is never kept: it
    /// would turn the delivery log into a port scanner).
    public enum Outcome: Sendable, Equatable {
        case delivered(status: Int)
        /// `dns_failed`, `connect_failed`, `blocked_address`, `blocked_port`, `blocked_scheme`, `tls_failed`, `timeout`,
        /// `http_<status>` (a 3xx included: redirects are not followed) or `send_failed`.
        case failed(reason: String, status: Int?)
    }

    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// Sends on a thread of its own (libcurl blocks), never on Swift's cooperative pool.
    public static func send(url: String, headers: [String: String], body: [UInt8], timeoutSeconds: Double,
                            policy: OutboundPolicy) async -> Outcome {
        if let refusal = policy.refusal(url: url) {
            let reason = refusal.contains("port") ? "blocked_port" : refusal.contains("address") ? "blocked_address" : "blocked_scheme"
            return .failed(reason: reason, status: nil)
        }
        return await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: perform(url: url, headers: headers, body: body, timeoutSeconds: timeoutSeconds, policy: policy)) }
                .start()
        }
    }

    /// Set by the socket callback; read after the transfer.
    private final class Guard {
        let policy: OutboundPolicy
        var blocked = false
        var blockedPort = false
        init(policy: OutboundPolicy) { self.policy = policy }
    }

    static func perform(url: String, headers: [String: String], body: [UInt8], timeoutSeconds: Double, policy: OutboundPolicy) -> Outcome {
        guard initialized, let handle = curl_easy_init() else { return .failed(reason: "send_failed", status: nil) }
        defer { curl_easy_cleanup(handle) }
        let check = Guard(policy: policy)
        var list: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(list) }
        for (name, value) in headers { list = curl_slist_append(list, "\(name): \(value)") }
        list = curl_slist_append(list, "Expect:")
        let milliseconds = max(1, Int(timeoutSeconds * 1000))
        let code: CURLcode = url.withCString { urlText in
            body.withUnsafeBytes { bytes in
                _ = lr_curl_set_pointer(handle, CURLOPT_URL, urlText)
                _ = lr_curl_set_pointer(handle, CURLOPT_PROTOCOLS_STR, policy.allowPrivateTargets ? "http,https" : "https")
                _ = lr_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)
                _ = lr_curl_set_pointer(handle, CURLOPT_PROXY, "")
                _ = lr_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
                _ = lr_curl_set_long(handle, CURLOPT_TIMEOUT_MS, milliseconds)
                _ = lr_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, min(milliseconds, 5000))
                _ = lr_curl_set_long(handle, CURLOPT_POST, 1)
                _ = lr_curl_set_pointer(handle, CURLOPT_POSTFIELDS, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1))
                _ = lr_curl_set_size(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
                _ = lr_curl_set_pointer(handle, CURLOPT_HTTPHEADER, list)
                _ = lr_curl_set_pointer(handle, CURLOPT_USERAGENT, "LinkRunway")
                _ = lr_curl_set_write(handle) { _, size, count, _ in size * count }
                _ = lr_curl_set_pointer(handle, CURLOPT_OPENSOCKETDATA, Unmanaged.passUnretained(check).toOpaque())
                _ = lr_curl_set_open_socket(handle) { context, _, address in
                    guard let context, let address else { return -1 }
                    let check = Unmanaged<Guard>.fromOpaque(context).takeUnretainedValue()
                    if !check.policy.allowPrivateTargets, OutboundPost.refusal(address) != nil {
                        check.blocked = true
                        return -1
                    }
                    if let port = OutboundPost.port(address), !check.policy.allows(port: port) {
                        check.blockedPort = true
                        return -1
                    }
                    return socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
                }
                return withExtendedLifetime(check) { curl_easy_perform(handle) }
            }
        }
        switch code {
        case CURLE_OK:
            let status = lr_curl_response_code(handle)
            return (200..<300).contains(status) ? .delivered(status: status) : .failed(reason: "http_\(status)", status: status)
        case CURLE_COULDNT_RESOLVE_HOST: return .failed(reason: "dns_failed", status: nil)
        case CURLE_COULDNT_CONNECT:
            return .failed(reason: check.blocked ? "blocked_address" : check.blockedPort ? "blocked_port" : "connect_failed", status: nil)
        case CURLE_OPERATION_TIMEDOUT: return .failed(reason: "timeout", status: nil)
        case CURLE_UNSUPPORTED_PROTOCOL: return .failed(reason: "blocked_scheme", status: nil)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE,
             CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE,
             CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT:
            return .failed(reason: "tls_failed", status: nil)
        default: return .failed(reason: "send_failed", status: nil)
        }
    }

    /// The policy's verdict on the address a connection is about to be opened to. libcurl's `curl_sockaddr` ends in a
    /// `sockaddr` that has room for the whole address (`addrlen` bytes), IPv6 included, so it is read in place.
    /// The port a connection is about to be opened to; nil for an address family other than IPv4 and IPv6.
    static func port(_ address: UnsafePointer<curl_sockaddr>) -> Int? {
        // trap-safe: a stored property always has an offset
        let raw = UnsafeRawPointer(address) + MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr)!
        switch address.pointee.family {
        case AF_INET where address.pointee.addrlen >= MemoryLayout<sockaddr_in>.size:
            return Int(UInt16(bigEndian: raw.loadUnaligned(as: sockaddr_in.self).sin_port))
        case AF_INET6 where address.pointee.addrlen >= MemoryLayout<sockaddr_in6>.size:
            return Int(UInt16(bigEndian: raw.loadUnaligned(as: sockaddr_in6.self).sin6_port))
        default:
            return nil
        }
    }

    static func refusal(_ address: UnsafePointer<curl_sockaddr>) -> String? {
        // trap-safe: a stored property always has an offset
        let raw = UnsafeRawPointer(address) + MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr)!
        switch address.pointee.family {
        case AF_INET where address.pointee.addrlen >= MemoryLayout<sockaddr_in>.size:
            return OutboundAddress.refusal(ipv4: UInt32(bigEndian: raw.loadUnaligned(as: sockaddr_in.self).sin_addr.s_addr))
        case AF_INET6 where address.pointee.addrlen >= MemoryLayout<sockaddr_in6>.size:
            let ipv6 = raw.loadUnaligned(as: sockaddr_in6.self).sin6_addr
            return OutboundAddress.refusal(ipv6: withUnsafeBytes(of: ipv6) { Array($0) })
        default:
            return "unknown address family"
        }
    }
}
