import RunwayCrypto
import RunwayJSON

/// AdAttributionKit postbacks: a JSON stanza whose `jws-string` Apple signs (ES256, key chosen by `kid`); the
/// conversion values, interaction type and country beside it are not signed.
public enum AdAttributionKitPostback {
    /// Apple's published keys, by `kid` (SPKI DER, base64), with whether each is for development postbacks.
    public static let appleKeys: [String: (spki: String, development: Bool)] = [
        "apple-cas-identifier/0": (SKAdNetworkPostback.appleP256, false),
        "apple-development-identifier/0": ("MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAELeEDzpJEP+/qRSE5hJVC1p1J0ssUnQGMzBBbvnACBok8OVGGLgxL0myrKiy6lvRtSlLRsWit87i+vftD8AEqeQ==", true),
        "apple-development-identifier/1": ("MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE8YzdO7eM97s/IJ25kdW5CZ3A14USE5IJ5Ha/vhWaxI6UBI1ZxCEvjrKxVluVGe6qWwF1BDFq+QHqKfH5u+wxHQ==", true),
    ]

    static let keys: [String: PostbackKeys.AdAttributionKitKey] = appleKeys.compactMapValues { entry in
        ByteEncoding.fromBase64(entry.spki).flatMap(PublicKey.init(spki:)).map { PostbackKeys.AdAttributionKitKey(key: $0, development: entry.development) }
    }

    /// Checks a postback body against `keys` (Apple's unless a test says otherwise). Development keys verify only when
    /// `allowDevelopment`; otherwise such a postback is reported as `development_key`. Never throws.
    public static func verify(_ body: [UInt8], allowDevelopment: Bool, keys: PostbackKeys = .apple) -> PostbackVerdict {
        guard let json = try? JSONParser(maxDepth: 8).parse(body), let stanza = PostbackObject(json) else {
            return .failure(.adattributionkit, "unreadable", "the body is not a JSON object")
        }
        var fields = PostbackFields()
        fields.fineValue = PostbackBounds.within(stanza.int("conversion-value"), 0...63)
        fields.coarseValue = stanza.text("coarse-conversion-value")
        fields.countryCode = stanza.text("country-code")
        fields.interactionType = stanza.text("ad-interaction-type")
        if let (reason, detail) = PostbackBounds.violation(stanza) {
            return .failure(.adattributionkit, reason, detail, fields: fields)
        }
        guard stanza.has("jws-string") else {
            return .failure(.adattributionkit, "missing_field", "jws-string is required", fields: fields)
        }
        guard let text = stanza.text("jws-string") else {
            return .failure(.adattributionkit, "bad_signature_encoding", "jws-string is not text", fields: fields)
        }
        let jws: CompactJWS
        do {
            jws = try CompactJWS.parse(text)
        } catch {
            switch error {
            case .unsupportedAlgorithm(let alg):
                return .failure(.adattributionkit, "unsupported_alg", "alg is \(alg); Apple signs postbacks with ES256", fields: fields)
            case .malformed(let why):
                return .failure(.adattributionkit, "bad_signature_encoding", why, fields: fields)
            }
        }
        let kid = jws.header["kid"]?.stringValue
        if let payload = PostbackObject(jws.payload) {
            read(payload, into: &fields)
            if let (reason, detail) = PostbackBounds.violation(payload) {
                return .failure(.adattributionkit, reason, detail, kid: kid, signedMessage: jws.headerText, fields: fields)
            }
        }
        guard let kid, let entry = keys.adAttributionKit[kid] else {
            return .failure(.adattributionkit, "unknown_kid", "kid \(kid ?? "(none)") is not one of Apple's postback keys", kid: kid,
                            signedMessage: jws.headerText, fields: fields)
        }
        let environment = entry.development ? "development" : "production"
        guard jws.verifies(with: entry.key) else {
            return .failure(.adattributionkit, "signature_mismatch", "Apple's key \(kid) does not verify the signature", kid: kid,
                            environment: environment, signedMessage: jws.headerText, fields: fields)
        }
        guard !entry.development || allowDevelopment else {
            return .failure(.adattributionkit, "development_key", "signed with the development key \(kid); this app accepts production postbacks only",
                            kid: kid, environment: environment, signedMessage: jws.headerText, fields: fields)
        }
        guard fields.adNetworkId != nil, fields.transactionId != nil, fields.appStoreId != nil else {
            return .failure(.adattributionkit, "missing_field", "the signed payload lacks ad-network-identifier, postback-identifier or advertised-item-identifier",
                            kid: kid, environment: environment, signedMessage: jws.headerText, fields: fields)
        }
        return PostbackVerdict(framework: .adattributionkit, valid: true, reason: nil, detail: nil, version: nil, kid: kid,
                               environment: environment, signedMessage: jws.headerText, fields: fields,
                               signedDigest: ByteEncoding.hex(Digest.sha256(jws.signingInput)))
    }

    static func read(_ payload: PostbackObject, into fields: inout PostbackFields) {
        fields.adNetworkId = payload.text("ad-network-identifier")
        fields.sourceIdentifier = payload.text("source-identifier")
        fields.appStoreId = payload.text("advertised-item-identifier")
        fields.transactionId = payload.text("postback-identifier")
        fields.sequenceIndex = PostbackBounds.within(payload.int("postback-sequence-index"), 0...2) ?? 0
        fields.didWin = payload.bool("did-win")
        fields.conversionType = payload.text("conversion-type")
        fields.redownload = fields.conversionType.map { $0 == "redownload" }
        fields.sourceAppId = payload.text("publisher-item-identifier").flatMap { $0 == "0" ? nil : $0 }
        fields.sourceDomain = payload.text("source-domain")
        fields.marketplace = payload.text("marketplace-identifier")
    }
}
