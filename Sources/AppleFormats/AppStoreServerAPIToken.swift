import Foundation
import RunwayCrypto
import RunwayJSON

/// The bearer token every App Store Server API request carries: a JWT signed ES256 with the app's In-App Purchase key,
/// made anew for each request, as Apple describes at
/// https://developer.apple.com/documentation/appstoreserverapi/generating-json-web-tokens-for-api-requests
/// (header `alg`, `kid`, `typ`; claims `iss`, `iat`, `exp` at most an hour later, `aud` and `bid`).
public struct AppStoreServerAPIToken: Sendable {
    /// The audience Apple requires.
    public static let audience = "appstoreconnect-v1"
    /// The longest lifetime Apple accepts.
    public static let maximumLifetimeSeconds: Int64 = 3600

    public let issuerId: String
    public let keyId: String
    public let bundleId: String
    public let key: PrivateKey

    public init(issuerId: String, keyId: String, bundleId: String, key: PrivateKey) {
        self.issuerId = issuerId
        self.keyId = keyId
        self.bundleId = bundleId
        self.key = key
    }

    /// A token issued at `now`, valid for `lifetimeSeconds` (5 minutes unless told; never above an hour).
    public func signed(now: Date, lifetimeSeconds: Int64 = 300) -> String? {
        let issuedAt = Int64(now.timeIntervalSince1970)
        let header: JSONValue = ["alg": "ES256", "kid": .string(keyId), "typ": "JWT"]
        let claims: JSONValue = [
            "iss": .string(issuerId), "iat": .number(String(issuedAt)),
            "exp": .number(String(issuedAt + min(lifetimeSeconds, Self.maximumLifetimeSeconds))),
            "aud": .string(Self.audience), "bid": .string(bundleId),
        ]
        return CompactJWS.sign(payload: claims, header: header, key: key)
    }

    /// Reads an In-App Purchase key: the `.p8` file's PEM, which must hold a P-256 key.
    public static func privateKey(pem: String) -> PrivateKey? {
        guard let key = PrivateKey.pem(pem), key.publicKey?.curve == "prime256v1" else { return nil }
        return key
    }
}
