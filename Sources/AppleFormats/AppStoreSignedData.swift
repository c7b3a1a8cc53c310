import Foundation
import RunwayCrypto
import RunwayJSON
import Synchronization

/// App Store signed data (App Store Server Notifications v2, signed transactions and renewal info): a compact JWS
/// whose `x5c` carries leaf, intermediate and root. The leaf and intermediate are checked up to the configured root
/// (the chain's own third certificate is ignored), with Apple's marker OIDs, at the payload's `signedDate`; then the
/// ES256 signature with the leaf's key.
public final class AppStoreVerifier: Sendable {
    /// Apple's App Store environments.
    public enum Environment: String, Sendable, CaseIterable {
        case production = "Production", sandbox = "Sandbox", xcode = "Xcode", localTesting = "LocalTesting"
    }

    /// The step that failed, named as Apple's libraries name their statuses.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Not a JWS of three parts, an undecodable part, no `x5c` of three certificates, or `alg` not ES256.
        case invalidFormat(String)
        /// The certificate chain, an OID, the validity at the signing time, or the signature.
        case verificationFailure(String)
        case invalidAppIdentifier(String)
        case invalidEnvironment(String)

        public var status: String {
            switch self {
            case .invalidFormat: return "INVALID_JWT_FORMAT"
            case .verificationFailure: return "VERIFICATION_FAILURE"
            case .invalidAppIdentifier: return "INVALID_APP_IDENTIFIER"
            case .invalidEnvironment: return "INVALID_ENVIRONMENT"
            }
        }

        public var description: String {
            switch self {
            case .invalidFormat(let why), .verificationFailure(let why), .invalidAppIdentifier(let why), .invalidEnvironment(let why): return why
            }
        }
    }

    /// Apple's Worldwide Developer Relations intermediate marker.
    public static let intermediateOID = "1.2.840.113635.100.6.2.1"
    /// Apple's receipt-signing leaf marker.
    public static let leafOID = "1.2.840.113635.100.6.11.1"
    /// SHA-256 of Apple Root CA - G3, as Apple publishes it.
    public static let appleRootG3Fingerprint = "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"

    public let root: Certificate
    /// Intermediates already checked against the root: their DER's SHA-256 → validity window.
    private let checkedIntermediates = Mutex<[String: ClosedRange<Date>]>([:])
    /// Parsed `x5c` entries by their base64 text (parsing is not checking: every use is checked again).
    private let parsed = Mutex<[String: Certificate]>([:])

    public init(root: Certificate) { self.root = root }

    /// A verified JWS: its decoded payload and the time it was checked at.
    public struct Verified: Sendable {
        public let payload: JSONValue
        public let signedAt: Date
    }

    /// Verifies the chain and signature of `text`. Environment `.xcode` and `.localTesting` skip the chain as Apple's
    /// libraries do (StoreKit Testing signs with a self-signed certificate): only the signature with `x5c[0]` counts.
    public func verify(_ text: String, environment: Environment = .production, now: Date = Date()) -> Result<Verified, Failure> {
        let jws: CompactJWS
        do {
            jws = try CompactJWS.parse(text)
        } catch {
            switch error {
            case .malformed(let why): return .failure(.invalidFormat(why))
            case .unsupportedAlgorithm(let alg): return .failure(.invalidFormat("alg is \(alg), not ES256"))
            }
        }
        guard let chain = jws.header["x5c"]?.arrayValue else { return .failure(.invalidFormat("the header has no x5c")) }
        let certificates = chain.compactMap { $0.stringValue.flatMap(certificate(base64:)) }
        guard certificates.count == chain.count, !certificates.isEmpty else { return .failure(.invalidFormat("an x5c certificate does not decode")) }
        let signedAt = Self.signedDate(jws.payload) ?? now
        let leaf = certificates[0]
        if environment == .xcode || environment == .localTesting {
            guard let key = leaf.publicKey, jws.verifies(with: key) else { return .failure(.verificationFailure("the signature does not verify")) }
            return .success(Verified(payload: jws.payload, signedAt: signedAt))
        }
        guard certificates.count == 3 else { return .failure(.invalidFormat("x5c has \(certificates.count) certificates, not 3")) }
        if let failure = chainFailure(leaf: leaf, intermediate: certificates[1], at: signedAt) { return .failure(failure) }
        guard let key = leaf.publicKey, jws.verifies(with: key) else { return .failure(.verificationFailure("the signature does not verify")) }
        return .success(Verified(payload: jws.payload, signedAt: signedAt))
    }

    /// Apple's OIDs on both certificates, then the chain up to the root at `time`.
    public func chainFailure(leaf: Certificate, intermediate: Certificate, at time: Date) -> Failure? {
        guard intermediate.extensionValue(oid: Self.intermediateOID) != nil else {
            return .verificationFailure("the intermediate lacks Apple's OID \(Self.intermediateOID)")
        }
        guard leaf.extensionValue(oid: Self.leafOID) != nil else { return .verificationFailure("the leaf lacks Apple's OID \(Self.leafOID)") }
        return checkChain(leaf: leaf, intermediate: intermediate, at: time).map { .verificationFailure("certificate chain: \($0)") }
    }

    /// A notification for the app `bundleId` (and, in production, `appAppleId`) in `environment`, checked in the
    /// order Apple's libraries check: signature and chain, app identifier, environment.
    public func verifyNotification(_ text: String, bundleId: String, appAppleId: Int64?, environment: Environment,
                                   now: Date = Date()) -> Result<(AppStoreNotification, Date), Failure> {
        switch decodeNotification(text, environment: environment, now: now) {
        case .failure(let failure): return .failure(failure)
        case .success(let (notification, signedAt)):
            if let failure = Self.identityFailure(notification, bundleId: bundleId, appAppleId: appAppleId, environment: environment) {
                return .failure(failure)
            }
            return .success((notification, signedAt))
        }
    }

    /// A notification whose signature and chain verify, decoded but not yet held to an app or an environment, for a
    /// caller that decides differently from Apple's libraries on some of them.
    public func decodeNotification(_ text: String, environment: Environment, now: Date = Date()) -> Result<(AppStoreNotification, Date), Failure> {
        switch verify(text, environment: environment, now: now) {
        case .failure(let failure): return .failure(failure)
        case .success(let verified):
            guard let notification = AppStoreNotification(verified.payload) else {
                return .failure(.invalidFormat("the payload has no notificationType or notificationUUID"))
            }
            return .success((notification, verified.signedAt))
        }
    }

    /// Apple's checks of a verified notification: the app identifier (the App Store id only in production), then the
    /// environment. Nil when both hold.
    public static func identityFailure(_ notification: AppStoreNotification, bundleId: String, appAppleId: Int64?, environment: Environment) -> Failure? {
        guard notification.bundleId == bundleId, environment != .production || notification.appAppleId == appAppleId else {
            return .invalidAppIdentifier("the notification is for \(notification.bundleId ?? "no bundle") (\(notification.appAppleId.map(String.init) ?? "no app id"))")
        }
        guard notification.environment == environment.rawValue else {
            return .invalidEnvironment("the notification is from \(notification.environment ?? "no environment"), not \(environment.rawValue)")
        }
        return nil
    }

    /// A signed app transaction of the app `bundleId` (and, in production, `appAppleId`) in `environment`, checked as
    /// Apple's libraries check one: its `receiptType` is the environment.
    public func verifyAppTransaction(_ text: String, bundleId: String, appAppleId: Int64?, environment: Environment,
                                     now: Date = Date()) -> Result<AppStoreAppTransaction, Failure> {
        switch verify(text, environment: environment, now: now) {
        case .failure(let failure): return .failure(failure)
        case .success(let verified):
            guard let app = AppStoreAppTransaction(verified.payload) else { return .failure(.invalidFormat("the app transaction is not an object")) }
            guard app.bundleId == bundleId, environment != .production || app.appAppleId == appAppleId else {
                return .failure(.invalidAppIdentifier("the app transaction is for \(app.bundleId ?? "no bundle") (\(app.appAppleId.map(String.init) ?? "no app id"))"))
            }
            guard app.receiptType == environment.rawValue else {
                return .failure(.invalidEnvironment("the app transaction is from \(app.receiptType ?? "no environment"), not \(environment.rawValue)"))
            }
            return .success(app)
        }
    }

    /// A signed transaction of the app `bundleId` in `environment`.
    public func verifyTransaction(_ text: String, bundleId: String, environment: Environment, now: Date = Date()) -> Result<AppStoreTransaction, Failure> {
        switch verify(text, environment: environment, now: now) {
        case .failure(let failure): return .failure(failure)
        case .success(let verified):
            guard let transaction = AppStoreTransaction(verified.payload) else {
                return .failure(.invalidFormat("the transaction is not an object, or a field is outside Apple's format"))
            }
            guard transaction.bundleId == bundleId else {
                return .failure(.invalidAppIdentifier("the transaction is for \(transaction.bundleId ?? "no bundle")"))
            }
            guard transaction.environment == environment.rawValue else {
                return .failure(.invalidEnvironment("the transaction is from \(transaction.environment ?? "no environment"), not \(environment.rawValue)"))
            }
            return .success(transaction)
        }
    }

    /// Signed renewal info in `environment` (it carries no bundle id).
    public func verifyRenewalInfo(_ text: String, environment: Environment, now: Date = Date()) -> Result<JSONValue, Failure> {
        switch verify(text, environment: environment, now: now) {
        case .failure(let failure): return .failure(failure)
        case .success(let verified):
            guard verified.payload["environment"]?.stringValue == environment.rawValue else {
                return .failure(.invalidEnvironment("the renewal info is from \(verified.payload["environment"]?.stringValue ?? "no environment")"))
            }
            return .success(verified.payload)
        }
    }

    private func certificate(base64 text: String) -> Certificate? {
        if let known = parsed.withLock({ $0[text] }) { return known }
        guard let certificate = ByteEncoding.fromBase64(text).flatMap(Certificate.init(der:)) else { return nil }
        parsed.withLock { cache in
            if cache.count > 256 { cache.removeAll() }
            cache[text] = certificate
        }
        return certificate
    }

    /// The whole chain the first time an intermediate is seen (and whenever the time falls outside what was checked);
    /// after that the leaf against the cached intermediate, every time: issued and signed by it, valid at `time`.
    private func checkChain(leaf: Certificate, intermediate: Certificate, at time: Date) -> String? {
        let fingerprint = ByteEncoding.hex(Digest.sha256(intermediate.der))
        if let window = checkedIntermediates.withLock({ $0[fingerprint] }), window.contains(time) {
            guard leaf.isIssued(by: intermediate) else { return "the leaf is not signed by the intermediate" }
            guard leaf.validity?.contains(time) == true else { return "the leaf is not valid at \(time)" }
            return nil
        }
        if let reason = ChainVerifier.failure(leaf: leaf, intermediates: [intermediate], roots: [root], at: time) { return reason }
        if let window = intermediate.validity {
            checkedIntermediates.withLock { cache in
                if cache.count > 64 { cache.removeAll() }
                cache[fingerprint] = window
            }
        }
        return nil
    }

    /// `signedDate` in milliseconds (fractional ones are truncated), if the payload has one.
    static func signedDate(_ payload: JSONValue) -> Date? {
        guard let value = payload["signedDate"]?.doubleValue else { return nil }
        return Date(timeIntervalSince1970: (value / 1000).rounded(.down))
    }

    /// Reads a certificate file (DER or PEM).
    public static func certificate(file data: [UInt8]) -> Certificate? {
        Certificate(der: data) ?? Certificate(pem: String(decoding: data, as: UTF8.self))
    }
}
