/// Why an App Attest attestation or assertion was refused: the step that failed and, where it helps, details.
public enum AppAttestFailure: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed(String)
    case wrongFormat(String)
    case certificates(String)
    case chain(String)
    case nonceMissing
    case nonceMismatch
    case keyIdMismatch
    case rpIdMismatch
    case counterNotZero(UInt32)
    case unknownAAGUID
    case environmentNotAllowed(String)
    case credentialIdMismatch
    case signatureInvalid
    case counterNotIncreasing(previous: UInt32, received: UInt32)

    /// The name of the failing step, stable for clients and logs.
    public var step: String {
        switch self {
        case .malformed: return "decode"
        case .wrongFormat: return "format"
        case .certificates: return "certificates"
        case .chain: return "chain"
        case .nonceMissing, .nonceMismatch: return "nonce"
        case .keyIdMismatch: return "keyId"
        case .rpIdMismatch: return "rpIdHash"
        case .counterNotZero, .counterNotIncreasing: return "counter"
        case .unknownAAGUID, .environmentNotAllowed: return "environment"
        case .credentialIdMismatch: return "credentialId"
        case .signatureInvalid: return "signature"
        }
    }

    public var description: String {
        switch self {
        case .malformed(let why): return "cannot decode: \(why)"
        case .wrongFormat(let fmt): return "format is \"\(fmt)\", not apple-appattest"
        case .certificates(let why): return "certificates: \(why)"
        case .chain(let why): return "certificate chain to the App Attestation root: \(why)"
        case .nonceMissing: return "the credential certificate has no nonce extension"
        case .nonceMismatch: return "the nonce does not match SHA-256(authData ‖ clientDataHash)"
        case .keyIdMismatch: return "the key id is not the SHA-256 of the attested public key"
        case .rpIdMismatch: return "rpIdHash is not the SHA-256 of TEAMID.bundleId"
        case .counterNotZero(let n): return "an attestation's counter must be 0, not \(n)"
        case .unknownAAGUID: return "the AAGUID is neither appattestdevelop nor appattest (production)"
        case .environmentNotAllowed(let env): return "the \(env) environment is not allowed for this app"
        case .credentialIdMismatch: return "the credential id is not the key id"
        case .signatureInvalid: return "the signature does not verify with the key"
        case .counterNotIncreasing(let previous, let received): return "counter \(received) is not above the last one (\(previous)): a replay"
        }
    }
}

/// The environment an attestation comes from, told by its AAGUID.
public enum AppAttestEnvironment: String, Sendable, CaseIterable, Codable {
    case development, production

    init?(aaguid: [UInt8]) {
        if aaguid == Array("appattestdevelop".utf8) { self = .development }
        else if aaguid == Array("appattest".utf8) + [UInt8](repeating: 0, count: 7) { self = .production }
        else { return nil }
    }
}

/// The CBOR attestation object: `{fmt, attStmt: {x5c, receipt}, authData}`.
public struct AttestationObject: Sendable, Equatable {
    public let format: String
    public let certificates: [[UInt8]]
    public let receipt: [UInt8]
    public let authenticatorData: [UInt8]

    public static func parse(_ bytes: [UInt8]) throws(AppAttestFailure) -> AttestationObject {
        let item: CBOR
        do { item = try CBORDecoder().decode(bytes) } catch { throw .malformed("\(error)") }
        guard let format = item["fmt"]?.textValue else { throw .malformed("no fmt") }
        guard format == "apple-appattest" else { throw .wrongFormat(format) }
        guard let statement = item["attStmt"], let chain = statement["x5c"]?.arrayValue else { throw .certificates("no x5c") }
        let certificates = chain.compactMap(\.bytesValue)
        guard certificates.count == chain.count, certificates.count >= 2 else { throw .certificates("x5c must hold the credential certificate and its intermediate") }
        guard let authData = item["authData"]?.bytesValue else { throw .malformed("no authData") }
        return AttestationObject(format: format, certificates: certificates, receipt: statement["receipt"]?.bytesValue ?? [],
                                 authenticatorData: authData)
    }
}

/// The CBOR assertion object: `{signature, authenticatorData}`.
public struct AssertionObject: Sendable, Equatable {
    public let signature: [UInt8]
    public let authenticatorData: [UInt8]

    public static func parse(_ bytes: [UInt8]) throws(AppAttestFailure) -> AssertionObject {
        let item: CBOR
        do { item = try CBORDecoder().decode(bytes) } catch { throw .malformed("\(error)") }
        guard let signature = item["signature"]?.bytesValue, let data = item["authenticatorData"]?.bytesValue else {
            throw .malformed("an assertion needs signature and authenticatorData")
        }
        return AssertionObject(signature: signature, authenticatorData: data)
    }
}

/// What iOS 27 adds to an attestation's authenticator data, after the credential's public key: a CBOR map of
/// extensions naming how the system validated the app that made the key (its launch validation category) and the
/// app's bundle version (Apple's App Attest server guide,
/// https://developer.apple.com/documentation/devicecheck/validating-apps-that-connect-to-your-server, and WWDC26
/// session 201). Earlier systems write none.
public struct AppAttestExtensions: Sendable, Equatable {
    /// The launch validation category as sent (four little-endian bytes in Apple's sample; an unsigned integer is read
    /// too): 4 App Store, 2 TestFlight, 3 development, 5 enterprise, 6 Developer ID.
    public let validationCategory: UInt32?
    /// The app's bundle version (`CFBundleVersion`), at most 64 bytes.
    public let bundleVersion: String?

    public static let categoryKey = "apple_validation_category_01"
    public static let bundleVersionKey = "apple_bundle_version_01"

    public init(validationCategory: UInt32?, bundleVersion: String?) {
        self.validationCategory = validationCategory
        self.bundleVersion = bundleVersion
    }

    /// The extensions a map gives; a value of another shape than Apple's is left out, never an error (the bytes are
    /// Apple's, covered by the nonce).
    init?(_ map: CBOR) {
        guard case .map = map else { return nil }
        switch map[Self.categoryKey] {
        case .bytes(let bytes)? where bytes.count == 4:
            validationCategory = bytes.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        case .unsigned(let value)?:
            validationCategory = UInt32(exactly: value)
        default:
            validationCategory = nil
        }
        bundleVersion = map[Self.bundleVersionKey]?.textValue.flatMap { (1...64).contains($0.utf8.count) ? $0 : nil }
        guard validationCategory != nil || bundleVersion != nil else { return nil }
    }
}

/// WebAuthn authenticator data as App Attest uses it.
public struct AuthenticatorData: Sendable, Equatable {
    public let rpIdHash: [UInt8]
    public let flags: UInt8
    public let counter: UInt32
    public let aaguid: [UInt8]?
    public let credentialId: [UInt8]?
    /// An attestation's extensions after the credential's public key (iOS 27 and later), when readable.
    public var extensions: AppAttestExtensions? = nil

    /// `attested` data carries the AAGUID and credential after the counter.
    public static func parse(_ bytes: [UInt8], attested: Bool) throws(AppAttestFailure) -> AuthenticatorData {
        guard bytes.count >= 37 else { throw .malformed("authenticator data shorter than 37 bytes") }
        // trap-safe: every range below lies within the lengths the guards check
        let counter = bytes[33..<37].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard attested else {
            // trap-safe: bytes.count >= 37, checked above
            return AuthenticatorData(rpIdHash: Array(bytes[0..<32]), flags: bytes[32], counter: counter, aaguid: nil, credentialId: nil)
        }
        guard bytes.count >= 55 else { throw .malformed("no attested credential data") }
        let length = Int(bytes[53]) << 8 | Int(bytes[54])
        guard bytes.count >= 55 + length else { throw .malformed("credential id beyond the data") }
        // trap-safe: bytes.count >= 55 + length, checked on the line above
        var data = AuthenticatorData(rpIdHash: Array(bytes[0..<32]), flags: bytes[32], counter: counter, aaguid: Array(bytes[37..<53]),
                                     credentialId: Array(bytes[55..<(55 + length)]))  // trap-safe: bytes.count >= 55 + length, checked above
        data.extensions = extensions(after: bytes[(55 + length)...])  // trap-safe: bytes.count >= 55 + length, checked above
        return data
    }

    /// The extensions map that follows the credential's public key (a COSE key, one CBOR map), or nil when there is
    /// none or it cannot be read. Apple's iOS 27 sample carries it whether or not the extension flag is set.
    static func extensions(after credential: ArraySlice<UInt8>) -> AppAttestExtensions? {
        let decoder = CBORDecoder(maxDepth: 8, maxItems: 256)
        guard let key = try? decoder.decodePrefix(credential), key.length < credential.count,
              let map = try? decoder.decode(Array(credential.dropFirst(key.length))) else { return nil }
        return AppAttestExtensions(map)
    }
}

/// Just enough DER to read the App Attest nonce extension: `SEQUENCE { [1] { OCTET STRING nonce } }`.
enum DER {
    /// The contents of the TLV at `offset` with `tag`, and where it ends.
    static func element(_ bytes: [UInt8], at offset: Int, tag: UInt8) -> (contents: ArraySlice<UInt8>, end: Int)? {
        guard offset + 2 <= bytes.count, bytes[offset] == tag else { return nil }
        var length = Int(bytes[offset + 1])
        var start = offset + 2
        if length & 0x80 != 0 {
            let count = length & 0x7f
            guard count >= 1, count <= 3, start + count <= bytes.count else { return nil }
            length = bytes[start..<(start + count)].reduce(0) { $0 << 8 | Int($1) }  // trap-safe: start + count <= bytes.count, checked above
            start += count
        }
        guard start + length <= bytes.count else { return nil }
        return (bytes[start..<(start + length)], start + length)  // trap-safe: start + length <= bytes.count, checked above
    }

    static func appAttestNonce(_ extensionValue: [UInt8]) -> [UInt8]? {
        guard let sequence = element(extensionValue, at: 0, tag: 0x30) else { return nil }
        let inner = Array(sequence.contents)
        guard let tagged = element(inner, at: 0, tag: 0xA1) else { return nil }
        let octets = Array(tagged.contents)
        guard let nonce = element(octets, at: 0, tag: 0x04) else { return nil }
        return Array(nonce.contents)
    }
}
