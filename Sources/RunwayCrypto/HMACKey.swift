import COpenSSL

/// An HMAC-SHA256 key prepared once for many messages (the day's address key hashes every click): the padded key is
/// absorbed when the key is made, so each message costs two SHA-256 compressions and no allocation. The same result
/// as `Digest.hmacSHA256(key:message:)`.
public final class HMACSHA256Key: @unchecked Sendable {  // immutable after init
    private let state: UnsafeMutablePointer<lr_hmac_sha256_key>

    public init(_ key: [UInt8]) {
        state = .allocate(capacity: 1)
        state.initialize(to: lr_hmac_sha256_key())
        key.withUnsafeBufferPointer { lr_hmac_sha256_prepare(state, $0.baseAddress, $0.count) }
    }

    deinit {
        OPENSSL_cleanse(state, MemoryLayout<lr_hmac_sha256_key>.size)
        state.deallocate()
    }

    /// The 32-byte MAC of `message`.
    public func authenticate(_ message: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { out, count in
            lr_hmac_sha256_run(state, message.baseAddress, message.count, out.baseAddress)
            count = 32
        }
    }

    /// The MAC of a string's UTF-8 bytes.
    public func authenticate(_ message: String) -> [UInt8] {
        if let mac = message.utf8.withContiguousStorageIfAvailable({ authenticate(UnsafeRawBufferPointer($0)) }) { return mac }
        return Array(message.utf8).withUnsafeBytes { authenticate($0) }
    }
}
