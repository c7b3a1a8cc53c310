import LinkRunwayAPI
import RunwayCrypto

/// The text of a key: kind prefix, a 16-character lookup id, and 32 secret characters (base62, about 190 bits):
/// `lr_sk_<lookup><secret>`. Only the SHA-256 of the whole text is stored.
public struct APIKeySecret: Sendable, Equatable {
    public static let lookupLength = 16
    public static let secretLength = 32

    public let kind: KeyKind
    /// Public part that finds the stored record; the key's id is `key_<lookup>`.
    public let lookup: String
    public let text: String

    /// A new random key of `kind`.
    public static func generate(kind: KeyKind) -> APIKeySecret {
        let lookup = SecureRandom.string(length: lookupLength, alphabet: SecureRandom.base62)
        let secret = SecureRandom.string(length: secretLength, alphabet: SecureRandom.base62)
        return APIKeySecret(kind: kind, lookup: lookup, text: kind.prefix + lookup + secret)
    }

    /// Parses presented text; nil when it cannot be one of our keys.
    public init?(parsing text: String) {
        guard let kind = KeyKind.allCases.first(where: { text.hasPrefix($0.prefix) }) else { return nil }
        let body = text.utf8.dropFirst(kind.prefix.utf8.count)
        guard body.count == Self.lookupLength + Self.secretLength,
              body.allSatisfy({ b in (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) })
        else { return nil }
        self.init(kind: kind, lookup: String(decoding: body.prefix(Self.lookupLength), as: UTF8.self), text: text)
    }

    private init(kind: KeyKind, lookup: String, text: String) {
        self.kind = kind
        self.lookup = lookup
        self.text = text
    }

    /// The stored form: hex SHA-256 of the whole text.
    public var hash: String { ByteEncoding.hex(Digest.sha256(text)) }

    public var keyId: String { "key_" + lookup }

    /// Enough to recognise the key in a list, not enough to use it.
    public var displayPrefix: String { String(text.prefix(kind.prefix.count + 4)) + "…" }
}
