import Foundation
import RunwayCrypto
import RunwayJSON
import RunwayKit

/// A click handed to a client in a form it cannot forge or keep using forever: `<payload>.<signature>`, both base64url,
/// the payload `{"c":token,"l":linkId,"w":workspaceId,"x":expiry}` and the signature HMAC-SHA256 of the payload text
/// under the instance's click signing key.
public struct SignedClickId: Sendable, Equatable {
    public let clickToken: String
    public let linkId: String
    public let workspaceId: String
    /// Unix seconds.
    public let expiresAt: Int64

    public static let lifetimeSeconds: Int64 = 7 * 24 * 3600

    public init(clickToken: String, linkId: String, workspaceId: String, expiresAt: Int64) {
        self.clickToken = clickToken
        self.linkId = linkId
        self.workspaceId = workspaceId
        self.expiresAt = expiresAt
    }

    public func signed(with key: [UInt8]) -> String {
        let payload: JSONValue = ["c": .string(clickToken), "l": .string(linkId), "w": .string(workspaceId), "x": .number(String(expiresAt))]
        let encoded = ByteEncoding.base64url(payload.serializedBytes())
        return encoded + "." + ByteEncoding.base64url(Digest.hmacSHA256(key: key, message: Array(encoded.utf8)))
    }

    public enum Failure: Error, Equatable {
        case malformed, badSignature, expired
    }

    /// Checks the signature (in constant time) and the expiry at `now`.
    public static func verify(_ text: String, key: [UInt8], now: Date) -> Result<SignedClickId, Failure> {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, text.utf8.count <= 1024, let signature = ByteEncoding.fromBase64url(String(parts[1])) else {
            return .failure(.malformed)
        }
        guard ConstantTime.equal(signature, Digest.hmacSHA256(key: key, message: Array(parts[0].utf8))) else {
            return .failure(.badSignature)
        }
        guard let bytes = ByteEncoding.fromBase64url(String(parts[0])), let payload = try? JSONParser().parse(bytes),
              let token = payload["c"]?.stringValue, let link = payload["l"]?.stringValue,
              let workspace = payload["w"]?.stringValue, let expiry = payload["x"]?.int64Value else {
            return .failure(.malformed)
        }
        guard Int64(now.timeIntervalSince1970) < expiry else { return .failure(.expired) }
        return .success(SignedClickId(clickToken: token, linkId: link, workspaceId: workspace, expiresAt: expiry))
    }
}
