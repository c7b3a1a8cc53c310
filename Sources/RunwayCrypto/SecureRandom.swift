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

    /// A random string of `length` characters from `alphabet`, without modulo bias.
    public static func string(length: Int, alphabet: [Character]) -> String {
        precondition(!alphabet.isEmpty && alphabet.count <= 256)
        let limit = 256 - (256 % alphabet.count)
        var result = ""
        result.reserveCapacity(length)
        while result.count < length {
            for byte in bytes(length * 2) where Int(byte) < limit {
                result.append(alphabet[Int(byte) % alphabet.count])
                if result.count == length { break }
            }
        }
        return result
    }

    /// Letters and digits: 5.95 bits per character.
    public static let base62: [Character] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    /// Lower-case letters and digits without the look-alikes i, l, o, u: 5 bits per character.
    public static let base32: [Character] = Array("0123456789abcdefghjkmnpqrstvwxyz")
}
