import COpenSSL

/// SHA-256 and HMAC-SHA256 through OpenSSL's one-shot functions.
public enum Digest {
    /// The SHA-256 of `bytes` (32 bytes).
    public static func sha256<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            out.withUnsafeMutableBufferPointer { _ = SHA256(buffer.baseAddress, buffer.count, $0.baseAddress) }
        }
        if done == nil {
            let copy = Array(bytes)
            copy.withUnsafeBufferPointer { buffer in
                out.withUnsafeMutableBufferPointer { _ = SHA256(buffer.baseAddress, buffer.count, $0.baseAddress) }
            }
        }
        return out
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
