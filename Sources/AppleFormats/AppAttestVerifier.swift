import Foundation
import RunwayCrypto

/// Apple's App Attest checks, in Apple's order, each failure naming its step. The clock is passed in.
public struct AppAttestVerifier: Sendable {
    /// Apple's App Attestation Root CA.
    public let root: Certificate

    public init(root: Certificate) { self.root = root }

    public struct Attested: Sendable, Equatable {
        public let publicKey: PublicKey
        public let receipt: [UInt8]
        public let environment: AppAttestEnvironment
        /// The launch validation category and bundle version an iOS 27 device attested with, when it wrote them.
        public var extensions: AppAttestExtensions? = nil

        public static func == (a: Attested, b: Attested) -> Bool {
            a.publicKey.spki == b.publicKey.spki && a.receipt == b.receipt && a.environment == b.environment && a.extensions == b.extensions
        }
    }

    static let nonceOID = "1.2.840.113635.100.8.2"

    /// SHA-256 of the DER of Apple's App Attestation Root CA, as Apple publishes it.
    public static let rootFingerprint = "1cb9823ba28ba6ad2d33a006941de2ae4f513ef1d4e831b9f7e0fa7b6242c932"

    /// Reads a PEM file and accepts it only if it is Apple's App Attestation Root CA.
    public static func appleRoot(pem: String) -> Certificate? {
        guard let certificate = Certificate(pem: pem), ByteEncoding.hex(Digest.sha256(certificate.der)) == rootFingerprint else { return nil }
        return certificate
    }

    /// Verifies a key's attestation. `clientDataHash` is SHA-256 of what the app signed (our challenge's text).
    public func verifyAttestation(_ attestation: [UInt8], keyId: [UInt8], clientDataHash: [UInt8], appId: String, at time: Date,
                                  allowed: Set<AppAttestEnvironment> = Set(AppAttestEnvironment.allCases)) -> Result<Attested, AppAttestFailure> {
        do {
            let object = try AttestationObject.parse(attestation)
            let certificates = object.certificates.map(Certificate.init(der:))
            guard let leaf = certificates[0], let intermediate = certificates[1] else { return .failure(.certificates("a certificate does not parse")) }
            if let reason = ChainVerifier.failure(leaf: leaf, intermediates: [intermediate], roots: [root], at: time) {
                return .failure(.chain(reason))
            }
            guard let extensionValue = leaf.extensionValue(oid: Self.nonceOID), let nonce = DER.appAttestNonce(extensionValue) else {
                return .failure(.nonceMissing)
            }
            guard ConstantTime.equal(nonce, Digest.sha256(object.authenticatorData + clientDataHash)) else { return .failure(.nonceMismatch) }
            guard let publicKey = leaf.publicKey, let point = publicKey.ecPoint, ConstantTime.equal(Digest.sha256(point), keyId) else {
                return .failure(.keyIdMismatch)
            }
            let data = try AuthenticatorData.parse(object.authenticatorData, attested: true)
            guard ConstantTime.equal(data.rpIdHash, Digest.sha256(appId)) else { return .failure(.rpIdMismatch) }
            guard data.counter == 0 else { return .failure(.counterNotZero(data.counter)) }
            guard let aaguid = data.aaguid, let environment = AppAttestEnvironment(aaguid: aaguid) else { return .failure(.unknownAAGUID) }
            guard allowed.contains(environment) else { return .failure(.environmentNotAllowed(environment.rawValue)) }
            guard data.credentialId == keyId else { return .failure(.credentialIdMismatch) }
            return .success(Attested(publicKey: publicKey, receipt: object.receipt, environment: environment, extensions: data.extensions))
        } catch {
            return .failure(error)
        }
    }

    /// Verifies an assertion made with an attested key; returns its counter, which must exceed `previousCounter`.
    /// The signature is ECDSA P-256 with SHA-256 over the 32-byte nonce SHA-256(authenticatorData ‖ clientDataHash).
    public static func verifyAssertion(_ assertion: [UInt8], publicKey: PublicKey, clientDataHash: [UInt8], appId: String,
                                       previousCounter: UInt32) -> Result<UInt32, AppAttestFailure> {
        do {
            let object = try AssertionObject.parse(assertion)
            let nonce = Digest.sha256(object.authenticatorData + clientDataHash)
            guard publicKey.verify(derSignature: object.signature, message: nonce) else { return .failure(.signatureInvalid) }
            let data = try AuthenticatorData.parse(object.authenticatorData, attested: false)
            guard ConstantTime.equal(data.rpIdHash, Digest.sha256(appId)) else { return .failure(.rpIdMismatch) }
            guard data.counter > previousCounter else { return .failure(.counterNotIncreasing(previous: previousCounter, received: data.counter)) }
            return .success(data.counter)
        } catch {
            return .failure(error)
        }
    }
}
