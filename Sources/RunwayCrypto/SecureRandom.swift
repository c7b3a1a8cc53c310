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
        let limit = 256 - (256 % symbols.count)
        var result = [UInt8](repeating: 0, count: length)
        var filled = 0
        while filled < length {
            for byte in bytes(length * 2) where Int(byte) < limit {
                result[filled] = symbols[Int(byte) % symbols.count]
                filled += 1
                if filled == length { break }
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Letters and digits: 5.95 bits per character.
    public static let base62: [Character] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    /// Lower-case letters and digits without the look-alikes i, l, o, u: 5 bits per character.
    public static let base32: [Character] = Array("0123456789abcdefghjkmnpqrstvwxyz")
}
