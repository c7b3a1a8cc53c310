import LinkRunwayAPI
import RunwayJSON

/// An error answered to the client as `{"error":{"code","message","field"?}}`. Codes are stable; messages are for people.
public struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    public var code: ErrorCode
    public var message: String
    /// The request field at fault, when there is one.
    public var field: String?
    /// Extra response headers (`Allow`, `Retry-After`).
    public var headers: [String: String]

    public init(status: Int, code: ErrorCode, message: String, field: String? = nil, headers: [String: String] = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.headers = headers
    }

    public var description: String { "\(status) \(code): \(message)" }

    public static func badRequest(_ code: ErrorCode, _ message: String, field: String? = nil) -> HTTPError {
        HTTPError(status: 400, code: code, message: message, field: field)
    }

    /// 400 `invalid_field`, naming the field.
    public static func invalidField(_ field: String, _ message: String) -> HTTPError {
        HTTPError(status: 400, code: .invalidField, message: "\(field): \(message)", field: field)
    }

    public static func notFound(_ code: ErrorCode = .notFound, _ message: String) -> HTTPError {
        HTTPError(status: 404, code: code, message: message)
    }

    public static func conflict(_ code: ErrorCode = .conflict, _ message: String) -> HTTPError {
        HTTPError(status: 409, code: code, message: message)
    }

    public static func forbidden(_ code: ErrorCode, _ message: String) -> HTTPError {
        HTTPError(status: 403, code: code, message: message)
    }

    public static func unauthorized(_ code: ErrorCode, _ message: String) -> HTTPError {
        HTTPError(status: 401, code: code, message: message, headers: ["WWW-Authenticate": "Bearer"])
    }

    public static func payloadTooLarge(limit: Int) -> HTTPError {
        HTTPError(status: 413, code: .bodyTooLarge, message: "the request body is larger than \(limit) bytes")
    }

    public static func unavailable(_ code: ErrorCode, _ message: String, retryAfter: Int? = nil) -> HTTPError {
        HTTPError(status: 503, code: code, message: message, headers: retryAfter.map { ["Retry-After": String($0)] } ?? [:])
    }

    /// The JSON body of this error.
    public var body: [UInt8] {
        var out = "{\"error\":{\"code\":"
        JSONText.appendString(code.rawValue, to: &out)
        out += ",\"message\":"
        JSONText.appendString(message, to: &out)
        if let field {
            out += ",\"field\":"
            JSONText.appendString(field, to: &out)
        }
        out += "}}"
        return Array(out.utf8)
    }

    /// This error as a response.
    public var response: HTTPResponse {
        var response = HTTPResponse(status: status, body: body)
        response.headers.set("Content-Type", "application/json")
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { response.headers.set(name, value) }
        return response
    }
}
