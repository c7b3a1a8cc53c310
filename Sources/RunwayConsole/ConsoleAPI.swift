import Foundation
import LinkRunwayAPI
import RunwayCapabilities
import RunwayHTTP
import RunwayJSON
import RunwayKit

/// What an API call from the console answered with when it failed: the API's own status, code, message and field.
struct ConsoleAPIError: Error, Sendable {
    let status: Int
    let code: ErrorCode
    let message: String
    let field: String?

    /// The message without the field it starts with (shown beside that field).
    var reason: String {
        guard let field, message.hasPrefix(field + ": ") else { return message }
        return String(message.dropFirst(field.count + 2))
    }
}

/// The console calls the same route handlers as the HTTP API, as the session's principal: one place for every rule
/// (validation, workspace scope, idempotency of state), and a console that can do nothing the API would refuse.
struct ConsoleAPI: Sendable {
    let router: Router
    let principal: Principal
    /// Applies `Idempotency-Key` to the calls that pass one (a form submitted twice records once).
    var idempotency: IdempotencyMiddleware?

    /// Calls `method path` and returns the raw answer of a success.
    func raw(_ method: HTTPMethod, _ path: String, query: [(String, String?)] = [], body: [UInt8] = [],
             accept: String? = nil, idempotencyKey: String? = nil) async throws -> HTTPResponse {
        var headers = HTTPHeaders()
        if let accept { headers.set("Accept", accept) }
        if let idempotencyKey { headers.set("Idempotency-Key", idempotencyKey) }
        let request = HTTPRequest(method: method.rawValue, path: path, query: query.compactMap { name, value in value.map { (name, $0) } },
                                  headers: headers, body: body)
        guard case .found(let route, let parameters) = router.match(method: method.rawValue, path: path) else {
            throw ConsoleAPIError(status: 404, code: ErrorCode.notFound, message: "no such page", field: nil)
        }
        guard case .keys(let allowed) = route.operation.access, allowed.contains(principal.kind.rawValue) else {
            throw ConsoleAPIError(status: 403, code: ErrorCode.keyKindForbidden, message: "your sign-in cannot do this", field: nil)
        }
        var context = RequestContext(requestId: RequestIdMiddleware.generate(), route: route, parameters: parameters)
        context[PrincipalKey.self] = principal
        let response: HTTPResponse
        do {
            if let idempotency, idempotencyKey != nil {
                response = try await idempotency.handle(request, context: context, next: route.handler)
            } else {
                response = try await route.handler(request, context)
            }
        } catch {
            let mapped = ErrorMapping.httpError(for: error)
            throw ConsoleAPIError(status: mapped.status, code: mapped.code, message: mapped.message, field: mapped.field)
        }
        guard response.status < 400 else {
            let body = try? JSONDecoder().decode(ErrorBody.self, from: Data(response.body))
            throw ConsoleAPIError(status: response.status, code: body?.error.errorCode ?? .internalError, message: body?.error.message ?? "failed",
                                  field: body?.error.field)
        }
        return response
    }

    /// Calls and decodes the answer.
    func get<T: Decodable>(_ path: String, query: [(String, String?)] = [], as type: T.Type) async throws -> T {
        try decode(try await raw(.GET, path, query: query), as: type)
    }

    func send<Body: Encodable, T: Decodable>(_ method: HTTPMethod, _ path: String, _ body: Body, as type: T.Type,
                                             idempotencyKey: String? = nil) async throws -> T {
        try decode(try await raw(method, path, body: Array(try Self.encoder.encode(body)), idempotencyKey: idempotencyKey), as: type)
    }

    /// Sorted keys: the same form sent twice makes the same body, which `Idempotency-Key` requires.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    /// Every page of a list (up to `limit` items).
    func all<T: Codable & Sendable>(_ path: String, query: [(String, String?)] = [], as type: T.Type, limit: Int = 1000) async throws -> [T] {
        var items: [T] = []
        var cursor: String?
        repeat {
            let page = try await get(path, query: query + [("limit", "200"), ("cursor", cursor)], as: Page<T>.self)
            items += page.items
            cursor = page.nextCursor
        } while cursor != nil && items.count < limit
        return items
    }

    private func decode<T: Decodable>(_ response: HTTPResponse, as type: T.Type) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(response.body))
        } catch {
            throw ConsoleAPIError(status: 500, code: .internalError, message: "unexpected answer from the API", field: nil)
        }
    }
}
