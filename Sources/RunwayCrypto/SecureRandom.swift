import COpenSSL

/// Cryptographically secure randomness from OpenSSL's DRBG.
public enum SecureRandom {
    /// `count` random bytes. Traps if the generator fails, which only happens when the system has no entropy source.
    public static func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let status = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        precondition(status == 1, "OpenSSL RAND_bytes failed")
        return out
    }

    /// A random string of `length` characters from `alphabet` (ASCII), without modulo bias.
    public static func string(length: Int, alphabet: [Character]) -> String {
        precondition(!alphabet.isEmpty && alphabet.count <= 256)
        let symbols = alphabet.map { character -> UInt8 in
            guard let ascii = character.asciiValue else { preconditionFailure("the alphabet must be ASCII") }
            return ascii
        }
        return String(unsafeUninitializedCapacity: length) { out in
            symbols.withUnsafeBufferPointer { fill(out, from: $0) }
            return length
        }
    }

    /// Fills `out` with characters drawn uniformly from `symbols` (ASCII): random bytes come straight from OpenSSL's
    /// generator into a buffer on the stack, and a byte is kept only below the largest multiple of the alphabet's
    /// size, so there is no modulo bias.
    public static func fill(_ out: UnsafeMutableBufferPointer<UInt8>, from symbols: UnsafeBufferPointer<UInt8>) {
        let limit = 256 - (256 % symbols.count)
        var filled = 0
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { random in
            while filled < out.count {
                precondition(RAND_bytes(random.baseAddress, Int32(random.count)) == 1, "OpenSSL RAND_bytes failed")
                for byte in random where Int(byte) < limit {
                    out[filled] = symbols[Int(byte) % symbols.count]
                    filled += 1
                    if filled == out.count { break }
                }
            }
        }
    }

    /// Letters and digits: 5.95 bits per character.
    public static let base62: [Character] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    /// `base62` as ASCII bytes.
    public static let base62Bytes: [UInt8] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
    /// Lower-case letters and digits without the look-alikes i, l, o, u: 5 bits per character.
    public static let base32: [Character] = Array("0123456789abcdefghjkmnpqrstvwxyz")
}
