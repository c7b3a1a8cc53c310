import Foundation

/// Limits and sizes of the libmicrohttpd transport.
public struct HTTPServerConfiguration: Sendable {
    /// Numeric address to listen on (IPv4 or IPv6).
    public var host: String
    /// 0 picks a free port (see `HTTPServer.port`).
    public var port: UInt16
    /// Threads polling connections, each with its own epoll set.
    public var threads: Int
    /// Connections open at once, in all.
    public var maxConnections: Int
    /// Connections open at once from one client address; 0 for no limit.
    public var maxConnectionsPerAddress: Int
    /// Seconds a connection may stay idle or trickle bytes before it is closed.
    public var connectionTimeoutSeconds: Int
    /// Bytes for the request line and headers of one connection (larger requests are refused by libmicrohttpd). Not
    /// larger than it needs to be: libmicrohttpd clears the whole buffer before each request of a keep-alive connection.
    public var maxHeaderBytes: Int
    /// Largest request body read; larger ones are answered 413 without reading them.
    public var maxBodyBytes: Int
    /// Seconds a handler may take before the client gets 503 `request_timeout`.
    public var requestTimeoutSeconds: Double
    /// Seconds a connection gets to send a request's headers, from its opening or from its last response (an idle
    /// keep-alive connection is closed after as long).
    public var headerDeadlineSeconds: Double = 10
    /// After this many seconds of a body, it must have come at `minBodyBytesPerSecond` or the connection is closed.
    public var bodyGraceSeconds: Double = 5
    public var minBodyBytesPerSecond: Int = 1024
    /// Connections still sending headers or a body at once; past it the oldest are closed.
    public var maxPendingConnections: Int = 1024
    /// Request bodies buffered at once across all connections; past it a request is answered 503 `server_busy`.
    public var maxBufferedBodyBytes: Int = 64 * 1024 * 1024

    public init(host: String = "127.0.0.1", port: UInt16 = 8080,
                threads: Int = ProcessInfo.processInfo.activeProcessorCount, maxConnections: Int = 4096,
                maxConnectionsPerAddress: Int = 256, connectionTimeoutSeconds: Int = 30, maxHeaderBytes: Int = 16 * 1024,
                maxBodyBytes: Int = 1024 * 1024, requestTimeoutSeconds: Double = 30) {
        self.host = host
        self.port = port
        self.threads = threads
        self.maxConnections = maxConnections
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
        self.requestTimeoutSeconds = requestTimeoutSeconds
    }
}
