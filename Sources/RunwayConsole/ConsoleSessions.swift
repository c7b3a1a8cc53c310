import Foundation
import LinkRunwayAPI
import RunwayCapabilities
import RunwayCrypto
import RunwayKit
import RunwayStore

/// A signed-in console visitor: who they act as, and the token their forms must carry.
struct ConsoleSession: Sendable {
    let idHash: String
    let principal: Principal
    /// An email, or the key's display prefix.
    let label: String
    let csrf: String
}

/// Console sessions in the database (so every server process knows them): the cookie's SHA-256 only, an idle and an
/// absolute limit, and an end as soon as the key is revoked or the user removed.
enum ConsoleSessions {
    static let cookieName = "lr_session"
    static let idleMilliseconds: Int64 = 2 * 3_600_000
    static let absoluteMilliseconds: Int64 = 12 * 3_600_000

    /// Starts a session; returns the cookie value (shown to the browser only).
    static func start(principal: Principal, userId: String?, keyId: String?, services: ServerServices) async throws -> String {
        let cookie = ByteEncoding.base64url(SecureRandom.bytes(32))
        let csrf = ByteEncoding.base64url(SecureRandom.bytes(24))
        let now = services.clock.nowMilliseconds()
        try await services.store.write { db in
            try db.execute("""
                INSERT INTO console_sessions (id_hash, user_id, key_id, kind, workspace_id, csrf, created_at, last_seen_at)
                VALUES (\(hash(cookie)), \(userId), \(keyId), \(principal.kind.rawValue), \(principal.workspaceId), \(csrf), \(now), \(now))
                """)
            // Sessions past their absolute limit go whenever anyone signs in.
            try db.execute("DELETE FROM console_sessions WHERE created_at < \(now - absoluteMilliseconds)")
        }
        return cookie
    }

    /// The live session a cookie names, or nil (unknown, expired, revoked key, removed user).
    static func find(_ cookie: String, services: ServerServices) async throws -> ConsoleSession? {
        let now = services.clock.nowMilliseconds()
        let idHash = hash(cookie)
        let row = try await services.store.read { db in
            try db.first("""
                SELECT s.user_id, s.key_id, s.kind, s.workspace_id, s.csrf, s.created_at, s.last_seen_at, u.email, k.display_prefix, k.revoked_at
                FROM console_sessions s
                LEFT JOIN console_users u ON u.id = s.user_id
                LEFT JOIN api_keys k ON k.id = s.key_id
                WHERE s.id_hash = \(idHash)
                """, as: SessionRow.self)
        }
        guard let row else { return nil }
        let userId = row.userId, keyId = row.keyId, email = row.email, prefix = row.displayPrefix
        let live = now - row.createdAt < absoluteMilliseconds && now - row.lastSeenAt < idleMilliseconds
            && (userId == nil || email != nil) && (keyId == nil || (prefix != nil && row.revokedAt == nil))
        guard live, let kind = KeyKind(rawValue: row.kind) else {
            try await end(idHash: idHash, services: services)
            return nil
        }
        if now - row.lastSeenAt > 60_000 {
            try await services.store.write { db in
                try db.execute("UPDATE console_sessions SET last_seen_at = \(now) WHERE id_hash = \(idHash)")
            }
        }
        let principal = Principal(keyId: keyId ?? userId ?? "", kind: kind, workspaceId: row.workspaceId, appId: nil)
        return ConsoleSession(idHash: idHash, principal: principal, label: email ?? prefix ?? "", csrf: row.csrf)
    }

    static func end(idHash: String, services: ServerServices) async throws {
        try await services.store.write { db in try db.execute("DELETE FROM console_sessions WHERE id_hash = \(idHash)") }
    }

    static func hash(_ cookie: String) -> String { ByteEncoding.hex(Digest.sha256(cookie)) }

    /// A session with its user's email and its key's prefix and revocation, when it has them.
    private struct SessionRow: Decodable {
        let userId: String?
        let keyId: String?
        let kind: String
        let workspaceId: String?
        let csrf: String
        let createdAt: Int64
        let lastSeenAt: Int64
        let email: String?
        let displayPrefix: String?
        let revokedAt: Int64?
    }
}
