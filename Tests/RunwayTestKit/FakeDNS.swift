import Foundation
import Synchronization

/// A DNS server on 127.0.0.1 (UDP) that answers TXT questions from a table and NXDOMAIN otherwise, as a real one would.
package final class FakeDNS: Sendable {
    package let port: UInt16
    private let socket: Int32
    private let records = Mutex<[String: [String]]>([:])

    package init() throws {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        self.socket = socket
        port = UInt16(bigEndian: address.sin_port)
        // The thread closes the socket once it is done with it: closed from `deinit`, its number could go to another
        // file or socket of this process before the thread's next `recvfrom`, which would then read from that one.
        Thread { [weak self] in
            defer { close(socket) }
            var buffer = [UInt8](repeating: 0, count: 512)
            while true {
                var peer = sockaddr_in()
                var peerLength = socklen_t(MemoryLayout<sockaddr_in>.size)
                let n = withUnsafeMutablePointer(to: &peer) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(socket, &buffer, buffer.count, 0, $0, &peerLength) }
                }
                guard n > 0, let self else { return }
                guard let reply = self.answer(Array(buffer.prefix(n))) else { continue }
                _ = withUnsafePointer(to: &peer) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(socket, reply, reply.count, 0, $0, peerLength) }
                }
            }
        }.start()
    }

    /// Wakes the thread (a shut-down socket's `recvfrom` returns), which then closes the socket.
    deinit { shutdown(socket, Int32(SHUT_RDWR)) }

    /// Publishes `values` as the TXT records of `name`.
    package func publish(_ name: String, _ values: [String]) { records.withLock { $0[name.lowercased()] = values } }

    /// The reply to one query: its id and question, then a TXT answer per value (NXDOMAIN for an unknown name).
    package func answer(_ query: [UInt8]) -> [UInt8]? {
        guard query.count > 12 else { return nil }
        var at = 12, labels: [String] = []
        while at < query.count, query[at] != 0 {
            let length = Int(query[at])
            guard at + 1 + length < query.count else { return nil }
            labels.append(String(decoding: query[(at + 1)...(at + length)], as: UTF8.self))
            at += 1 + length
        }
        let questionEnd = at + 5
        guard questionEnd <= query.count else { return nil }
        let values = records.withLock { $0[labels.joined(separator: ".").lowercased()] }
        var reply = Array(query[0..<2]) + [0x81, values == nil ? 0x83 : 0x80, 0, 1, 0, UInt8(values?.count ?? 0), 0, 0, 0, 0]
        reply += query[12..<questionEnd]
        for value in values ?? [] {
            let text = Array(value.utf8)
            reply += [0xc0, 0x0c, 0, 16, 0, 1, 0, 0, 0, 60, UInt8((text.count + 1) >> 8), UInt8((text.count + 1) & 0xff), UInt8(text.count)] + text
        }
        return reply
    }
}
