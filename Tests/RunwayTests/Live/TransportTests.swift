import Foundation
import RunwayHTTP
import RunwayHTTPServer
import RunwayTestKit
import Synchronization
import Testing

/// Holds back whoever waits on it until it is opened (a handler that must stay in flight as long as a test needs).
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiting.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiting = state.withLock { state in
            state.open = true
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}

/// The libmicrohttpd transport on a real socket.
@Suite("HTTP transport")
struct TransportTests {
    /// A server with small limits whose handler answers `/slow` after `slowMilliseconds`, or once `gate` opens.
    static func start(_ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
                      slowMilliseconds: Int = 300, gate: Gate? = nil) throws -> HTTPServer {
        // A request timeout far beyond any test's need, so a starved machine is not mistaken for a slow handler.
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: 2, maxConnectionsPerAddress: 0,
                                                    connectionTimeoutSeconds: 5, maxBodyBytes: 64 * 1024, requestTimeoutSeconds: 300)
        configure(&configuration)
        let server = HTTPServer(configuration: configuration, logger: Logger(level: .error, sink: .memory())) { request in
            if request.path == "/slow" {
                if let gate { await gate.wait() } else { try? await Task.sleep(for: .milliseconds(slowMilliseconds)) }
            }
            var response = HTTPResponse.text("\(request.method) \(request.path) \(request.body.count) \(request.headers["X-Probe"] ?? "-") \(request.queryValue("q") ?? "-") \(request.remoteAddress ?? "?")")
            response.headers.set("X-Handled", "yes")
            return response
        }
        try server.start()
        return server
    }

    /// Waits until the server is running a handler (a busy machine may take a while to even connect).
    static func waitUntilInFlight(_ server: HTTPServer) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while server.requestsInFlight == 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(server.requestsInFlight > 0)
    }

    @Test("keeps connections alive across requests, and passes method, path, query, headers, body and peer address")
    func keepAlive() async throws {
        let server = try Self.start()
        let port = server.port
        let responses = try await offloaded {
            let connection = try RawHTTPConnection(port: port)
            return try (0..<3).map { i in
                try connection.request("POST", "/echo/\(i)?q=a%20b", headers: ["X-Probe": "p\(i)"], body: String(repeating: "x", count: i * 1000))
            }
        }
        for (i, response) in responses.enumerated() {
            #expect(response.status == 200)
            #expect(response.body == "POST /echo/\(i) \(i * 1000) p\(i) a b 127.0.0.1")
            #expect(response.headers["connection"]?.lowercased() != "close")
            #expect(response.headers["x-handled"] == "yes")
        }
        await server.shutdown()
    }

    @Test("refuses a body over the limit with 413 before reading it, by Content-Length or as it streams")
    func bodyLimit() async throws {
        let server = try Self.start()
        let port = server.port
        let declared = try await offloaded {
            let connection = try RawHTTPConnection(port: port)
            try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n")
            return try connection.readResponse()
        }
        #expect(declared.status == 413)
        #expect(declared.body.contains("body_too_large"))
        let chunked = try await offloaded {
            let connection = try RawHTTPConnection(port: port)
            try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            for _ in 0..<20 { try connection.send("1000\r\n" + String(repeating: "y", count: 4096) + "\r\n") }
            try connection.send("0\r\n\r\n")
            return try connection.readResponse()
        }
        #expect(chunked.status == 413)
        // The server is still fine.
        let after = try await offloaded { try RawHTTPConnection(port: port).request("GET", "/ok") }
        #expect(after.status == 200)
        await server.shutdown()
    }

    @Test("refuses oversized headers without harm")
    func headerLimit() async throws {
        let server = try Self.start { $0.maxHeaderBytes = 8 * 1024 }
        let port = server.port
        let response = try await offloaded {
            try RawHTTPConnection(port: port).request("GET", "/big", headers: ["X-Big": String(repeating: "h", count: 20_000)])
        }
        #expect([413, 431].contains(response.status))
        let after = try await offloaded { try RawHTTPConnection(port: port).request("GET", "/ok") }
        #expect(after.status == 200)
        await server.shutdown()
    }

    @Test("cuts off a client that sends too slowly")
    func slowClient() async throws {
        let server = try Self.start { $0.connectionTimeoutSeconds = 1 }
        let port = server.port
        let closed = try await offloaded {
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET /ok HTTP/1.1\r\nHost: x\r\n")  // never finishes its headers
            return connection.waitForClose(seconds: 4)
        }
        #expect(closed)
        await server.shutdown()
    }

    @Test("limits connections per client address")
    func perAddressLimit() async throws {
        // A long idle timeout and header deadline (the guard cuts a keep-alive connection that sends no next request
        // within it): on a loaded machine the first connection must not be cut while the third is refused.
        let server = try Self.start {
            $0.maxConnectionsPerAddress = 2
            $0.connectionTimeoutSeconds = 60
            $0.headerDeadlineSeconds = 60
        }
        let port = server.port
        let outcome = try await offloaded {
            let first = try RawHTTPConnection(port: port)
            let second = try RawHTTPConnection(port: port)
            _ = try first.request("GET", "/ok")
            _ = try second.request("GET", "/ok")
            let third = try RawHTTPConnection(port: port)
            try? third.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
            let refused = third.waitForClose(seconds: 2)
            let stillServed = try first.request("GET", "/ok").status
            return (refused, stillServed)
        }
        #expect(outcome.0)
        #expect(outcome.1 == 200)
        await server.shutdown()
    }

    @Test("answers 503 when a handler takes longer than the request timeout")
    func requestTimeout() async throws {
        let server = try Self.start({ $0.requestTimeoutSeconds = 0.3 }, slowMilliseconds: 30_000)
        let port = server.port
        let response = try await offloaded { try RawHTTPConnection(port: port).request("GET", "/slow") }
        #expect(response.status == 503)
        #expect(response.body.contains("request_timeout"))
        await server.shutdown()
    }

    @Test("a running server dropped by its owner keeps answering instead of its callbacks reaching freed memory, and goes once stopped")
    func retainedWhileRunning() async throws {
        weak var dropped: HTTPServer?
        var port: UInt16 = 0
        do {
            let server = try Self.start()
            dropped = server
            port = server.port
        }
        let response = try await offloaded { [port] in try RawHTTPConnection(port: port).request("GET", "/after") }
        #expect(response.status == 200 && response.body.hasPrefix("GET /after"))
        do {
            let server = try #require(dropped, "the daemon's callbacks hold the server while it runs")
            await server.shutdown()
        }
        // Connections release what they hold as libmicrohttpd closes them; give a loaded machine time to.
        let deadline = ContinuousClock.now + .seconds(30)
        while dropped != nil && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(dropped == nil, "stopped, the server is released")
    }

    @Test("graceful stop: requests in flight finish, new connections are refused")
    func gracefulStop() async throws {
        // The handler stays in flight until the stop has begun, however slowly a loaded machine gets there.
        let gate = Gate()
        let server = try Self.start(gate: gate)
        let port = server.port
        // A long read timeout: what matters is that the answer comes, and a loaded machine may take its time.
        async let slow = offloaded { try RawHTTPConnection(port: port, timeoutSeconds: 60).request("GET", "/slow") }
        try await Self.waitUntilInFlight(server)
        // A generous grace: shutdown returns as soon as nothing is in flight, and a loaded machine may be slow to finish.
        let stopping = Task { await server.shutdown(grace: .seconds(30)) }
        while !server.isStopping { try await Task.sleep(for: .milliseconds(5)) }
        gate.open()
        let response = try await slow
        #expect(response.status == 200)
        #expect(response.body.hasPrefix("GET /slow"))
        await stopping.value
        await #expect(throws: RawHTTPConnection.Failure.self) {
            _ = try await offloaded { try RawHTTPConnection(port: port).request("GET", "/ok") }
        }
    }

    @Test("a stop that outlasts the grace period answers stragglers 503 instead of dropping them")
    func stopAfterGrace() async throws {
        // The handler outlasts anything a loaded machine could make of the rest, so only the stop can answer it.
        let server = try Self.start(slowMilliseconds: 60_000)
        let port = server.port
        async let slow = offloaded { try RawHTTPConnection(port: port, timeoutSeconds: 50).request("GET", "/slow") }
        try await Self.waitUntilInFlight(server)
        await server.shutdown(grace: .milliseconds(200))
        let response = try await slow
        #expect(response.status == 503)
        #expect(response.body.contains("shutting_down"))
    }
}
