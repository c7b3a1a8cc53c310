/// Sends requests straight to an application, without sockets: the whole API is testable in-process.
public struct TestClient: Sendable {
    public let application: HTTPApplication
    /// Sent as `Authorization: Bearer <key>` unless a request sets its own.
    public var bearer: String?

    public init(_ application: HTTPApplication, bearer: String? = nil) {
        self.application = application
        self.bearer = bearer
    }

    public func send(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = [],
                     remoteAddress: String = "127.0.0.1") async -> HTTPResponse {
        var path = target
        var query: [(String, String)] = []
        if let q = target.firstIndex(of: "?") {
            path = String(target[..<q])  // trap-safe: q is an index of target
            query = target[target.index(after: q)...].split(separator: "&").map { pair in  // trap-safe: q is an index of target
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncodingOrSelf }
                return (parts[0], parts.count > 1 ? parts[1] : "")
            }
        }
        var all = HTTPHeaders(headers)
        if all["Host"] == nil { all.add("Host", "localhost") }
        if let bearer, all["Authorization"] == nil { all.add("Authorization", "Bearer \(bearer)") }
        if !body.isEmpty, all["Content-Type"] == nil { all.add("Content-Type", "application/json") }
        return await application.respond(to: HTTPRequest(method: method, path: path, query: query, headers: all,
                                                         body: body, remoteAddress: remoteAddress))
    }

    public func get(_ target: String, headers: [(String, String)] = []) async -> HTTPResponse {
        await send("GET", target, headers: headers)
    }

    public func post(_ target: String, json: String, headers: [(String, String)] = []) async -> HTTPResponse {
        await send("POST", target, headers: headers, body: Array(json.utf8))
    }
}

extension String {
    var removingPercentEncodingOrSelf: String {
        var bytes: [UInt8] = []
        var it = Array(utf8)[...]
        while let b = it.popFirst() {
            if b == UInt8(ascii: "%"), it.count >= 2,
               let v = UInt8(String(decoding: it.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(v)
                it = it.dropFirst(2)
            } else if b == UInt8(ascii: "+") {
                bytes.append(0x20)
            } else {
                bytes.append(b)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension HTTPResponse {
    /// The body as UTF-8 text (for tests and the CLI).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}
