import COpenSSL

/// SHA-256 fetched from OpenSSL's providers once. The one-shot `SHA256()` fetches it again on every call (a lookup
/// under locks that cost more than hashing an API key); a fetched algorithm is immutable and safe to share.
nonisolated(unsafe) private let fetchedSHA256: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil)

/// SHA-256 and HMAC-SHA256 through OpenSSL's one-shot functions.
public enum Digest {
    /// The SHA-256 of `bytes` (32 bytes).
    public static func sha256<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            out.withUnsafeMutableBufferPointer { sha256(UnsafeRawBufferPointer(buffer), into: $0) }
        }
        if done == nil {
            let copy = Array(bytes)
            copy.withUnsafeBufferPointer { buffer in
                out.withUnsafeMutableBufferPointer { sha256(UnsafeRawBufferPointer(buffer), into: $0) }
            }
        }
        return out
    }

    private static func sha256(_ bytes: UnsafeRawBufferPointer, into out: UnsafeMutableBufferPointer<UInt8>) {
        var size: UInt32 = 0
        if let fetchedSHA256, EVP_Digest(bytes.baseAddress, bytes.count, out.baseAddress, &size, fetchedSHA256, nil) == 1 { return }
        _ = SHA256(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, out.baseAddress)
    }

    /// The SHA-256 of a string's UTF-8 bytes.
    public static func sha256(_ string: String) -> [UInt8] { sha256(Array(string.utf8)) }

    /// HMAC-SHA256 of `message` under `key` (32 bytes).
    public static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        key.withUnsafeBufferPointer { k in
            message.withUnsafeBufferPointer { m in
                out.withUnsafeMutableBufferPointer { o in
                    _ = HMAC(EVP_sha256(), k.baseAddress, Int32(k.count), m.baseAddress, m.count, o.baseAddress, &length)
                }
            }
        }
        return Array(out.prefix(Int(length)))
    }
}

extension Digest {
    /// PBKDF2-HMAC-SHA256 of `password` with `salt`: `length` bytes after `iterations` rounds (passwords at rest).
    public static func pbkdf2SHA256(password: [UInt8], salt: [UInt8], iterations: Int, length: Int = 32) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        let status = password.withUnsafeBufferPointer { p in
            salt.withUnsafeBufferPointer { s in
                out.withUnsafeMutableBufferPointer { o in
                    // trap-safe: the caller never passes an empty password (a buffer of at least one)
                    p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: max(1, p.count)) { text in
                        PKCS5_PBKDF2_HMAC(text, Int32(p.count), s.baseAddress, Int32(s.count), Int32(iterations), EVP_sha256(),
                                          Int32(length), o.baseAddress)
                    }
                }
            }
        }
        precondition(status == 1, "PBKDF2 failed")
        return out
    }
}
