import Foundation
import RunwayTestKit
import Testing

/// Slow and greedy clients against the real binary: trickled headers, oversized and slow bodies, and the server's
/// budget for bodies held at once.
///
/// `make test` runs this suite in a test process of its own, one test at a time, so its thousands of connections and
/// the timings it measures do not share the machine with the rest of the suite.
@Suite("Slow and greedy clients", .serialized)
struct SlowClientTests {
    /// A raw TCP connection to 127.0.0.1 that the test writes to at its own pace.
    final class Socket {
        let fd: Int32

        init?(port: UInt16) {
            guard let fd = Self.connected(port: port) else { return nil }
            self.fd = fd
        }

        /// A connected socket, or nil with it closed; outside `init`, whose failure would close it again in `deinit`.
        static func connected(port: UInt16) -> Int32? {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return nil }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            guard connected == 0 else { close(fd); return nil }
            return fd
        }

        deinit { close(fd) }

        /// False once the server has closed the connection.
        @discardableResult
        func send(_ text: String) -> Bool { send(Array(text.utf8)) }

        @discardableResult
        func send(_ bytes: [UInt8]) -> Bool {
            bytes.withUnsafeBytes { Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
        }

        /// Whether the server closed the connection (reads what is there without waiting).
        var closedByServer: Bool {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if n == 0 { return true }
                if n < 0 { return errno != EAGAIN && errno != EWOULDBLOCK }
            }
        }

        /// The status of the response that arrives within `seconds`, if any.
        func status(within seconds: Int) -> Int? {
            var timeout = timeval(tv_sec: seconds, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 12 else { return nil }
            return Int(String(decoding: buffer[9..<12], as: UTF8.self))
        }
    }

    static func residentKiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    @Test("thousands of connections trickling their headers are closed at the deadline, oldest first past the cap, while others are served")
    func trickledHeaders() async throws {
        let directory = TemporaryDirectory()
        let server = try await ServerProcess(databaseURL: "sqlite:" + directory.path("slow.db"), environment: [
            "LINKRUNWAY_HEADER_DEADLINE": "2", "LINKRUNWAY_MAX_CONNECTIONS_PER_ADDRESS": "0", "LINKRUNWAY_MAX_PENDING_CONNECTIONS": "1500"])
        let port = server.port
        let before = Self.residentKiB(server.process.pid)
        let (opened, servedDuring, closedAfter) = try await offloaded { () -> (Int, Int?, Int) in
            var sockets: [Socket] = []
            for _ in 0..<2000 {
                guard let socket = Socket(port: port) else { break }
                socket.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n")
                sockets.append(socket)
            }
            // Everyone trickles a header line every 300 ms; a newcomer asks for /healthz meanwhile.
            var served: Int?
            for round in 0..<12 {
                for socket in sockets { socket.send("X-Slow-\(round): 1\r\n") }
                if round == 3, let client = Socket(port: port) {
                    client.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    served = client.status(within: 5)
                }
                usleep(300_000)
            }
            return (sockets.count, served, sockets.filter(\.closedByServer).count)
        }
        let after = Self.residentKiB(server.process.pid)
        #expect(opened == 2000)
        #expect(servedDuring == 200, "another client is served while 2,000 connections trickle")
        #expect(closedAfter == opened, "every trickling connection was closed by the server (\(closedAfter) of \(opened))")
        #expect(after - before < 200 * 1024, "memory stays bounded: \(before) KiB before, \(after) KiB after")
        #expect(try await server.stop(signal: SIGTERM) == 0)
    }

    @Test("a route's body limit applies before the body is read, slow bodies are cut off, and the bodies held at once are bounded")
    func greedyBodies() async throws {
        let directory = TemporaryDirectory()
        let server = try await ServerProcess(databaseURL: "sqlite:" + directory.path("bodies.db"), environment: [
            "LINKRUNWAY_MAX_BUFFERED_BODY_BYTES": "1048576", "LINKRUNWAY_MAX_CONNECTIONS_PER_ADDRESS": "0"])
        let port = server.port
        try await offloaded {
            // POST /v1/domains takes 16 KiB: a larger Content-Length is refused before a byte of the body is sent.
            let big = try #require(Socket(port: port))
            big.send("POST /v1/domains HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n")
            #expect(big.status(within: 5) == 413)

            // Two bodies of 900 KB at once: the second one past the 1 MiB budget is answered 503 server_busy.
            let chunk = [UInt8](repeating: 0x61, count: 600_000)
            let first = try #require(Socket(port: port)), second = try #require(Socket(port: port))
            first.send("POST /unknown HTTP/1.1\r\nHost: localhost\r\nContent-Length: 900000\r\n\r\n")
            first.send(chunk)
            usleep(200_000)
            second.send("POST /unknown HTTP/1.1\r\nHost: localhost\r\nContent-Length: 900000\r\n\r\n")
            second.send(chunk)
            second.send([UInt8](repeating: 0x61, count: 300_000))
            #expect(second.status(within: 10) == 503)
            first.send([UInt8](repeating: 0x61, count: 300_000))
            #expect(first.status(within: 10) == 404, "the first body is read to the end and answered")

            // A body that trickles at a few bytes a second is cut off once its grace is over.
            let slow = try #require(Socket(port: port))
            slow.send("POST /unknown HTTP/1.1\r\nHost: localhost\r\nContent-Length: 10000\r\n\r\n")
            var cut = false
            for _ in 0..<40 where !cut {
                slow.send("aaaa")
                usleep(250_000)
                cut = slow.closedByServer
            }
            #expect(cut, "a body slower than the minimum rate is cut off")
        }
        #expect(try await server.stop(signal: SIGTERM) == 0)
    }
}
