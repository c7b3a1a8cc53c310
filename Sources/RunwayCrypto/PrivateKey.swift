import COpenSSL

/// An EC private key, for what the server signs itself (ad-network impressions) and for tests.
public final class PrivateKey: @unchecked Sendable {
    let key: OpaquePointer

    deinit { EVP_PKEY_free(key) }

    private init(owning key: OpaquePointer) { self.key = key }

    /// A new random P-256 key.
    public static func generateP256() -> PrivateKey? {
        guard let key = lr_generate_p256() else { ERR_clear_error(); return nil }
        return PrivateKey(owning: key)
    }

    /// A new random key on a named curve: `P-256`, or `P-192` (which tests need to stand in for SKAdNetwork 2.0).
    public static func generate(curve: String) -> PrivateKey? {
        guard let key = lr_generate_ec(curve) else { ERR_clear_error(); return nil }
        return PrivateKey(owning: key)
    }

    /// PKCS#8 PEM (`PRIVATE KEY`), to keep in a file.
    public var pem: String? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 else { ERR_clear_error(); return nil }
        var pointer: UnsafeMutablePointer<CChar>?
        let length = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &pointer)
        guard length > 0, let pointer else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    /// From a PEM `PRIVATE KEY` (PKCS#8) or `EC PRIVATE KEY` block.
    public static func pem(_ text: String) -> PrivateKey? {
        guard let bio = BIO_new_mem_buf(text, Int32(text.utf8.count)) else { return nil }
        defer { BIO_free(bio) }
        guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else { ERR_clear_error(); return nil }
        return PrivateKey(owning: key)
    }

    /// The matching public key.
    public var publicKey: PublicKey? {
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_PUBKEY(key, &out)
        guard length > 0, let out else { return nil }
        defer { CRYPTO_free(out, #fileID, #line) }
        return PublicKey(spki: Array(UnsafeBufferPointer(start: out, count: Int(length))))
    }

    /// An ECDSA SHA-256 signature of `message`, DER-encoded.
    public func sign(_ message: [UInt8]) -> [UInt8]? {
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer {
            EVP_MD_CTX_free(context)
            ERR_clear_error()
        }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { return nil }
        var length = 0
        guard message.withUnsafeBufferPointer({ EVP_DigestSign(context, nil, &length, $0.baseAddress, $0.count) }) == 1 else { return nil }
        var signature = [UInt8](repeating: 0, count: length)
        guard message.withUnsafeBufferPointer({ EVP_DigestSign(context, &signature, &length, $0.baseAddress, $0.count) }) == 1 else { return nil }
        return Array(signature.prefix(length))
    }
}
