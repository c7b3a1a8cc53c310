import CResolv
import Foundation

/// DNS TXT records, asked of the system's resolvers or of one given server (`LINKRUNWAY_DNS_SERVER`).
public enum TXTLookup {
    /// A DNS server to ask instead of the system's: an IPv4 address and port.
    public struct Server: Sendable, Equatable {
        public let address: String
        public let port: Int

        /// `192.0.2.53` or `192.0.2.53:5353`; nil for anything else.
        public init?(_ text: String) {
            let parts = text.split(separator: ":")
            var probe = in_addr()
            guard (1...2).contains(parts.count), inet_pton(AF_INET, String(parts[0]), &probe) == 1 else { return nil }
            address = String(parts[0])
            guard let port = parts.count == 2 ? Int(parts[1]) : 53, (1...65535).contains(port) else { return nil }
            self.port = port
        }
    }

    /// The TXT records of `name`: empty when there are none, nil when no answer could be had. Runs on a thread of its
    /// own (the resolver blocks).
    public static func records(_ name: String, server: Server?) async -> [String]? {
        await withCheckedContinuation { continuation in
            Thread {
                var buffer = [CChar](repeating: 0, count: 16_384)
                let count = server.map { server in
                    lr_txt_lookup(name, server.address, Int32(server.port), &buffer, Int32(buffer.count))
                } ?? lr_txt_lookup(name, nil, 0, &buffer, Int32(buffer.count))
                guard count >= 0 else { return continuation.resume(returning: nil) }
                let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                continuation.resume(returning: text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init))
            }.start()
        }
    }
}
