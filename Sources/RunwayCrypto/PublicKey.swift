import COpenSSL
import Foundation

/// An EC public key held by OpenSSL; immutable, so it can be shared between threads.
public final class PublicKey: @unchecked Sendable {
    let key: OpaquePointer

    init(owning key: OpaquePointer) { self.key = key }

    deinit { EVP_PKEY_free(key) }

    /// From DER SubjectPublicKeyInfo; nil when it is not one.
    public convenience init?(spki: [UInt8]) {
        var pointer: UnsafePointer<UInt8>?
        let parsed: OpaquePointer? = spki.withUnsafeBufferPointer { buffer in
            pointer = buffer.baseAddress
            return d2i_PUBKEY(nil, &pointer, buffer.count)
        }
        guard let parsed else { ERR_clear_error(); return nil }
        self.init(owning: parsed)
    }

    /// From a PEM `PUBLIC KEY` block.
    public convenience init?(pem: String) {
        guard let der = PEM.decode(pem, label: "PUBLIC KEY") else { return nil }
        self.init(spki: der)
    }

    /// From an uncompressed P-256 point (65 bytes, 0x04 ‖ x ‖ y), as App Attest and COSE carry it.
    public convenience init?(p256Point point: [UInt8]) {
        guard point.count == 65, point[0] == 0x04 else { return nil }
        // A SubjectPublicKeyInfo is a fixed prefix for P-256 followed by the point.
        let prefix: [UInt8] = [0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86,
                               0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00]
        self.init(spki: prefix + point)
    }

    /// DER SubjectPublicKeyInfo.
    public var spki: [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_PUBKEY(key, &out)
        guard length > 0, let out else { return [] }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// The uncompressed EC point (0x04 ‖ x ‖ y); nil for other key types.
    public var ecPoint: [UInt8]? {
        var length = 0
        guard EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, nil, 0, &length) == 1, length > 0 else {
            ERR_clear_error()
            return nil
        }
        var out = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, &out, length, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        return Array(out.prefix(length))
    }

    /// The curve's name (`prime256v1`, `secp384r1`, …), or nil.
    public var curve: String? {
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, &name, name.count, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        return name.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }  // trap-safe: name is a non-empty buffer
    }

    public enum Digest: Sendable { case sha256, sha384 }

    /// ECDSA verification of a DER signature over `message` (hashed with `digest`). Only OpenSSL's 1 is success.
    public func verify(derSignature: [UInt8], message: [UInt8], digest: Digest = .sha256) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer {
            EVP_MD_CTX_free(context)
            ERR_clear_error()
        }
        let md = digest == .sha256 ? EVP_sha256() : EVP_sha384()
        guard EVP_DigestVerifyInit(context, nil, md, nil, key) == 1 else { return false }
        return derSignature.withUnsafeBufferPointer { signature in
            message.withUnsafeBufferPointer { data in
                EVP_DigestVerify(context, signature.baseAddress, signature.count, data.baseAddress, data.count) == 1
            }
        }
    }

    /// Verification of a raw `r ‖ s` signature (JWS ES256: 64 bytes), converted to DER first.
    public func verify(rawSignature: [UInt8], message: [UInt8], digest: Digest = .sha256) -> Bool {
        guard let der = ECDSASignature.der(fromRaw: rawSignature) else { return false }
        return verify(derSignature: der, message: message, digest: digest)
    }
}

/// Converting ECDSA signatures between the raw `r ‖ s` form (JWS) and DER (OpenSSL, X.509).
public enum ECDSASignature {
    public static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 64 || raw.count == 96 || raw.count == 132 else { return nil }
        let half = raw.count / 2
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32(half), nil) }
        // trap-safe: raw has 2 × half bytes, checked above
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + half, Int32(half), nil) }
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else { return nil }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_ECDSA_SIG(signature, &out)
        guard length > 0, let out else { return nil }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// DER to `r ‖ s`, each padded to `size` bytes.
    public static func raw(fromDER der: [UInt8], size: Int = 32) -> [UInt8]? {
        var pointer: UnsafePointer<UInt8>?
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            pointer = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &pointer, buffer.count)
        }
        guard let parsed else { ERR_clear_error(); return nil }
        defer { ECDSA_SIG_free(parsed) }
        guard let r = ECDSA_SIG_get0_r(parsed), let s = ECDSA_SIG_get0_s(parsed) else { return nil }
        var out = [UInt8](repeating: 0, count: size * 2)
        guard BN_bn2binpad(r, &out, Int32(size)) == Int32(size) else { return nil }
        // trap-safe: out has 2 × size bytes
        let written = out.withUnsafeMutableBufferPointer { BN_bn2binpad(s, $0.baseAddress! + size, Int32(size)) }
        guard written == Int32(size) else { return nil }
        return out
    }
}

/// PEM text to DER bytes.
public enum PEM {
    public static func decode(_ text: String, label: String) -> [UInt8]? {
        let begin = "-----BEGIN \(label)-----", end = "-----END \(label)-----"
        guard let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound..<text.endIndex) else { return nil }
        let body = text[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }  // trap-safe: stop was searched for after start in text
        return Data(base64Encoded: String(body)).map(Array.init)
    }

    /// Every block with `label`, in order.
    public static func decodeAll(_ text: String, label: String) -> [[UInt8]] {
        var blocks: [[UInt8]] = []
        var rest = Substring(text)
        while let start = rest.range(of: "-----BEGIN \(label)-----"), let stop = rest.range(of: "-----END \(label)-----", range: start.upperBound..<rest.endIndex) {
            // trap-safe: stop was searched for after start in rest
            if let der = decode(String(rest[start.lowerBound..<stop.upperBound]), label: label) { blocks.append(der) }
            rest = rest[stop.upperBound...]  // trap-safe: stop is a range of rest
        }
        return blocks
    }
}
