/// `POST /v1/attest/apple/challenge`: a one-time challenge, taken by an assertion for five minutes and by an attestation for an hour.
public struct AttestChallenge: Codable, Sendable, Equatable {
    public var challenge: String
    /// Until when an assertion takes it.
    public var expiresAt: String
    /// Until when an attestation takes it (later: a device retries an Apple outage with the same challenge).
    public var attestationExpiresAt: String?

    public init(challenge: String, expiresAt: String, attestationExpiresAt: String? = nil) {
        self.challenge = challenge
        self.expiresAt = expiresAt
        self.attestationExpiresAt = attestationExpiresAt
    }
}

extension AttestChallenge: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "challenge": FieldNote("Use its SHA-256 as the client data hash, once: for an assertion within five minutes, for an attestation within an hour."),
        "expiresAt": FieldNote("When an assertion stops taking the challenge (five minutes).", format: "date-time"),
        "attestationExpiresAt": FieldNote("When an attestation stops taking the challenge (an hour): after Apple's service was unavailable at attestKey, the device tries again with the same key and challenge.", format: "date-time"),
    ]
}

/// `POST /v1/attest/apple/register`: a new key's attestation (from `DCAppAttestService.attestKey`, with the SHA-256 of
/// the challenge text as client data hash).
public struct AttestRegisterRequest: Codable, Sendable {
    public var appId: String
    /// Base64, as `generateKey()` returns it.
    public var keyId: String
    /// Base64 CBOR attestation object.
    public var attestation: String
    public var challenge: String
    public var installId: String?

    public init(appId: String, keyId: String, attestation: String, challenge: String, installId: String? = nil) {
        self.appId = appId
        self.keyId = keyId
        self.attestation = attestation
        self.challenge = challenge
        self.installId = installId
    }
}

extension AttestRegisterRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "appId": .id("The publishable key's app."),
        "keyId": FieldNote("The key id from DCAppAttestService.generateKey, base64.", pattern: WirePattern.base64, maxLength: 64),
        "attestation": FieldNote("The attestation object from attestKey, base64.", pattern: WirePattern.base64, maxLength: 131_072),
        "challenge": .attestChallenge, "installId": .installId,
    ]
}

extension FieldNote {
    static let attestChallenge = FieldNote("A challenge from /v1/attest/apple/challenge.", minLength: 1, maxLength: 64)
}

/// `POST /v1/attest/apple/assert`: an assertion with an attested key (from `generateAssertion`, same client data hash).
public struct AttestAssertRequest: Codable, Sendable {
    public var appId: String
    public var keyId: String
    /// Base64 CBOR assertion object.
    public var assertion: String
    public var challenge: String
    public var installId: String?

    public init(appId: String, keyId: String, assertion: String, challenge: String, installId: String? = nil) {
        self.appId = appId
        self.keyId = keyId
        self.assertion = assertion
        self.challenge = challenge
        self.installId = installId
    }
}

extension AttestAssertRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "appId": .id("The publishable key's app."),
        "keyId": FieldNote("A registered key id, base64.", pattern: WirePattern.base64, maxLength: 64),
        "assertion": FieldNote("The assertion from generateAssertion, base64.", pattern: WirePattern.base64, maxLength: 10_924),
        "challenge": .attestChallenge, "installId": .installId,
    ]
}

/// An attestation token: send it as `attestation` with events and matches until it expires.
public struct AttestationGrant: Codable, Sendable, Equatable {
    public var token: String
    public var expiresAt: String
    /// `development` or `production`.
    public var environment: String
    /// The build the key was attested from, as iOS 27 says (`app_store`, `testflight`, `development`, `enterprise`,
    /// `developer_id`, or `category_<n>`); absent when the device did not say.
    public var build: String?
    /// The attested app's bundle version (`CFBundleVersion`, iOS 27).
    public var bundleVersion: String?

    public init(token: String, expiresAt: String, environment: String, build: String? = nil, bundleVersion: String? = nil) {
        self.token = token
        self.expiresAt = expiresAt
        self.environment = environment
        self.build = build
        self.bundleVersion = bundleVersion
    }
}

extension AttestationGrant: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "token": FieldNote("Send as attestation with matches and events."), "expiresAt": .timestamp,
        "environment": .oneOf(["development", "production"], "The key's App Attest environment."),
        "build": FieldNote("The build the key was attested from (iOS 27): app_store, testflight, development, enterprise, developer_id or category_<n>."),
        "bundleVersion": FieldNote("The attested app's bundle version (iOS 27)."),
    ]
}
