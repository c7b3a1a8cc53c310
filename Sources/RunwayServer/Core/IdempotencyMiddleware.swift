import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayStore

/// `Idempotency-Key` on the routes that declare it: the first request with a key runs and its answer is kept for
/// 24 hours; a retry with the same key and the same request gets that answer again (`Idempotent-Replayed: true`),
/// from whichever server process it reaches. While the first is still running a retry gets 409
/// `idempotency_key_in_use`; the same key with a different request gets 422 `idempotency_key_reused`. Answers of 500
/// and above are not kept, so the retry runs again. Keys are scoped to the caller's workspace (admin keys share one
/// scope).
public struct IdempotencyMiddleware: Middleware {
    let store: any Store
    let clock: WallClock
    /// How long answers are kept, and after how long an unfinished first request is presumed dead.
    static let retentionMilliseconds: Int64 = 24 * 3600 * 1000
    static let abandonedMilliseconds: Int64 = 60 * 1000

    public init(store: any Store, clock: WallClock) {
        self.store = store
        self.clock = clock
    }

    enum Claim: Sendable {
        case run
        case replay(status: Int, contentType: String?, body: String)
    }

    public func handle(_ request: HTTPRequest, context: RequestContext, next: Responder) async throws -> HTTPResponse {
        guard let route = context.route, route.operation.idempotent, let key = request.headers["Idempotency-Key"] else {
            return try await next(request, context)
        }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7e }) else {
            throw HTTPError.badRequest(ErrorCode.invalidIdempotencyKey, "Idempotency-Key must be 1 to 255 visible ASCII characters")
        }
        let principal = try context.principal()
        let scope = principal.workspaceId ?? "admin"
        let hash = ByteEncoding.hex(Digest.sha256(Array("\(request.method) \(request.path)\n".utf8) + request.body))
        let now = clock.nowMilliseconds()

        let claim: Claim = try await store.write { db in
            try db.execute("DELETE FROM idempotency_keys WHERE scope = \(scope) AND idempotency_key = \(key) AND created_at < \(now - Self.retentionMilliseconds)")
            let inserted = try db.execute("""
                INSERT INTO idempotency_keys (scope, idempotency_key, request_hash, created_at)
                VALUES (\(scope), \(key), \(hash), \(now)) ON CONFLICT (scope, idempotency_key) DO NOTHING
                """)
            if inserted == 1 { return .run }
            guard let row = try db.first("SELECT request_hash, status, content_type, response_body, created_at FROM idempotency_keys WHERE scope = \(scope) AND idempotency_key = \(key)") else {
                throw HTTPError.conflict(ErrorCode.idempotencyKeyInUse, "a request with this Idempotency-Key is in progress; retry shortly")
            }
            guard try row.string("request_hash") == hash else {
                throw HTTPError(status: 422, code: ErrorCode.idempotencyKeyReused, message: "this Idempotency-Key was used with a different request")
            }
            if let status = try row.optionalInt("status") {
                return .replay(status: Int(status), contentType: try row.optionalString("content_type"), body: try row.optionalString("response_body") ?? "")
            }
            if try row.int("created_at") < now - Self.abandonedMilliseconds {
                try db.execute("UPDATE idempotency_keys SET created_at = \(now) WHERE scope = \(scope) AND idempotency_key = \(key)")
                return .run
            }
            throw HTTPError(status: 409, code: ErrorCode.idempotencyKeyInUse,
                            message: "a request with this Idempotency-Key is in progress; retry shortly", headers: ["Retry-After": "1"])
        }

        switch claim {
        case .replay(let status, let contentType, let body):
            var response = HTTPResponse(status: status, body: Array(body.utf8))
            if let contentType { response.headers.set("Content-Type", contentType) }
            response.headers.set("Idempotent-Replayed", "true")
            return response
        case .run:
            let response: HTTPResponse
            do {
                response = try await next(request, context)
            } catch {
                // An error answer is as final as a success when it is the client's fault; keep those, release the rest.
                let mapped = ErrorMapping.httpError(for: error)
                if mapped.status < 500 { try await remember(mapped.response, scope: scope, key: key) } else { try await release(scope: scope, key: key) }
                throw error
            }
            if response.status < 500 { try await remember(response, scope: scope, key: key) } else { try await release(scope: scope, key: key) }
            return response
        }
    }

    private func remember(_ response: HTTPResponse, scope: String, key: String) async throws {
        let body = String(decoding: response.body, as: UTF8.self)
        let contentType = response.headers["Content-Type"]
        try await store.write { db in
            try db.execute("""
                UPDATE idempotency_keys SET status = \(response.status), content_type = \(contentType), response_body = \(body)
                WHERE scope = \(scope) AND idempotency_key = \(key)
                """)
        }
    }

    private func release(scope: String, key: String) async throws {
        try await store.write { db in
            try db.execute("DELETE FROM idempotency_keys WHERE scope = \(scope) AND idempotency_key = \(key) AND status IS NULL")
        }
    }
}
