import RunwayKit
import RunwayStore

/// The SQL of `attest_challenges` and `attest_keys`.
enum AttestQueries {
    /// Stores a new challenge, sweeping those long expired.
    static func issueChallenge(_ db: any SQLExecutor, appId: String, challenge: String, now: Int64, sweepBefore: Int64) throws {
        try db.execute("DELETE FROM attest_challenges WHERE created_at < \(sweepBefore)")
        try db.execute("INSERT INTO attest_challenges (app_id, challenge, created_at) VALUES (\(appId), \(challenge), \(now))")
    }

    /// Spends a challenge: its creation time, or nil when it is unknown or another request spent it first (of two
    /// requests spending one challenge at the same instant, the one whose delete lands has it).
    static func spendChallenge(_ db: any SQLExecutor, appId: String, challenge: String) throws -> Int64? {
        guard let row = try db.first("SELECT created_at FROM attest_challenges WHERE app_id = \(appId) AND challenge = \(challenge)", as: Spent.self) else {
            return nil
        }
        guard try db.execute("DELETE FROM attest_challenges WHERE app_id = \(appId) AND challenge = \(challenge)") == 1 else { return nil }
        return row.createdAt
    }

    /// Registers an attested key with a counter of 0 (a key registered already is a conflict), and the launch
    /// validation category and bundle version it attested with (iOS 27).
    static func insertKey(_ db: any SQLExecutor, appId: String, keyId: String, installId: String?, publicKeyHex: String, receiptHex: String,
                          environment: String, validationCategory: UInt32?, bundleVersion: String?, now: Int64) throws {
        try db.execute("""
            INSERT INTO attest_keys (app_id, key_id, install_id, public_key, receipt, environment, counter, created_at, last_used_at,
                                     validation_category, bundle_version)
            VALUES (\(appId), \(keyId), \(installId), \(publicKeyHex), \(receiptHex), \(environment), 0, \(now), \(now),
                    \(validationCategory.map(Int64.init)), \(bundleVersion))
            """)
    }

    static func key(_ db: any SQLExecutor, appId: String, keyId: String) throws -> Key? {
        try db.first("""
            SELECT public_key, counter, environment, validation_category, bundle_version FROM attest_keys WHERE app_id = \(appId) AND key_id = \(keyId)
            """, as: Key.self)
    }

    /// An attested key as an assertion needs it.
    struct Key: Decodable {
        /// The SubjectPublicKeyInfo, in hex.
        let publicKey: String
        let counter: Int64
        let environment: String
        let validationCategory: Int64?
        let bundleVersion: String?
    }

    private struct Spent: Decodable {
        let createdAt: Int64
    }

    /// Raises the key's counter to `counter`: true when it did, false when another assertion with this counter (or a
    /// higher one) got there first.
    static func advanceCounter(_ db: any SQLExecutor, appId: String, keyId: String, counter: Int64, now: Int64) throws -> Bool {
        try db.execute("""
            UPDATE attest_keys SET counter = \(counter), last_used_at = \(now)
            WHERE app_id = \(appId) AND key_id = \(keyId) AND counter < \(counter)
            """) == 1
    }

    /// Deletes the keys the install attested: how many went.
    static func deleteKeys(_ db: any SQLExecutor, appId: String, installId: String) throws -> Int {
        try db.execute("DELETE FROM attest_keys WHERE app_id = \(appId) AND install_id = \(installId)")
    }
}
