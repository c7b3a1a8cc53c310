import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayStore
import Synchronization

/// Turns a presented key into a principal: finds the record by its lookup id, then compares the SHA-256 of the whole
/// key with the stored hash in constant time. Records are cached for a few seconds; a revocation made through this
/// process takes effect at once, one made by another process within `cacheSeconds`.
public final class KeyAuthenticator: Sendable {
    package struct Record: Sendable {
        package let keyId: String
        package let kind: KeyKind
        package let workspaceId: String?
        package let appId: String?
        package let hash: [UInt8]
        package let revoked: Bool
        package let loadedAt: ContinuousClock.Instant
    }

    public enum Outcome: Sendable, Equatable {
        case valid(Principal)
        case invalid
        case revoked
    }

    private let store: any Store
    private let cacheSeconds: Double
    private let cache = Mutex<[String: Record]>([:])
    private static let cacheLimit = 10_000

    public init(store: any Store, cacheSeconds: Double = 5) {
        self.store = store
        self.cacheSeconds = cacheSeconds
    }

    public func authenticate(_ presented: String) async throws -> Outcome {
        guard let key = APIKeySecret(parsing: presented) else { return .invalid }
        let record: Record
        if let cached = cache.withLock({ $0[key.lookup] }), cached.loadedAt.duration(to: .now) < .seconds(cacheSeconds) {
            record = cached
        } else {
            guard let loaded = try await load(keyId: key.keyId) else { return .invalid }
            record = loaded
            cache.withLock { cache in
                if cache.count >= Self.cacheLimit { cache.removeAll() }
                cache[key.lookup] = loaded
            }
        }
        let presentedHash = Digest.sha256(key.text)
        guard ConstantTime.equal(presentedHash, record.hash), record.kind == key.kind else { return .invalid }
        if record.revoked { return .revoked }
        return .valid(Principal(keyId: record.keyId, kind: record.kind, workspaceId: record.workspaceId, appId: record.appId))
    }

    /// Drops a cached record (after a revocation).
    public func forget(keyId: String) {
        let lookup = String(keyId.dropFirst("key_".count))
        cache.withLock { _ = $0.removeValue(forKey: lookup) }
    }

    private func load(keyId: String) async throws -> Record? {
        try await store.read { db in
            guard let row = try db.first("SELECT id, kind, workspace_id, app_id, secret_hash, revoked_at FROM api_keys WHERE id = \(keyId)",
                                         as: KeyRow.self) else {
                return nil
            }
            guard let kind = KeyKind(rawValue: row.kind), let hash = ByteEncoding.fromHex(row.secretHash) else {
                throw StoreError.corrupt("api key \(keyId) has an unreadable kind or hash")
            }
            return Record(keyId: row.id, kind: kind, workspaceId: row.workspaceId, appId: row.appId, hash: hash, revoked: row.revokedAt != nil,
                          loadedAt: .now)
        }
    }

    private struct KeyRow: Decodable {
        let id: String
        let kind: String
        let workspaceId: String?
        let appId: String?
        let secretHash: String
        let revokedAt: Int64?
    }
}

/// Enforces each route's declared key kinds: 401 without a valid key, 403 for a kind the route does not accept.
public struct AuthMiddleware: Middleware {
    package let authenticator: KeyAuthenticator

    public init(authenticator: KeyAuthenticator) { self.authenticator = authenticator }

    public func handle(_ request: HTTPRequest, context: RequestContext, next: Responder) async throws -> HTTPResponse {
        guard let route = context.route, case .keys(let allowed) = route.operation.access else {
            return try await next(request, context)
        }
        guard let header = request.headers["Authorization"], !header.isEmpty else {
            throw AccessError.missingKey
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw AccessError.invalidKey("the Authorization header must be Bearer <key>")
        }
        // HTTP's optional whitespace is spaces and tabs (RFC 9110, 5.6.3).
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        let bytes = parts[1].utf8
        let start = bytes.firstIndex { !isSpace($0) } ?? bytes.endIndex
        let end = bytes.lastIndex { !isSpace($0) }.map { bytes.index(after: $0) } ?? start
        // trap-safe: start <= end: the last non-space byte is at or after the first
        switch try await authenticator.authenticate(String(decoding: bytes[start..<max(start, end)], as: UTF8.self)) {
        case .invalid:
            throw AccessError.invalidKey("the API key is not valid")
        case .revoked:
            throw AccessError.revokedKey
        case .valid(let principal):
            guard allowed.contains(principal.kind.rawValue) else {
                throw AccessError.keyKindForbidden(
                    "a \(principal.kind.rawValue) key cannot call this; use \(allowed.sorted().joined(separator: " or "))")
            }
            var context = context
            context[PrincipalKey.self] = principal
            return try await next(request, context)
        }
    }
}
