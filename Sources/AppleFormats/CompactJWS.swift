import RunwayCrypto
import RunwayJSON

/// A compact JWS (`header.payload.signature`, base64url), ES256 only: the form AdAttributionKit uses for postbacks
/// and impressions.
public struct CompactJWS: Sendable {
    public let header: JSONValue
    public let payload: JSONValue
    /// The header as sent, decoded to text (what `verify` explains).
    public let headerText: String
    /// The ASCII `header.payload` the signature covers.
    public let signingInput: [UInt8]
    /// Raw `r ‖ s`.
    public let signature: [UInt8]

    public enum Failure: Error, Sendable, Equatable {
        case malformed(String)
        case unsupportedAlgorithm(String)
    }

    /// Splits and decodes; checks that `alg` is ES256 and the signature is 64 bytes. Does not verify.
    public static func parse(_ text: String) throws(Failure) -> CompactJWS {
        guard text.utf8.count <= 64 * 1024 else { throw .malformed("longer than 64 KiB") }
        let bytes = Array(text.utf8)
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard parts.count == 3 else { throw .malformed("a compact JWS has three parts separated by dots, this has \(parts.count)") }
        guard let headerBytes = ByteEncoding.fromBase64url(parts[0]), let header = try? JSONParser(maxDepth: 4).parse(headerBytes),
              header.objectValue != nil else {
            throw .malformed("the header is not base64url JSON")
        }
        guard let payloadBytes = ByteEncoding.fromBase64url(parts[1]), let payload = try? JSONParser(maxDepth: 8).parse(payloadBytes),
              payload.objectValue != nil else {
            throw .malformed("the payload is not base64url JSON")
        }
        guard header["alg"]?.stringValue == "ES256" else {
            throw .unsupportedAlgorithm(header["alg"]?.stringValue ?? "none")
        }
        guard let signature = ByteEncoding.fromBase64url(parts[2]), signature.count == 64 else {
            throw .malformed("an ES256 signature is 64 bytes of base64url")
        }
        return CompactJWS(header: header, payload: payload, headerText: String(decoding: headerBytes, as: UTF8.self),
                          // trap-safe: the first two parts and their dot are a prefix of bytes
                          signingInput: Array(bytes[..<(parts[0].utf8.count + 1 + parts[1].utf8.count)]), signature: signature)
    }

    public func verifies(with key: PublicKey) -> Bool { key.verify(rawSignature: signature, message: signingInput) }

    /// Signs `payload` with `key` under a header of `kid` and ES256.
    public static func sign(payload: JSONValue, kid: String, key: PrivateKey) -> String? {
        sign(payload: payload, header: ["kid": .string(kid), "alg": "ES256"], key: key)
    }

    /// Signs `payload` with `key` (ES256) under `header`, which should say `"alg": "ES256"`.
    public static func sign(payload: JSONValue, header: JSONValue, key: PrivateKey) -> String? {
        let input = ByteEncoding.base64url(header.serializedBytes()) + "." + ByteEncoding.base64url(payload.serializedBytes())
        guard let der = key.sign(Array(input.utf8)), let raw = ECDSASignature.raw(fromDER: der) else { return nil }
        return input + "." + ByteEncoding.base64url(raw)
    }
}
