import RunwayCapabilities
import RunwayCrypto
import RunwayKit
import RunwayStore

/// Sign-in attempts per account and client address, counted in the database so that every server process shares one
/// limit: at most `perMinute` in any minute. Counting per address means wrong guesses from one place never lock the
/// account's owner out elsewhere; guessing from many addresses is bounded by the per-address limit and by the password
/// threads (`Passwords.maxPending`). An attempt over the limit is not counted, so a hold ends a minute after the last one.
/// Beside it, failures per account from anywhere bring a back-off (`backoff`), so guesses spread over many addresses
/// stay slow.
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
                """, as: Window.self)
            if let recent, recent.n >= Int64(perMinute) { return recent.oldest ?? now }
            try db.execute("INSERT INTO console_sign_in_attempts (account_hash, attempted_at) VALUES (\(hash), \(now))")
            return nil
        }
        return oldest.map { max(1, Int(($0 + windowMilliseconds - now + 999) / 1000)) }
    }

    /// Failed sign-ins an account may have in an hour, from any addresses, before each next try must wait.
    static let freeFailures = 10
    /// The longest wait the back-off asks for.
    static let longestWaitSeconds: Int64 = 900

    static func failureHash(_ account: String) -> String { ByteEncoding.hex(Digest.sha256(Array(("failed:" + account).utf8))) }

    /// Seconds to wait before `account` may try again after many failures from anywhere (an attacker spreading guesses
    /// over many addresses): none for the first ten in an hour, then 2, 4, 8 … up to 15 minutes after the last failure.
    /// It slows guessing without locking the owner out, and a successful sign-in clears it.
    static func backoff(_ account: String, services: ServerServices) async throws -> Int? {
        let hash = failureHash(account)
        let now = services.clock.nowMilliseconds()
        let recent = try await services.store.read { db in
            try db.first("""
                SELECT COUNT(*) AS n, MAX(attempted_at) AS latest FROM console_sign_in_attempts
                WHERE account_hash = \(hash) AND attempted_at > \(now - 3_600_000)
                """, as: Window.self)
        }
        guard let recent, let latest = recent.latest else { return nil }
        let failures = recent.n
        guard failures >= Int64(freeFailures) else { return nil }
        let wait = min(longestWaitSeconds, Int64(1) << min(failures - Int64(freeFailures) + 1, 20)) * 1000
        let left = latest + wait - now
        return left > 0 ? Int((left + 999) / 1000) : nil
    }

    /// Counts a failed sign-in of `account`, from wherever it came.
    static func recordFailure(_ account: String, services: ServerServices) async throws {
        let hash = failureHash(account), now = services.clock.nowMilliseconds()
        try await services.store.write { db in
            try db.execute("INSERT INTO console_sign_in_attempts (account_hash, attempted_at) VALUES (\(hash), \(now))")
        }
    }

    /// The owner signed in: earlier failures no longer slow the account.
    static func clearFailures(_ account: String, services: ServerServices) async throws {
        let hash = failureHash(account)
        try await services.store.write { db in try db.execute("DELETE FROM console_sign_in_attempts WHERE account_hash = \(hash)") }
    }

    /// Attempts older than an hour are of no use.
    static func forgetOld(_ db: any SQLExecutor, now: Int64) throws -> Int {
        try db.execute("DELETE FROM console_sign_in_attempts WHERE attempted_at < \(now - 3_600_000)")
    }

    /// The attempts of a window: how many, the oldest or the latest (whichever the query asks for).
    private struct Window: Decodable {
        let n: Int64
        let oldest: Int64?
        let latest: Int64?
    }
}
