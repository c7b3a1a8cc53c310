import Foundation
import RunwayCrypto
import Synchronization

/// Console passwords at rest: PBKDF2-HMAC-SHA256 with a random salt, as `pbkdf2-sha256$<iterations>$<salt>$<hash>`
/// (base64url). Checked in constant time.
package enum Passwords {
    /// OWASP's 2023 figure for PBKDF2-HMAC-SHA256.
    package static let iterations = 600_000
    package static let minimumLength = 12
    package static let maximumLength = 1024

    package static func hash(_ password: String, iterations: Int = iterations) -> String {
        let salt = SecureRandom.bytes(16)
        let derived = Digest.pbkdf2SHA256(password: Array(password.utf8), salt: salt, iterations: iterations)
        return "pbkdf2-sha256$\(iterations)$\(ByteEncoding.base64url(salt))$\(ByteEncoding.base64url(derived))"
    }

    package static func verify(_ password: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$").map(String.init)
        guard parts.count == 4, parts[0] == "pbkdf2-sha256", let iterations = Int(parts[1]), (1...10_000_000).contains(iterations),
              let salt = ByteEncoding.fromBase64url(parts[2]), let expected = ByteEncoding.fromBase64url(parts[3]) else { return false }
        let derived = Digest.pbkdf2SHA256(password: Array(password.utf8), salt: salt, iterations: iterations, length: expected.count)
        return ConstantTime.equal(derived, expected)
    }

    /// A hash to check unknown emails against, so a wrong email costs as long as a wrong password.
    package static let decoy = hash("not a password of anyone", iterations: iterations)
}

/// The threads a server runs PBKDF2 on (half the cores, at least one): a hash takes a good part of a second, which must
/// not stall the threads that answer requests. At most `maxPending` hashes run or wait; past that a caller is told to
/// retry at once instead of queueing behind a flood of guesses (which once made a right password wait 24 s).
package final class PasswordPool: Sendable {
    package let workers: Int
    package let maxPending: Int
    private let pending = Mutex(0)
    private let slots: DispatchSemaphore
    private let queue = DispatchQueue(label: "linkrunway.passwords", attributes: .concurrent)

    package init(workers: Int = max(1, ProcessInfo.processInfo.activeProcessorCount / 2)) {
        self.workers = workers
        self.maxPending = workers * 4
        self.slots = DispatchSemaphore(value: workers)
    }

    /// Hashes running or waiting now.
    package var pendingCount: Int { pending.withLock { $0 } }

    /// Runs `work` on a password thread, or returns nil at once when `maxPending` are already running or waiting.
    package func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T? {
        guard pending.withLock({ count in
            guard count < maxPending else { return false }
            count += 1
            return true
        }) else { return nil }
        return await withCheckedContinuation { continuation in
            queue.async { [self] in
                slots.wait()
                let result = work()
                slots.signal()
                pending.withLock { $0 -= 1 }
                continuation.resume(returning: result)
            }
        }
    }
}
