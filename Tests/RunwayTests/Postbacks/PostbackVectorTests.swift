import AppleFormats
import Foundation
import RunwayCrypto
import RunwayJSON
import RunwayTestKit
import Testing

/// Apple's SKAdNetwork and AdAttributionKit examples from `../shared/vectors/`, and postbacks signed here.
@Suite("Postback vectors", .enabled(if: PostbackVectors.available, "../shared/vectors/skadnetwork or adattributionkit is absent: Apple's postbacks are not checked"))
struct PostbackVectorTests {
    typealias V = PostbackVectors

    @Test("every SKAdNetwork example gives its expected result, with the exact signed string", arguments: V.skadExpected.indices)
    func skadnetworkExamples(_ index: Int) throws {
        let expected = V.skadExpected[index]
        let file = expected["file"] as! String
        let verdict = SKAdNetworkPostback.verify(try V.bytes("skadnetwork/\(file)"))
        let outcome = expected["expected"] as! String
        if outcome.hasPrefix("VALID") {
            #expect(verdict.valid, "\(file): \(verdict.reason ?? "") \(verdict.detail ?? "")")
            #expect(verdict.signedMessage == V.unescape(expected["signed_message_utf8_escaped"] as! String))
            #expect(verdict.version == expected["version"] as? String)
        } else if outcome.hasPrefix("INVALID") {
            #expect(!verdict.valid)
            #expect(verdict.reason == "signature_mismatch")
        } else {
            #expect(!verdict.valid)
            // Rejected before any signature check, each for its own reason.
            let reason = file.contains("version-from-future") ? "unsupported_version" : "missing_field"
            #expect(verdict.reason == reason, "\(file): \(verdict.reason ?? "")")
        }
    }

    @Test("tampering with any signed SKAdNetwork field invalidates; changing an unsigned one does not", arguments: V.skadExpected.indices)
    func skadnetworkTampering(_ index: Int) throws {
        let expected = V.skadExpected[index]
        guard (expected["expected"] as! String).hasPrefix("VALID") else { return }
        let original = try JSONParser().parse(try V.bytes("skadnetwork/\(expected["file"] as! String)"))
        for field in expected["signed_message_fields"] as! [String] {
            let changed = V.replacing(field, in: original) { value in
                switch value {
                case .string(let s): return .string(s + "9")
                case .number(let n): return .number(n == "0" ? "1" : "9" + n)
                case .bool(let b): return .bool(!b)
                default: return value
                }
            }
            let verdict = SKAdNetworkPostback.verify(changed.serializedBytes())
            // A changed version names another version (or none), which has its own fields; a changed number may fall
            // outside what Apple's format allows, which is refused before the signature is checked.
            let refusals = field == "version" ? ["unsupported_version"] : ["signature_mismatch", "out_of_range"]
            #expect(refusals.contains(verdict.reason ?? "valid"), "changing \(field) must invalidate")
        }
        let unsigned = V.replacing("conversion-value", in: original) { _ in .number("7") }
        #expect(SKAdNetworkPostback.verify(unsigned.serializedBytes()).valid, "the conversion value is not signed")
        #expect(SKAdNetworkPostback.verify(unsigned.serializedBytes()).fields.fineValue == 7)
    }

    @Test("the AdAttributionKit development postback verifies only where development is allowed, with its kid")
    func adattributionkitDevelopment() throws {
        let body = try V.bytes("adattributionkit/postback-dev-settings-valid.json")
        let allowed = AdAttributionKitPostback.verify(body, allowDevelopment: true)
        #expect(allowed.valid)
        #expect(allowed.kid == "apple-development-identifier/1")
        #expect(allowed.environment == "development")
        #expect(allowed.fields.transactionId == "85546EB7-FD39-44BC-8990-C98A4AC36A49")
        #expect(allowed.fields.conversionType == "re-engagement")
        #expect(allowed.fields.sourceIdentifier == "1234")
        #expect(allowed.fields.appStoreId == "10738027756")
        let production = AdAttributionKitPostback.verify(body, allowDevelopment: false)
        #expect(!production.valid && production.reason == "development_key")
    }

    @Test("the illustration from Apple's older page does not verify with any Apple key")
    func adattributionkitIllustration() throws {
        let verdict = AdAttributionKitPostback.verify(try V.bytes("adattributionkit/postback-prod-doc-illustration-INVALID.json"), allowDevelopment: true)
        #expect(!verdict.valid)
        #expect(verdict.reason == "signature_mismatch")
        #expect(verdict.kid == "apple-cas-identifier/0")
        #expect(verdict.fields.coarseValue == "medium", "unsigned fields are still read")
    }

    @Test("a JWS with another alg, an unknown kid, a changed payload or garbage is refused with its reason")
    func adattributionkitBadInput() throws {
        let stanza = try JSONParser().parse(try V.bytes("adattributionkit/postback-dev-settings-valid.json"))
        let jws = stanza["jws-string"]!.stringValue!
        let parts = jws.split(separator: ".").map(String.init)
        func verdict(_ text: String) -> PostbackVerdict {
            AdAttributionKitPostback.verify(V.replacing("jws-string", in: stanza) { _ in .string(text) }.serializedBytes(), allowDevelopment: true)
        }
        let none = ByteEncoding.base64url(Array(#"{"kid":"apple-development-identifier/1","alg":"none"}"#.utf8))
        #expect(verdict([none, parts[1], parts[2]].joined(separator: ".")).reason == "unsupported_alg")
        let hs256 = ByteEncoding.base64url(Array(#"{"kid":"apple-development-identifier/1","alg":"HS256"}"#.utf8))
        #expect(verdict([hs256, parts[1], parts[2]].joined(separator: ".")).reason == "unsupported_alg")
        let stranger = ByteEncoding.base64url(Array(#"{"kid":"someone/0","alg":"ES256"}"#.utf8))
        #expect(verdict([stranger, parts[1], parts[2]].joined(separator: ".")).reason == "unknown_kid")
        var payload = ByteEncoding.fromBase64url(parts[1])!
        payload[payload.firstIndex(of: UInt8(ascii: "1"))!] = UInt8(ascii: "2")
        #expect(verdict([parts[0], ByteEncoding.base64url(payload), parts[2]].joined(separator: ".")).reason == "signature_mismatch")
        #expect(verdict([parts[0], parts[1], String(parts[2].dropLast(4))].joined(separator: ".")).reason == "bad_signature_encoding")
        #expect(verdict("not a jws").reason == "bad_signature_encoding")
        #expect(AdAttributionKitPostback.verify(Array("{}".utf8), allowDevelopment: true).reason == "missing_field")
        #expect(AdAttributionKitPostback.verify(Array("][".utf8), allowDevelopment: true).reason == "unreadable")
        let unsigned = V.replacing("conversion-value", in: stanza) { _ in .number("63") }
        #expect(AdAttributionKitPostback.verify(unsigned.serializedBytes(), allowDevelopment: true).valid)
    }

    @Test("our impression format matches Apple's example field for field")
    func impressionFormat() throws {
        let example = try JSONSerialization.jsonObject(with: Data(try V.bytes("adattributionkit/impression-jws-format-example.json"))) as! [String: Any]
        let expectedKeys = Set((example["decoded_payload"] as! [String: Any]).keys)
        let impression = AdImpression(adNetworkId: "example.adattributionkit", sourceIdentifier: 5239, advertisedItemId: 1108187390,
                                      publisherItemId: 5838492, impressionId: "544B8FAD-0AD5-4434-98B2-327113AF84DB",
                                      timestamp: 1719599957239, eligibleForReengagement: true)
        let ours = Set(impression.adAttributionKitPayload.objectValue!.map(\.0))
        #expect(ours == expectedKeys)
        let key = try #require(PrivateKey.generateP256())
        let jws = try CompactJWS.parse(try #require(impression.signAdAttributionKit(with: key)))
        #expect(jws.header["kid"]?.stringValue == "example.adattributionkit")
        #expect(jws.verifies(with: key.publicKey!))
        let theirs = try CompactJWS.parse((example["compact_jws"] as! String))
        #expect(theirs.payload == impression.adAttributionKitPayload.reordered(like: theirs.payload))
    }
}

/// What needs no vectors: P-192 for SKAdNetwork 1.0 and 2.0 with keys made here, and signing impressions.
@Suite("Postback keys made here")
struct PostbackSigningTests {
    static func signed(_ members: [(String, JSONValue)], fields: [String], key: PrivateKey) -> [UInt8] {
        let object = JSONValue.object(members)
        let message = fields.compactMap { name -> String? in
            switch object[name] {
            case .string(let s)?: return s
            case .number(let n)?: return n
            case .bool(let b)?: return b ? "true" : "false"
            default: return nil
            }
        }.joined(separator: "\u{2063}")
        let signature = Data(key.sign(Array(message.utf8))!).base64EncodedString()
        return JSONValue.object(members + [("attribution-signature", .string(signature))]).serializedBytes()
    }

    @Test("versions 1.0 and 2.0 verify with a P-192 key and not with a P-256 one; 2.1 the other way round")
    func p192() throws {
        let p192 = try #require(PrivateKey.generate(curve: "P-192"))
        let p256 = try #require(PrivateKey.generateP256())
        #expect(p192.publicKey?.curve == "prime192v1")
        let v2: [(String, JSONValue)] = [("version", "2.0"), ("ad-network-id", "net.skadnetwork"), ("campaign-id", 7), ("app-id", 525463029),
                                         ("transaction-id", "t-1"), ("redownload", false), ("source-app-id", 1234), ("conversion-value", 3)]
        let fields2 = ["version", "ad-network-id", "campaign-id", "app-id", "transaction-id", "redownload", "source-app-id"]
        let body2 = Self.signed(v2, fields: fields2, key: p192)
        #expect(SKAdNetworkPostback.verify(body2, p192: p192.publicKey).valid)
        #expect(SKAdNetworkPostback.verify(body2).reason == "signature_mismatch", "Apple's P-192 key did not sign it")
        #expect(SKAdNetworkPostback.verify(Self.signed(v2, fields: fields2, key: p256), p256: p256.publicKey, p192: p192.publicKey).reason == "signature_mismatch")

        let v1: [(String, JSONValue)] = [("ad-network-id", "net.skadnetwork"), ("campaign-id", 7), ("app-id", 525463029), ("transaction-id", "t-2")]
        let body1 = Self.signed(v1, fields: ["ad-network-id", "campaign-id", "app-id", "transaction-id"], key: p192)
        let verdict1 = SKAdNetworkPostback.verify(body1, p192: p192.publicKey)
        #expect(verdict1.valid && verdict1.version == "1.0")
        #expect(SKAdNetworkPostback.verify(JSONValue.object(v1).serializedBytes()).reason == "unsigned")

        var v21 = v2
        v21[0] = ("version", "2.1")
        let body21 = Self.signed(v21, fields: fields2, key: p256)
        #expect(SKAdNetworkPostback.verify(body21, p256: p256.publicKey, p192: p192.publicKey).valid)
        #expect(SKAdNetworkPostback.verify(Self.signed(v21, fields: fields2, key: p192), p256: p256.publicKey, p192: p192.publicKey).reason == "signature_mismatch")
    }

    static let fields40 = ["version", "ad-network-id", "source-identifier", "app-id", "transaction-id", "redownload", "source-app-id",
                           "source-domain", "fidelity-type", "did-win", "postback-sequence-index"]
    static let members40: [(String, JSONValue)] = [("version", "4.0"), ("ad-network-id", "example.skadnetwork"), ("source-identifier", "5239"),
                                                   ("app-id", 525463029), ("transaction-id", "t-40"), ("redownload", false),
                                                   ("source-domain", "example.com"), ("fidelity-type", 1), ("did-win", true),
                                                   ("postback-sequence-index", 1)]

    @Test("no value may move into another field under the same signature: U+2063 inside a value, a source app id read as a domain")
    func valuesStayInTheirFields() throws {
        let key = try #require(PrivateKey.generateP256())
        #expect(SKAdNetworkPostback.verify(Self.signed(Self.members40, fields: Self.fields40, key: key), p256: key.publicKey).valid)
        // Apple's separator inside a value would let the signed string split into other fields: refused, though signed.
        let separated = Self.members40.map { $0.0 == "transaction-id" ? ($0.0, JSONValue.string("t\u{2063}40")) : $0 }
        let refused = SKAdNetworkPostback.verify(Self.signed(separated, fields: Self.fields40, key: key), p256: key.publicKey)
        #expect(!refused.valid && refused.reason == "out_of_range" && refused.detail?.contains("U+2063") == true, "\(refused.reason ?? "valid")")
        // Both optional fields sit side by side in the signed string: a publisher app 1234 signs the same text as a
        // source domain "1234". Only the first is what Apple sends.
        let withApp = Self.members40.filter { $0.0 != "source-domain" } + [("source-app-id", JSONValue.number("1234"))]
        let signed = Self.signed(withApp, fields: Self.fields40, key: key)
        #expect(SKAdNetworkPostback.verify(signed, p256: key.publicKey).fields.sourceAppId == "1234")
        guard case .object(let members)? = try? JSONParser().parse(signed) else { Issue.record("not an object"); return }
        let moved = JSONValue.object(members.map { $0.0 == "source-app-id" ? ("source-domain", .string("1234")) : $0 }).serializedBytes()
        let domain = SKAdNetworkPostback.verify(moved, p256: key.publicKey)
        #expect(!domain.valid && domain.reason == "out_of_range" && domain.detail?.hasPrefix("source-domain") == true, "\(domain.reason ?? "valid")")
    }

    @Test("signed fields of another JSON type than Apple's are refused as wrong_type, though the signed text is the same",
          arguments: [("did-win", JSONValue.string("true")), ("redownload", .number("0")), ("app-id", .string("525463029")),
                      ("fidelity-type", .string("1")), ("source-identifier", .number("5239")), ("postback-sequence-index", .string("1"))])
    func wrongTypes(_ field: String, _ value: JSONValue) throws {
        let key = try #require(PrivateKey.generateP256())
        let members = Self.members40.map { $0.0 == field ? (field, value) : $0 }
        let verdict = SKAdNetworkPostback.verify(Self.signed(members, fields: Self.fields40, key: key), p256: key.publicKey)
        #expect(!verdict.valid && verdict.reason == "wrong_type" && verdict.detail?.hasPrefix(field) == true, "\(verdict.reason ?? "valid")")
    }

    @Test("the digest covers exactly what Apple signs: before 4.0 a window index sent along changes nothing, in 4.0 it is another postback")
    func digestOfWhatIsSigned() throws {
        let key = try #require(PrivateKey.generateP256())
        let v3: [(String, JSONValue)] = [("version", "3.0"), ("ad-network-id", "n.skadnetwork"), ("campaign-id", 7), ("app-id", 525463029),
                                         ("transaction-id", "t-3"), ("redownload", false), ("fidelity-type", 1), ("did-win", true)]
        let fields3 = ["version", "ad-network-id", "campaign-id", "app-id", "transaction-id", "redownload", "source-app-id", "fidelity-type", "did-win"]
        let plain = SKAdNetworkPostback.verify(Self.signed(v3, fields: fields3, key: key), p256: key.publicKey)
        let indexed = SKAdNetworkPostback.verify(Self.signed(v3 + [("postback-sequence-index", 2), ("conversion-value", 9)], fields: fields3, key: key),
                                                 p256: key.publicKey)
        #expect(plain.valid && indexed.valid)
        #expect(indexed.fields.sequenceIndex == 0, "3.0 signs no window: the index sent along is not read")
        #expect(plain.signedDigest != nil && plain.signedDigest == indexed.signedDigest)
        let first = SKAdNetworkPostback.verify(Self.signed(Self.members40, fields: Self.fields40, key: key), p256: key.publicKey)
        let later = SKAdNetworkPostback.verify(Self.signed(Self.members40.map { $0.0 == "postback-sequence-index" ? ($0.0, 2) : $0 },
                                                           fields: Self.fields40, key: key), p256: key.publicKey)
        #expect(first.valid && later.valid && first.signedDigest != later.signedDigest, "4.0 signs its window")
    }

    @Test("the verifiers check against the keys they are given: a test authority's postbacks verify under its keys, never under Apple's")
    func keysAreGiven() throws {
        let apple = try PostbackTestAuthority()
        let skadnetwork = try apple.skadnetwork(PostbackTestAuthority.skadnetwork40(network: "n.skadnetwork", source: "5239"))
        #expect(SKAdNetworkPostback.verify(skadnetwork, keys: apple.keys).valid)
        #expect(SKAdNetworkPostback.verify(skadnetwork).reason == "signature_mismatch")
        let adAttributionKit = try apple.adAttributionKit(PostbackTestAuthority.adAttributionKitPayload(network: "n.adattributionkit", source: "5239"))
        #expect(AdAttributionKitPostback.verify(adAttributionKit, allowDevelopment: false, keys: apple.keys).valid)
        #expect(AdAttributionKitPostback.verify(adAttributionKit, allowDevelopment: false).reason == "signature_mismatch")
    }

    @Test("bad SKAdNetwork bodies are refused with their reason")
    func skadnetworkBadInput() {
        func reason(_ text: String) -> String? { SKAdNetworkPostback.verify(Array(text.utf8)).reason }
        #expect(reason("garbage") == "unreadable")
        #expect(reason("[1,2]") == "unreadable")
        #expect(reason(#"{"version":"9.9"}"#) == "unsupported_version")
        #expect(reason(#"{"version":4.0}"#) == "unsupported_version", "a number is not the version text \"4.0\"")
        #expect(reason(#"{"version":"4.0","ad-network-id":"x"}"#) == "missing_field")
        let complete = #"{"version":"3.0","ad-network-id":"a","campaign-id":1,"app-id":2,"transaction-id":"t","redownload":false,"fidelity-type":1,"did-win":true"#
        #expect(reason(complete + "}") == "unsigned")
        #expect(reason(complete + #","attribution-signature":"!!!"}"#) == "bad_signature_encoding")
        #expect(reason(complete + #","attribution-signature":"MEUCIQ=="}"#) == "bad_signature_encoding")
        #expect(reason(complete + #","attribution-signature":"MAYCAQECAQE="}"#) == "signature_mismatch")
    }

    /// Runs `openssl dgst -sha256 -verify` on `message` and a DER `signature`.
    /// Runs `openssl dgst -verify` on a thread of its own.
    static func opensslVerifies(_ message: [UInt8], signature: [UInt8], key: PublicKey) async throws -> Bool {
        try await offloaded { try opensslVerifiesBlocking(message, signature: signature, key: key) }
    }

    private static func opensslVerifiesBlocking(_ message: [UInt8], signature: [UInt8], key: PublicKey) throws -> Bool {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openssl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = "-----BEGIN PUBLIC KEY-----\n\(Data(key.spki).base64EncodedString(options: .lineLength64Characters))\n-----END PUBLIC KEY-----\n"
        try pem.write(to: directory.appendingPathComponent("pub.pem"), atomically: true, encoding: .utf8)
        try Data(signature).write(to: directory.appendingPathComponent("sig.der"))
        try Data(message).write(to: directory.appendingPathComponent("message"))
        let run = try Subprocess.run("/usr/bin/openssl", ["dgst", "-sha256", "-verify", "pub.pem", "-signature", "sig.der", "message"],
                                     directory: directory.path)
        return run.status == 0 && run.stdout.contains("Verified OK")
    }

    @Test("an AdAttributionKit impression JWS verifies with openssl over header.payload")
    func adattributionkitImpressionWithOpenSSL() async throws {
        let key = try #require(PrivateKey.generateP256())
        let impression = AdImpression(adNetworkId: "example.adattributionkit", sourceIdentifier: 5239, advertisedItemId: 1108187390,
                                      publisherItemId: 5838492, impressionId: UUID().uuidString, timestamp: 1_719_599_957_239)
        let jws = try CompactJWS.parse(try #require(impression.signAdAttributionKit(with: key)))
        let der = try #require(ECDSASignature.der(fromRaw: jws.signature))
        #expect(try await Self.opensslVerifies(jws.signingInput, signature: der, key: key.publicKey!))
        var tampered = jws.signingInput
        tampered[tampered.count - 1] ^= 1
        #expect(try await !Self.opensslVerifies(tampered, signature: der, key: key.publicKey!))
    }

    @Test("a SKAdNetwork 4.0 impression signature verifies with openssl, over Apple's field order")
    func skadnetworkImpression() async throws {
        let key = try #require(PrivateKey.generateP256())
        let impression = AdImpression(adNetworkId: "example.skadnetwork", sourceIdentifier: 5239, advertisedItemId: 525463029,
                                      publisherItemId: 0, impressionId: "68483EF7-6A0E-4C45-A5A6-6E2C11F8A8BC", timestamp: 1_700_000_000_000)
        #expect(impression.skAdNetwork4Message == "4.0\u{2063}example.skadnetwork\u{2063}5239\u{2063}525463029\u{2063}68483ef7-6a0e-4c45-a5a6-6e2c11f8a8bc\u{2063}0\u{2063}1\u{2063}1700000000000")
        let signature = try #require(impression.signSKAdNetwork4(with: key))
        let der = Array(Data(base64Encoded: signature)!)
        #expect(key.publicKey!.verify(derSignature: der, message: Array(impression.skAdNetwork4Message.utf8)))
        #expect(try await Self.opensslVerifies(Array(impression.skAdNetwork4Message.utf8), signature: der, key: key.publicKey!))
    }
}

enum PostbackVectors {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/vectors")
    static let available = FileManager.default.fileExists(atPath: directory.appendingPathComponent("skadnetwork/expected.json").path)
        && FileManager.default.fileExists(atPath: directory.appendingPathComponent("adattributionkit/postback-dev-settings-valid.json").path)

    static func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: directory.appendingPathComponent(path))) }

    nonisolated(unsafe) static let skadExpected: [[String: Any]] = {
        guard let data = try? Data(contentsOf: directory.appendingPathComponent("skadnetwork/expected.json")),
              let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return [] }
        return list
    }()

    /// `\u2063` as the expected file writes it, back to the character.
    static func unescape(_ text: String) -> String { text.replacingOccurrences(of: "\\u2063", with: "\u{2063}") }

    static func replacing(_ key: String, in object: JSONValue, _ change: (JSONValue) -> JSONValue) -> JSONValue {
        guard let members = object.objectValue else { return object }
        guard members.contains(where: { $0.0 == key }) else { return .object(members + [(key, change(.null))]) }
        return .object(members.map { $0.0 == key ? ($0.0, change($0.1)) : $0 })
    }
}

extension JSONValue {
    /// The same members in the order `other` has them, to compare objects whose order differs.
    func reordered(like other: JSONValue) -> JSONValue {
        guard let mine = objectValue, let theirs = other.objectValue else { return self }
        return .object(theirs.compactMap { key, _ in mine.first { $0.0 == key } })
    }
}
