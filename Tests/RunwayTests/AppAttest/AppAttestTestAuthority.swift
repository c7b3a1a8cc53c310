@testable import AppleFormats
import Foundation
import RunwayCrypto

/// A test App Attest authority shaped like Apple's: a root, an intermediate, and per device key a credential certificate
/// carrying the nonce extension. With it a test builds attestations Apple would never sign (a wrong credential id, a
/// non-zero counter, an unknown AAGUID) to see each check refuse them. Production accepts only Apple's root
/// (`AppAttestVerifier.appleRoot(pem:)` compares its fingerprint), so this authority never passes there.
final class AppAttestTestAuthority: Sendable {
    let root: Certificate
    let intermediate: Certificate
    let intermediateKey: PrivateKey
    static let appId = "ABCDE12345.com.example.attested"
    static let production = Array("appattest".utf8) + [UInt8](repeating: 0, count: 7)
    static let development = Array("appattestdevelop".utf8)

    /// A key made on a "device": the attested key and its id (SHA-256 of its uncompressed point).
    struct DeviceKey: Sendable {
        let key: PrivateKey
        var keyId: [UInt8] { Digest.sha256(key.publicKey!.ecPoint!) }
        var keyIdBase64: String { Data(keyId).base64EncodedString() }
    }

    init() {
        let now = Date()
        let rootKey = PrivateKey.generateP256()!
        intermediateKey = PrivateKey.generateP256()!
        root = CertificateBuilder.make(commonName: "Test App Attestation Root CA", key: rootKey, issuer: nil, serial: 1,
                                       notBefore: now.addingTimeInterval(-10 * 365 * 86_400), notAfter: now.addingTimeInterval(10 * 365 * 86_400), ca: true)!
        intermediate = CertificateBuilder.make(commonName: "Test App Attestation CA 1", key: intermediateKey, issuer: .init(certificate: root, key: rootKey),
                                               serial: 2, notBefore: now.addingTimeInterval(-5 * 365 * 86_400),
                                               notAfter: now.addingTimeInterval(5 * 365 * 86_400), ca: true)!
    }

    func deviceKey() -> DeviceKey { DeviceKey(key: PrivateKey.generateP256()!) }

    /// The root as a PEM file's text.
    var rootPEM: String {
        let lines = Data(root.der).base64EncodedString(options: .lineLength64Characters)
        return "-----BEGIN CERTIFICATE-----\n\(lines)\n-----END CERTIFICATE-----\n"
    }

    /// An attestation of `device` over `challenge` (its SHA-256 is the client data hash), as Apple's would be; each
    /// parameter can break one thing Apple guarantees.
    func attestation(_ device: DeviceKey, challenge: String, appId: String = appId, counter: UInt32 = 0, aaguid: [UInt8] = production,
                     credentialId: [UInt8]? = nil, nonceFor otherChallenge: String? = nil, withNonce: Bool = true,
                     leafValidFrom: Date = Date().addingTimeInterval(-86_400), leafValidDays: Double = 3, issuer: (Certificate, PrivateKey)? = nil,
                     publicKey: Bool = false, extensions: [UInt8] = []) -> [UInt8] {
        let credential = credentialId ?? device.keyId
        // The credential's public key as a COSE key, and what iOS 27 writes after it, when asked for.
        let cose = publicKey || !extensions.isEmpty ? Self.coseKey(device) : []
        let authData = Digest.sha256(appId) + [0x40] + Self.bigEndian(counter) + aaguid
            + [UInt8(credential.count >> 8), UInt8(credential.count & 0xff)] + credential + cose + extensions
        let nonce = Digest.sha256(authData + Digest.sha256(otherChallenge ?? challenge))
        // SEQUENCE { [1] { OCTET STRING nonce } }
        let nonceExtension: [UInt8] = [0x30, 0x24, 0xA1, 0x22, 0x04, 0x20] + nonce
        let (issuerCertificate, issuerKey) = issuer ?? (intermediate, intermediateKey)
        let leaf = CertificateBuilder.make(commonName: ByteEncoding.hex(device.keyId), key: device.key,
                                           issuer: .init(certificate: issuerCertificate, key: issuerKey), serial: 3, notBefore: leafValidFrom,
                                           notAfter: leafValidFrom.addingTimeInterval(leafValidDays * 86_400), ca: false,
                                           extensions: withNonce ? [(AppAttestVerifier.nonceOID, nonceExtension)] : [])!
        return TestCBOR.encode(.map([
            ("fmt", .text("apple-appattest")),
            ("attStmt", .map([("x5c", .array([.bytes(leaf.der), .bytes(intermediate.der)])), ("receipt", .bytes(Array("test receipt".utf8)))])),
            ("authData", .bytes(authData)),
        ]))
    }

    /// An assertion by `device` over `challenge` with `counter`.
    static func assertion(_ device: DeviceKey, challenge: String, counter: UInt32, appId: String = appId) -> [UInt8] {
        let authData = Digest.sha256(appId) + [0x40] + bigEndian(counter)
        let signature = device.key.sign(Digest.sha256(authData + Digest.sha256(challenge)))!
        return TestCBOR.encode(.map([("signature", .bytes(signature)), ("authenticatorData", .bytes(authData))]))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }

    /// `{1: 2, 3: -7, -1: 1, -2: x, -3: y}`: an EC2 P-256 key for ES256, as WebAuthn writes the credential's key.
    static func coseKey(_ device: DeviceKey) -> [UInt8] {
        let point = device.key.publicKey!.ecPoint!
        return [0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20] + point[1..<33] + [0x22, 0x58, 0x20] + point[33..<65]
    }

    /// iOS 27's extensions map: the launch validation category as four little-endian bytes (as Apple's sample writes
    /// it) or, with `integer`, as an unsigned integer, and the bundle version.
    static func launch(category: UInt32?, bundleVersion: String?, integer: Bool = false) -> [UInt8] {
        var pairs: [(String, TestCBOR.Item)] = []
        if let category {
            pairs.append((AppAttestExtensions.categoryKey, integer ? .unsigned(UInt64(category)) : .bytes(withUnsafeBytes(of: category.littleEndian, Array.init))))
        }
        if let bundleVersion { pairs.append((AppAttestExtensions.bundleVersionKey, .text(bundleVersion))) }
        return TestCBOR.map(pairs)
    }
}

/// A few CBOR encodings, to build test objects.
enum TestCBOR {
    indirect enum Item { case bytes([UInt8]), text(String), array([Item]), map([(String, Item)]), unsigned(UInt64) }

    static func head(_ major: UInt8, _ length: Int) -> [UInt8] {
        switch length {
        case 0..<24: return [major << 5 | UInt8(length)]
        case 24..<256: return [major << 5 | 24, UInt8(length)]
        default: return [major << 5 | 25, UInt8(length >> 8), UInt8(length & 0xff)]
        }
    }

    static func encode(_ item: Item) -> [UInt8] {
        switch item {
        case .unsigned(let n): return head(0, Int(n))
        case .bytes(let b): return head(2, b.count) + b
        case .text(let t): return head(3, t.utf8.count) + Array(t.utf8)
        case .array(let items): return head(4, items.count) + items.flatMap(encode)
        case .map(let pairs): return head(5, pairs.count) + pairs.flatMap { encode(.text($0.0)) + encode($0.1) }
        }
    }

    static func map(_ pairs: [(String, Item)]) -> [UInt8] { encode(.map(pairs)) }
}
