import LinkRunwayAPI
import RunwayHTTP

/// Paging parameters shared by list routes: `limit` (1–200, default 50) and an opaque `cursor`.
struct PageRequest: Sendable {
    var limit: Int
    var cursor: String?

    static let maximum = 200

    init(_ request: HTTPRequest) throws {
        if let text = request.queryValue("limit") {
            guard let value = Int(text), (1...Self.maximum).contains(value) else {
                throw HTTPError.badRequest(ErrorCode.invalidQuery, "limit must be an integer from 1 to \(Self.maximum)", field: "limit")
            }
            limit = value
        } else {
            limit = 50
        }
        cursor = request.queryValue("cursor").flatMap { $0.isEmpty ? nil : $0 }
    }
}
