import RunwayCapabilities
import RunwayCrypto
import RunwayKit
import RunwayStore

/// Sign-in attempts per account and client address, counted in the database so that every server process shares one
/// limit: at most `perMinute` in any minute. Counting per address means wrong guesses from one place never lock the
/// account's owner out elsewhere; guessing from many addresses is bounded by the per-address limit and by the password
/// threads (`Passwords.maxPending`). An attempt over the limit is not counted, so a hold ends a minute after the last one.
enum SignInAttempts {
    static let perMinute = 5
    static let windowMilliseconds: Int64 = 60_000

    /// Counts an attempt for `account` from `address` and returns nil, or the seconds to wait when it is over the limit.
    static func limited(_ account: String, from address: String, services: ServerServices) async throws -> Int? {
        let hash = ByteEncoding.hex(Digest.sha256(Array(("account:" + account + "\n" + address).utf8)))
        let now = services.clock.nowMilliseconds()
        let oldest: Int64? = try await services.store.write { db in
            let recent = try db.first("""
                SELECT COUNT(*) AS n, MIN(attempted_at) AS oldest FROM console_sign_in_attempts
                WHERE account_hash = \(hash) AND attempted_at > \(now - windowMilliseconds)
                """)
            if let recent, try recent.int("n") >= Int64(perMinute) { return try recent.optionalInt("oldest") ?? now }
            try db.execute("INSERT INTO console_sign_in_attempts (account_hash, attempted_at) VALUES (\(hash), \(now))")
            return nil
        }
        return oldest.map { max(1, Int(($0 + windowMilliseconds - now + 999) / 1000)) }
    }

    /// Attempts older than an hour are of no use.
    static func forgetOld(_ db: any SQLExecutor, now: Int64) throws -> Int {
        try db.execute("DELETE FROM console_sign_in_attempts WHERE attempted_at < \(now - 3_600_000)")
    }
}
