import RunwayHTTP

/// Refuses a NUL character where a request names something: in a path parameter (nothing is named so: 404) or in a
/// query parameter the route documents (400 `invalid_query`, naming it; others are never read). PostgreSQL cannot hold NUL in text, so such a value would
/// otherwise reach the store as an error instead of an answer about the request; JSON bodies are held to the same by
/// the strict decoder.
package struct NULTextMiddleware: Middleware {
    package init() {}

    package func handle(_ request: HTTPRequest, context: RequestContext, next: Responder) async throws -> HTTPResponse {
        if context.parameters.values.contains(where: { $0.utf8.contains(0) }) {
            throw RequestError.notFound("nothing has a name with a NUL character")
        }
        let read = Set(context.route?.operation.query.map(\.name) ?? [])
        if let bad = request.query.first(where: { read.contains($0.name) && $0.value.utf8.contains(0) }) {
            throw RequestError.invalidQuery("\(bad.name) must not contain NUL characters", field: String(bad.name.prefix(64)))
        }
        return try await next(request, context)
    }
}
