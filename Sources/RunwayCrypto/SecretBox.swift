import COpenSSL

/// Seals short secrets for storage with AES-256-GCM under a key kept outside the database, so a copy of the database
/// alone reveals none of them. A sealed value is text: `sealed1:` and the base64url of a random 12-byte nonce, the
/// ciphertext and the 16-byte tag. The purpose (`webhooks.secret`, say) is authenticated with it, so a value moved to
/// another column does not open.
public struct SecretBox: Sendable {
    public static let prefix = "sealed1:"
    private let key: [UInt8]

    /// A box for a 32-byte key; nil for any other length.
    public init?(key: [UInt8]) {
        guard key.count == 32 else { return nil }
        self.key = key
    }

    /// Whether `text` is sealed (as opposed to a value stored before sealing existed).
    public static func isSealed(_ text: String) -> Bool { text.hasPrefix(prefix) }

    /// A 16-byte check of the key, stored beside sealed values to tell a wrong key file from a damaged value.
    public var fingerprint: String { ByteEncoding.hex(Array(Digest.hmacSHA256(key: key, message: Array("linkrunway secret key check".utf8)).prefix(16))) }

    public func seal(_ plaintext: String, purpose: String) -> String {
        let nonce = SecureRandom.bytes(12)
        guard let (ciphertext, tag) = crypt(encrypt: true, Array(plaintext.utf8), nonce: nonce, purpose: purpose, tag: nil) else {
            fatalError("AES-256-GCM sealing failed")  // OpenSSL cannot fail here short of running out of memory
        }
        return Self.prefix + ByteEncoding.base64url(nonce + ciphertext + tag)
    }

    /// The plaintext of a sealed value; nil when it does not open with this key and purpose.
    public func open(_ sealed: String, purpose: String) -> String? {
        guard Self.isSealed(sealed), let bytes = ByteEncoding.fromBase64url(String(sealed.dropFirst(Self.prefix.count))),
              bytes.count >= 28 else { return nil }
        // trap-safe: bytes.count >= 28, checked above
        let nonce = Array(bytes[0..<12]), tag = Array(bytes[(bytes.count - 16)...]), ciphertext = Array(bytes[12..<(bytes.count - 16)])
        guard let (plaintext, _) = crypt(encrypt: false, ciphertext, nonce: nonce, purpose: purpose, tag: tag) else { return nil }
        return String(validating: plaintext, as: UTF8.self)
    }

    private func crypt(encrypt: Bool, _ input: [UInt8], nonce: [UInt8], purpose: String, tag: [UInt8]?) -> ([UInt8], [UInt8])? {
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        let start = encrypt ? EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce)
            : EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce)
        guard start == 1 else { return nil }
        var length: Int32 = 0
        let aad = Array(purpose.utf8)
        let update = encrypt ? EVP_EncryptUpdate(context, nil, &length, aad, Int32(aad.count)) : EVP_DecryptUpdate(context, nil, &length, aad, Int32(aad.count))
        guard update == 1 else { return nil }
        var output = [UInt8](repeating: 0, count: input.count + 16)
        if !input.isEmpty {
            let step = encrypt ? EVP_EncryptUpdate(context, &output, &length, input, Int32(input.count))
                : EVP_DecryptUpdate(context, &output, &length, input, Int32(input.count))
            guard step == 1 else { return nil }
        }
        var total = Int(length)
        if encrypt {
            var finalLength: Int32 = 0
            // trap-safe: output is sized for the whole text and its final block
            guard output.withUnsafeMutableBufferPointer({ EVP_EncryptFinal_ex(context, $0.baseAddress! + total, &finalLength) }) == 1 else { return nil }
            total += Int(finalLength)
            var tag = [UInt8](repeating: 0, count: 16)
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, &tag) == 1 else { return nil }
            return (Array(output.prefix(total)), tag)
        }
        guard var expected = tag, EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, 16, &expected) == 1 else { return nil }
        var finalLength: Int32 = 0
        // The tag is checked here: a wrong key, purpose or a changed byte fails.
        // trap-safe: output is sized for the whole text and its final block
        guard output.withUnsafeMutableBufferPointer({ EVP_DecryptFinal_ex(context, $0.baseAddress! + total, &finalLength) }) == 1 else { return nil }
        total += Int(finalLength)
        return (Array(output.prefix(total)), [])
    }
}
