import Foundation

/// The methods our routes use.
public enum HTTPMethod: String, Sendable, CaseIterable, Hashable {
    case GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS
}

/// Header fields in arrival order; names compare case-insensitively.
public struct HTTPHeaders: Sendable, Sequence {
    public private(set) var fields: [(name: String, value: String)] = []
    /// The names a transport handed over when it kept only those (`HotPath.request`); nil when every header is here.
    package var handedOver: [String]?

    public init() {}
    public init(_ fields: [(String, String)]) { self.fields = fields.map { (name: $0.0, value: $0.1) } }

    /// The first value of `name`, or nil.
    public subscript(_ name: String) -> String? {
        #if DEBUG
        if let handedOver, !handedOver.contains(where: { $0.caseInsensitiveEquals(name) }) { HotPath.unsentHeaderReads.record(name) }
        #endif
        return fields.first(where: { $0.name.caseInsensitiveEquals(name) })?.value
    }

    /// Appends a field (keeps existing ones with the same name).
    public mutating func add(_ name: String, _ value: String) { fields.append((name: name, value: value)) }

    /// Replaces every field named `name` with one.
    public mutating func set(_ name: String, _ value: String) {
        fields.removeAll(where: { $0.name.caseInsensitiveEquals(name) })
        fields.append((name: name, value: value))
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }
}

extension String {
    /// ASCII case-insensitive equality, enough for header names.
    package func caseInsensitiveEquals(_ other: String) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { x, y in x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= 0x61 && (x | 0x20) <= 0x7a) }
    }
}

/// A request as the router sees it, whatever transport carried it.
public struct HTTPRequest: Sendable {
    /// The method as sent (an unknown method is kept and answered 405 or 404).
    public var method: String
    /// The path without the query, percent-decoded.
    public var path: String
    /// Query parameters in order, percent-decoded.
    public var query: [(name: String, value: String)]
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The peer's numeric address, when the transport knows it (the client's, behind a trusted proxy).
    public var remoteAddress: String?
    /// `http`, or `https` when a trusted proxy says the client used TLS.
    public var scheme = "http"
    /// The address the connection itself came from, and whether it is a trusted proxy (set by `ForwardedForMiddleware`).
    var connectionPeer: String?
    var connectionPeerTrusted = false
    /// The route a transport matched before reading the body, and whose body limit it enforced while reading it; the
    /// application then neither matches nor checks the limit again.
    package var matchedRoute: (route: Route, parameters: [String: String])?

    /// The connection came from this machine or a trusted proxy and passed on no client (no forwarding header): a
    /// check by the operator's own machine or proxy, never a request from the internet relayed by a proxy.
    public var isLocalCheck: Bool {
        guard let peer = connectionPeer, connectionPeerTrusted || TrustedProxies.isLoopback(peer) else { return false }
        return !ForwardedForMiddleware.forwardingHeaders.contains { headers[$0] != nil }
    }

    public init(method: String, path: String, query: [(String, String)] = [], headers: HTTPHeaders = HTTPHeaders(),
                body: [UInt8] = [], remoteAddress: String? = nil) {
        self.method = method
        self.path = path
        self.query = query.map { (name: $0.0, value: $0.1) }
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The first query parameter named `name`.
    public func queryValue(_ name: String) -> String? { query.first(where: { $0.name == name })?.value }
}

/// A complete response; bodies are small enough to buffer.
public struct HTTPResponse: Sendable {
    public var status: Int { didSet { prepared = nil } }
    public var headers: HTTPHeaders { didSet { prepared = nil } }
    public var body: [UInt8] { didSet { prepared = nil } }
    /// Set by an immediate handler whose answer may go out only once something it started is done (a redirect's
    /// durable click): the transport holds the connection and sends what the release gives.
    public var release: ResponseRelease?
    /// The prepared response this one is, while nothing of it was changed: a transport may send its own kept form.
    public private(set) var prepared: PreparedResponse?

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response made once and sent many times.
    public init(_ prepared: PreparedResponse) {
        status = prepared.status
        headers = prepared.headers
        body = prepared.body
        self.prepared = prepared
    }

    /// A plain-text response.
    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.set("Content-Type", contentType)
        return HTTPResponse(status: status, headers: headers, body: Array(text.utf8))
    }
}

/// A response made once and sent unchanged many times (`/healthz`, a link's 302, the OpenAPI document). A transport
/// keeps its own form of it in `transportForm` (libmicrohttpd's response object, shared by every connection that sends
/// it), so sending it again costs no allocation.
public final class PreparedResponse: Sendable {
    public let status: Int
    public let headers: HTTPHeaders
    public let body: [UInt8]
    public let transportForm = TransportForm()

    public init(_ response: HTTPResponse) {
        status = response.status
        headers = response.headers
        body = response.body
    }
}

/// What a transport keeps of a prepared response: made on first use, destroyed with the prepared response.
public final class TransportForm: @unchecked Sendable {  // `value` is set once, under `lock`
    private let lock = NSLock()
    private var value: UnsafeMutableRawPointer?
    private var destroy: (@Sendable (UnsafeMutableRawPointer) -> Void)?

    /// The kept form, made by `make` (the form and how to destroy it) the first time; nil when it cannot be made.
    public func get(orMake make: () -> (UnsafeMutableRawPointer, @Sendable (UnsafeMutableRawPointer) -> Void)?) -> UnsafeMutableRawPointer? {
        lock.lock()
        defer { lock.unlock() }
        if let value { return value }
        guard let (made, destroy) = make() else { return nil }
        value = made
        self.destroy = destroy
        return made
    }

    deinit {
        if let value, let destroy { destroy(value) }
    }
}

/// The last step of an immediate answer, run off the transport's thread: its work starts what the answer waits for and
/// calls back with the response to send (the one it was given, or another if the work failed). Middleware adds
/// finishing steps (`map`), applied in order to that response; the transport gets the result.
public struct ResponseRelease: Sendable {
    private let work: @Sendable (HTTPResponse, @escaping @Sendable (HTTPResponse) -> Void) -> Void
    private var finishing: [@Sendable (HTTPResponse) -> HTTPResponse] = []

    /// `work` gets the response as the pipeline made it and must call its callback exactly once.
    public init(_ work: @escaping @Sendable (HTTPResponse, @escaping @Sendable (HTTPResponse) -> Void) -> Void) { self.work = work }

    /// Starts the work; `done` gets the response to send, after every finishing step.
    public func run(_ response: HTTPResponse, done: @escaping @Sendable (HTTPResponse) -> Void) {
        var response = response
        response.release = nil
        let finishing = self.finishing
        work(response) { given in
            var final = given
            final.release = nil
            for step in finishing { final = step(final) }
            done(final)
        }
    }

    /// The same release with `transform` applied, after the steps it has, to the response it gives.
    public func map(_ transform: @escaping @Sendable (HTTPResponse) -> HTTPResponse) -> ResponseRelease {
        var mapped = self
        mapped.finishing.append(transform)
        return mapped
    }
}
