import Foundation
import LinkRunwayAPI
import RunwayJSON

extension HTTPRequest {
    /// Decodes the JSON body strictly: malformed JSON, unknown members and wrong types are thrown as
    /// `JSONDecodeFailure`, which the error mapping answers with 400 and the field's path. The body is read as JSON
    /// whatever its Content-Type says (as `curl -d` sends form encoding by default).
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard !body.isEmpty else { throw HTTPError.badRequest(.invalidJSON, "the request body is empty; send a JSON object") }
        return try StrictJSONDecoder().decode(type, from: body)
    }
}

extension HTTPResponse {
    /// A JSON response of an encodable value (sorted keys, `CompactJSONEncoder`). API responses are not cached by
    /// default.
    public static func json<T: Encodable>(_ value: T, status: Int = 200) throws -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.set("Content-Type", "application/json")
        headers.set("Cache-Control", "no-store")
        return HTTPResponse(status: status, headers: headers, body: try CompactJSONEncoder().encode(value))
    }

    /// A JSON response of an already-built document.
    public static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.set("Content-Type", "application/json")
        return HTTPResponse(status: status, headers: headers, body: value.serializedBytes())
    }
}
