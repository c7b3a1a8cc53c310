import RunwayHTTP
import Synchronization

/// Everything one request accumulates between libmicrohttpd's calls. Created on the first call, released in the
/// completion callback (the single release point, aborted connections included).
final class RequestState: @unchecked Sendable {
    let connection: OpaquePointer
    let method: String
    let path: String
    var headers: [(String, String)] = []
    var query: [(String, String)] = []
    var remoteAddress: String?
    /// The route matched for the body limit, handed to the application with the request.
    var matchedRoute: (route: Route, parameters: [String: String])?
    var body: [UInt8] = []
    /// Where the request is (moved only on libmicrohttpd's thread).
    var life: RequestLife
    /// Bytes of `body` counted against the server's budget, given back when the request completes.
    var budgeted = 0
    var deadline: ContinuousClock.Instant = .now
    /// Set exactly once, by the handler task or by the deadline watchdog; the winner resumes the connection.
    private let answer = Mutex<HTTPResponse?>(nil)
    private let answered = Atomic<Bool>(false)

    init(connection: OpaquePointer, method: String, path: String, life: RequestLife) {
        self.connection = connection
        self.method = method
        self.path = path
        self.life = life
    }

    /// Stores the response if none was stored yet; true for the caller that won.
    func offer(_ response: HTTPResponse) -> Bool {
        guard answered.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return false
        }
        answer.withLock { $0 = response }
        return true
    }

    /// Takes the stored response, if any (called on libmicrohttpd's thread after the resume).
    func takeResponse() -> HTTPResponse? {
        answer.withLock { value in
            defer { value = nil }
            return value
        }
    }

    var request: HTTPRequest {
        var request = HTTPRequest(method: method, path: path, query: query, headers: HTTPHeaders(headers), body: body, remoteAddress: remoteAddress)
        request.matchedRoute = matchedRoute
        return request
    }
}

extension RequestState {
    /// Drops the buffered body and gives its bytes back to the server's budget (once).
    func release(from server: HTTPServer) {
        body = []
        if budgeted > 0 { server.bufferedBodyBytes.subtract(budgeted, ordering: .relaxed) }
        budgeted = 0
    }
}
