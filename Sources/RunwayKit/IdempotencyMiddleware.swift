import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayStore
import Synchronization

/// `Idempotency-Key` on the routes that declare it: the first request with a key runs and its answer is kept for
/// 24 hours; a retry with the same key and the same request gets that answer again (`Idempotent-Replayed: true`),
/// from whichever server process it reaches. While the first is still running a retry gets 409
/// `idempotency_key_in_use`; the same key with a different request gets 422 `idempotency_key_reused`. Answers of 500
/// and above are not kept, so the retry runs again. Keys are scoped to the caller: the API key, or the console user,
/// that sent the first request. A publishable key that ships in an app can so never claim a key a backend will use
/// (`payout-<affiliate>-<month>`), nor see its answer.
///
/// Across a crash: a handler stores its answer in the transaction that writes what it answers
/// (`IdempotencyClaim.write`), so a retry finds either nothing done (and runs) or the answer (and replays). A claim
/// names the process that made it; one whose process is gone (this machine's `/proc`, or a heartbeat older than
/// 10 s for another machine) is taken over at once, and every claim is given up after a minute. The answer must present
/// the claim's token, so a first request whose claim was taken over cannot also store a result.
public struct IdempotencyMiddleware: Middleware {
    package let store: any Store
    package let clock: WallClock
    /// How long answers are kept, and after how long an unfinished first request is presumed dead whatever its owner.
    package static let retentionMilliseconds: Int64 = 24 * 3600 * 1000
    package static let abandonedMilliseconds: Int64 = 60 * 1000

    public init(store: any Store, clock: WallClock) {
        self.store = store
        self.clock = clock
    }

    package enum Outcome: Sendable {
        case run(IdempotencyClaim)
        case replay(status: Int, contentType: String?, body: String)
    }

    public func handle(_ request: HTTPRequest, context: RequestContext, next: Responder) async throws -> HTTPResponse {
        guard let route = context.route, route.operation.idempotent, let key = request.headers["Idempotency-Key"] else {
            return try await next(request, context)
        }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7e }) else {
            throw IdempotencyError.invalidKey
        }
        let principal = try context.principal()
        let claim = IdempotencyClaim(scope: Self.scope(of: principal), key: key,
                                     requestHash: ByteEncoding.hex(Digest.sha256(Array("\(request.method) \(request.path)\n".utf8) + request.body)))
        let now = clock.nowMilliseconds()
        let outcome = try await store.write { db in
            try Self.legacyAnswer(claim, workspaceScope: principal.workspaceId ?? "admin", db, now: now) ?? Self.claim(claim, db, now: now)
        }

        switch outcome {
        case .replay(let status, let contentType, let body):
            var response = HTTPResponse(status: status, body: Array(body.utf8))
            if let contentType { response.headers.set("Content-Type", contentType) }
            response.headers.set("Idempotent-Replayed", "true")
            return response
        case .run(let claim):
            var context = context
            context[IdempotencyClaim.Key.self] = claim
            let response: HTTPResponse
            do {
                response = try await next(request, context)
            } catch {
                // An error answer is as final as a success when it is the client's fault; keep those, release the rest.
                let mapped = ErrorMapping.httpError(for: error)
                if mapped.status < 500 { try await remember(mapped.response, claim) } else { try await release(claim) }
                throw error
            }
            if claim.stored { return response }
            if response.status < 500 { try await remember(response, claim) } else { try await release(claim) }
            return response
        }
    }

    /// Whose keys these are: one scope per API key or console user.
    package static func scope(of principal: Principal) -> String { "principal:" + principal.keyId }

    /// Until the answers kept before keys were scoped to their caller expire (24 hours after the upgrade), the answer
    /// to the very same request under the workspace's old scope is still replayed; a different request under it is
    /// someone else's and does not hold this caller back.
    static func legacyAnswer(_ claim: IdempotencyClaim, workspaceScope: String, _ db: any SQLExecutor, now: Int64) throws -> Outcome? {
        guard let row = try db.first("""
            SELECT status, content_type, response_body FROM idempotency_keys
            WHERE scope = \(workspaceScope) AND idempotency_key = \(claim.key) AND request_hash = \(claim.requestHash)
            AND status IS NOT NULL AND created_at >= \(now - retentionMilliseconds)
            """, as: StoredKey.self), let status = row.status else { return nil }
        return .replay(status: Int(status), contentType: row.contentType, body: row.responseBody ?? "")
    }

    /// Takes the key for this request, or says why not: the answer to replay, or 409 while its first request runs.
    package static func claim(_ claim: IdempotencyClaim, _ db: any SQLExecutor, now: Int64) throws -> Outcome {
        let scope = claim.scope, key = claim.key
        try db.execute("DELETE FROM idempotency_keys WHERE scope = \(scope) AND idempotency_key = \(key) AND created_at < \(now - retentionMilliseconds)")
        let inserted = try db.execute("""
            INSERT INTO idempotency_keys (scope, idempotency_key, request_hash, created_at, owner, claim)
            VALUES (\(scope), \(key), \(claim.requestHash), \(now), \(ServerInstance.current.owner), \(claim.token))
            ON CONFLICT (scope, idempotency_key) DO NOTHING
            """)
        if inserted == 1 { return .run(claim) }
        guard let row = try db.first("""
            SELECT request_hash, status, content_type, response_body, created_at, owner FROM idempotency_keys
            WHERE scope = \(scope) AND idempotency_key = \(key)
            """, as: StoredKey.self) else {
            throw IdempotencyError.inUse
        }
        guard row.requestHash == claim.requestHash else {
            throw IdempotencyError.reused
        }
        if let status = row.status {
            return .replay(status: Int(status), contentType: row.contentType, body: row.responseBody ?? "")
        }
        guard let createdAt = row.createdAt else { throw StoreError.corrupt("idempotency key \(key) has no time") }
        var ownerRuns: Bool? = nil
        if let owner = row.owner { ownerRuns = try ServerInstance.isRunning(owner: owner, db, now: now) }
        guard ownerRuns == false || createdAt < now - abandonedMilliseconds else { throw IdempotencyError.inUse }
        // Taken over only as it was read: of two retries racing for an abandoned key, one runs.
        guard try db.execute("""
            UPDATE idempotency_keys SET created_at = \(now), owner = \(ServerInstance.current.owner), claim = \(claim.token)
            WHERE scope = \(scope) AND idempotency_key = \(key) AND status IS NULL AND created_at = \(createdAt)
            """) == 1 else { throw IdempotencyError.inUse }
        return .run(claim)
    }


    /// Keeps an answer the handler did not store in its own write (an error answer, or a route that writes nothing).
    private func remember(_ response: HTTPResponse, _ claim: IdempotencyClaim) async throws {
        try await store.write { db in _ = try claim.store(response, db) }
    }

    private func release(_ claim: IdempotencyClaim) async throws {
        try await store.write { db in
            try db.execute("""
                DELETE FROM idempotency_keys WHERE scope = \(claim.scope) AND idempotency_key = \(claim.key) AND claim = \(claim.token)
                AND status IS NULL
                """)
        }
    }

    /// A kept key, with the answer once its request finished; each query selects what it needs.
    private struct StoredKey: Decodable {
        let requestHash: String?
        let status: Int64?
        let contentType: String?
        let responseBody: String?
        let createdAt: Int64?
        let owner: String?
    }
}

/// The `Idempotency-Key` a request holds while it runs. A handler that writes passes its answer to `write`, which
/// stores it in the same transaction as the handler's changes.
public final class IdempotencyClaim: Sendable {
    package enum Key: RequestContextKey { package typealias Value = IdempotencyClaim }

    package let scope: String
    package let key: String
    package let requestHash: String
    /// Random per attempt: storing the answer needs it, so a first attempt whose claim was taken over stores nothing.
    package let token = SecureRandom.string(length: 20, alphabet: SecureRandom.base32)
    private let answered = Atomic<Bool>(false)

    package init(scope: String, key: String, requestHash: String) {
        self.scope = scope
        self.key = key
        self.requestHash = requestHash
    }

    /// Whether the answer was stored with the handler's changes.
    package var stored: Bool { answered.load(ordering: .acquiring) }

    /// Stores `response` as the answer under this claim; false when the claim is no longer this attempt's.
    package func store(_ response: HTTPResponse, _ db: any SQLExecutor) throws -> Bool {
        let body = String(decoding: response.body, as: UTF8.self)
        return try db.execute("""
            UPDATE idempotency_keys SET status = \(response.status), content_type = \(response.headers["Content-Type"]),
                response_body = \(body), owner = NULL, claim = NULL
            WHERE scope = \(scope) AND idempotency_key = \(key) AND claim = \(token) AND status IS NULL
            """) == 1
    }

    /// Runs `body` in one write transaction and, when the request holds a key, stores the answer it returns in that
    /// same transaction. A request whose claim was taken over (its process was presumed dead) changes nothing and
    /// answers 409 `idempotency_key_in_use`.
    public static func write(_ store: any Store, _ context: RequestContext,
                             _ body: @escaping @Sendable (any SQLExecutor) throws -> HTTPResponse) async throws -> HTTPResponse {
        try await write(store, context, body, answer: { $0 }).response
    }

    /// `write` for a handler that needs more than the answer from its transaction: `answer` makes the response from
    /// what `body` returns, inside the transaction.
    public static func write<Value: Sendable>(_ store: any Store, _ context: RequestContext,
                                              _ body: @escaping @Sendable (any SQLExecutor) throws -> Value,
                                              answer: @escaping @Sendable (Value) throws -> HTTPResponse) async throws -> (value: Value, response: HTTPResponse) {
        let claim = context[Key.self]
        let result = try await store.write { db -> (value: Value, response: HTTPResponse) in
            let value = try body(db)
            let response = try answer(value)
            if let claim, response.status < 500, try !claim.store(response, db) { throw IdempotencyError.inUse }
            return (value, response)
        }
        if let claim, result.response.status < 500 { claim.answered.store(true, ordering: .releasing) }
        return result
    }
}
