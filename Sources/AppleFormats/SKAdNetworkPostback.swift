import RunwayCrypto
import RunwayJSON

/// SKAdNetwork install-validation postbacks: the version's signed fields joined with U+2063 and checked with Apple's
/// key for that version (ECDSA with SHA-256).
public enum SKAdNetworkPostback {
    /// Apple's published P-256 key, for versions 2.1 and later (also AdAttributionKit `apple-cas-identifier/0`).
    public static let appleP256 = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEWdp8GPcGqmhgzEFj9Z2nSpQVddayaPe4FMzqM9wib1+aHaaIzoHoLN9zW4K8y4SPykE3YVK3sVqW6Af0lfx3gg=="
    /// Apple's published P-192 key, for versions 1.0 and 2.0.
    public static let appleP192 = "MEkwEwYHKoZIzj0CAQYIKoZIzj0DAQEDMgAEMyHD625uvsmGq4C43cQ9BnfN2xslVT5V1nOmAMP6qaRRUll3PB1JYmgSm+62sosG"

    /// The two keys, parsed once (OpenSSL's key decoding costs more than a verification).
    public static let appleP256Key = PublicKey(spki: ByteEncoding.fromBase64(appleP256) ?? [])
    public static let appleP192Key = PublicKey(spki: ByteEncoding.fromBase64(appleP192) ?? [])

    /// The separator Apple puts between signed values: INVISIBLE SEPARATOR.
    public static let separator = "\u{2063}"

    /// The signed fields of each version, in order. Optional ones are joined only when present.
    static let signedFields: [String: [(name: String, required: Bool)]] = [
        "1.0": [("ad-network-id", true), ("campaign-id", true), ("app-id", true), ("transaction-id", true)],
        "2.0": [("version", true), ("ad-network-id", true), ("campaign-id", true), ("app-id", true), ("transaction-id", true),
                ("redownload", true), ("source-app-id", false)],
        "2.1": [("version", true), ("ad-network-id", true), ("campaign-id", true), ("app-id", true), ("transaction-id", true),
                ("redownload", true), ("source-app-id", false)],
        "2.2": [("version", true), ("ad-network-id", true), ("campaign-id", true), ("app-id", true), ("transaction-id", true),
                ("redownload", true), ("source-app-id", false), ("fidelity-type", true)],
        "3.0": [("version", true), ("ad-network-id", true), ("campaign-id", true), ("app-id", true), ("transaction-id", true),
                ("redownload", true), ("source-app-id", false), ("fidelity-type", true), ("did-win", true)],
        "4.0": [("version", true), ("ad-network-id", true), ("source-identifier", true), ("app-id", true), ("transaction-id", true),
                ("redownload", true), ("source-app-id", false), ("source-domain", false), ("fidelity-type", true), ("did-win", true),
                ("postback-sequence-index", true)],
    ]

    /// The versions this verifier knows.
    public static var versions: [String] { signedFields.keys.sorted() }

    /// Checks a postback body against a set of keys (Apple's, or a test authority's).
    public static func verify(_ body: [UInt8], keys: PostbackKeys) -> PostbackVerdict {
        verify(body, p256: keys.skadnetworkP256, p192: keys.skadnetworkP192)
    }

    /// Checks a postback body (the JSON Apple POSTs). Never throws: anything wrong is a verdict with a reason.
    public static func verify(_ body: [UInt8], p256: PublicKey? = appleP256Key, p192: PublicKey? = appleP192Key) -> PostbackVerdict {
        guard let json = try? JSONParser(maxDepth: 8).parse(body), let object = PostbackObject(json) else {
            return .failure(.skadnetwork, "unreadable", "the body is not a JSON object")
        }
        var fields = Self.fields(object)
        if let (reason, detail) = PostbackBounds.violation(object) {
            return .failure(.skadnetwork, reason, detail, fields: fields)
        }
        let version: String
        if object.has("version") {
            guard case .string(let stated)? = object.members["version"] else {
                return .failure(.skadnetwork, "unsupported_version", "version must be a string such as \"4.0\"", fields: fields)
            }
            version = stated
        } else {
            version = "1.0"
        }
        guard let order = signedFields[version] else {
            return .failure(.skadnetwork, "unsupported_version", "version \(version) is not one of \(versions.joined(separator: ", "))",
                            version: version, fields: fields)
        }
        // Before 4.0 there is one postback and its window index is not signed: one sent along is not read, so a
        // replay with another index is the same postback.
        if !order.contains(where: { $0.name == "postback-sequence-index" }) { fields.sequenceIndex = 0 }
        var values: [String] = []
        for (name, required) in order {
            if let value = object.text(name) {
                values.append(value)
            } else if required {
                return .failure(.skadnetwork, "missing_field", "\(name) is required in version \(version)", version: version, fields: fields)
            }
        }
        let message = values.joined(separator: separator)
        guard object.has("attribution-signature") else {
            return .failure(.skadnetwork, "unsigned", "there is no attribution-signature", version: version, signedMessage: message, fields: fields)
        }
        guard let signatureText = object.text("attribution-signature"), let signature = ByteEncoding.fromBase64(signatureText),
              (8...160).contains(signature.count) else {
            return .failure(.skadnetwork, "bad_signature_encoding", "attribution-signature is not a base64 DER ECDSA signature",
                            version: version, signedMessage: message, fields: fields)
        }
        let key = ["1.0", "2.0"].contains(version) ? p192 : p256
        guard let key, key.verify(derSignature: signature, message: Array(message.utf8)) else {
            return .failure(.skadnetwork, "signature_mismatch", "Apple's \(["1.0", "2.0"].contains(version) ? "P-192" : "P-256") key does not verify the signature",
                            version: version, signedMessage: message, fields: fields)
        }
        return PostbackVerdict(framework: .skadnetwork, valid: true, reason: nil, detail: nil, version: version, kid: nil,
                               environment: "production", signedMessage: message, fields: fields,
                               signedDigest: ByteEncoding.hex(Digest.sha256(message)))
    }

    static func fields(_ object: PostbackObject) -> PostbackFields {
        var fields = PostbackFields()
        fields.adNetworkId = object.text("ad-network-id")
        fields.campaignId = object.text("campaign-id")
        fields.sourceIdentifier = object.text("source-identifier")
        fields.appStoreId = object.text("app-id")
        fields.transactionId = object.text("transaction-id")
        fields.sequenceIndex = PostbackBounds.within(object.int("postback-sequence-index"), 0...2) ?? 0
        fields.didWin = object.bool("did-win")
        fields.redownload = object.bool("redownload")
        fields.fidelityType = PostbackBounds.within(object.int("fidelity-type"), 0...1)
        fields.sourceAppId = object.text("source-app-id")
        fields.sourceDomain = object.text("source-domain")
        fields.fineValue = PostbackBounds.within(object.int("conversion-value"), 0...63)
        fields.coarseValue = object.text("coarse-conversion-value")
        return fields
    }
}
