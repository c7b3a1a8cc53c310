/// A body signed with two headers: a Unix time in seconds, and `sha256=<hex HMAC-SHA256 of "<time>." + body>` under a
/// shared secret. The time must be within `maxSkewSeconds` of now, so a captured request cannot be replayed later.
public enum TimestampedHMAC {
    public enum Failure: Error, Equatable {
        /// The time is missing, not a whole number, or too far from now.
        case timestamp
        /// The signature is missing or not `sha256=<hex>`.
        case malformed
        /// Well formed, but not this secret's signature of this body at this time.
        case mismatch
    }

    /// Checks the headers' values against `body`; compares in constant time. Never overflows, whatever the time says.
    public static func verify(timestamp: String?, signature: String?, body: [UInt8], secret: [UInt8], now: Int64,
                              maxSkewSeconds: Int64) -> Result<Void, Failure> {
        guard let timestamp, let seconds = Int64(timestamp), (now - maxSkewSeconds)...(now + maxSkewSeconds) ~= seconds else {
            return .failure(.timestamp)
        }
        guard let signature, signature.hasPrefix("sha256="), let given = ByteEncoding.fromHex(String(signature.dropFirst(7))) else {
            return .failure(.malformed)
        }
        let expected = Digest.hmacSHA256(key: secret, message: Array("\(timestamp).".utf8) + body)
        return ConstantTime.equal(given, expected) ? .success(()) : .failure(.mismatch)
    }
}
