import Foundation
import RunwayCrypto
import RunwayJSON
import RunwayKit

/// Short-lived proof that a client attested: `<payload>.<signature>` (base64url), the payload
/// `{"a":app,"i":install,"k":key,"e":environment,"x":expiry}` signed with HMAC-SHA256 under a key derived from the
/// installation's secret. Checked without a store lookup.
struct AttestationToken: Sendable, Equatable {
    let appId: String
    let installId: String?
    let keyId: String
    let environment: String
    /// Unix seconds.
    let expiresAt: Int64

    static let lifetimeSeconds: Int64 = 3600

    static func key(_ secrets: InstanceSecrets) -> [UInt8] {
        Digest.hmacSHA256(key: secrets.clickSigningKey, message: Array("linkrunway attestation token".utf8))
    }

    func signed(_ secrets: InstanceSecrets) -> String {
        let payload: JSONValue = ["a": .string(appId), "i": installId.map(JSONValue.string) ?? .null, "k": .string(keyId),
                                  "e": .string(environment), "x": .number(String(expiresAt))]
        let encoded = ByteEncoding.base64url(payload.serializedBytes())
        return encoded + "." + ByteEncoding.base64url(Digest.hmacSHA256(key: Self.key(secrets), message: Array(encoded.utf8)))
    }

    /// The token, if its signature holds and it has not expired.
    static func verify(_ text: String, secrets: InstanceSecrets, now: Date) -> AttestationToken? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, text.utf8.count <= 1024, let signature = ByteEncoding.fromBase64url(String(parts[1])),
              ConstantTime.equal(signature, Digest.hmacSHA256(key: key(secrets), message: Array(parts[0].utf8))),
              let bytes = ByteEncoding.fromBase64url(String(parts[0])), let payload = try? JSONParser().parse(bytes),
              let app = payload["a"]?.stringValue, let keyId = payload["k"]?.stringValue, let environment = payload["e"]?.stringValue,
              let expiry = payload["x"]?.int64Value, Int64(now.timeIntervalSince1970) < expiry else { return nil }
        return AttestationToken(appId: app, installId: payload["i"]?.stringValue, keyId: keyId, environment: environment, expiresAt: expiry)
    }

    /// True when `text` is a valid token for this app (and this install, when the token names one).
    static func attests(_ text: String?, appId: String, installId: String?, secrets: InstanceSecrets, now: Date) -> Bool {
        guard let text, let token = verify(text, secrets: secrets, now: now), token.appId == appId else { return false }
        if let bound = token.installId, let installId, bound != installId { return false }
        return true
    }
}
