import Dispatch
import RunwayCrypto

/// Console passwords at rest: PBKDF2-HMAC-SHA256 with a random salt, as `pbkdf2-sha256$<iterations>$<salt>$<hash>`
/// (base64url). Checked in constant time.
enum Passwords {
    /// OWASP's 2023 figure for PBKDF2-HMAC-SHA256.
    static let iterations = 600_000
    static let minimumLength = 12
    static let maximumLength = 1024

    static func hash(_ password: String, iterations: Int = iterations) -> String {
        let salt = SecureRandom.bytes(16)
        let derived = Digest.pbkdf2SHA256(password: Array(password.utf8), salt: salt, iterations: iterations)
        return "pbkdf2-sha256$\(iterations)$\(ByteEncoding.base64url(salt))$\(ByteEncoding.base64url(derived))"
    }

    static func verify(_ password: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$").map(String.init)
        guard parts.count == 4, parts[0] == "pbkdf2-sha256", let iterations = Int(parts[1]), (1...10_000_000).contains(iterations),
              let salt = ByteEncoding.fromBase64url(parts[2]), let expected = ByteEncoding.fromBase64url(parts[3]) else { return false }
        let derived = Digest.pbkdf2SHA256(password: Array(password.utf8), salt: salt, iterations: iterations, length: expected.count)
        return ConstantTime.equal(derived, expected)
    }

    /// Runs a hash or a check on a queue of its own, one at a time: PBKDF2 takes a good part of a second, which must
    /// not stall the threads that answer requests (and it caps what guessing can take from the machine).
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work()) }
        }
    }

    private static let queue = DispatchQueue(label: "linkrunway.passwords")

    /// A hash to check unknown emails against, so a wrong email costs as long as a wrong password.
    static let decoy = hash("not a password of anyone", iterations: iterations)
}
