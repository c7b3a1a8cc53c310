import AppleFormats
import Foundation
import RunwayCrypto
import RunwayTestKit
import Testing

/// Real device attestations and assertions from `../shared/vectors/app-attest`, at their pinned times.
@Suite("App Attest vectors", .enabled(if: AppAttestVectors.available, "../shared/vectors/app-attest is absent: real App Attest data is not checked"))
struct AppAttestVectorTests {
    typealias V = AppAttestVectors

    static func date(_ text: String) -> Date { ISO8601DateFormatter.withFractions.date(from: text) ?? ISO8601DateFormatter().date(from: text)! }

    @Test("the development attestations verify at their time, and fail later, for another team, or for production only",
          arguments: V.veehaitch.filter { $0["type"] as? String == "attestation" }.indices)
    func developmentAttestations(_ index: Int) throws {
        let sample = V.veehaitch.filter { $0["type"] as? String == "attestation" }[index]
        let verifier = AppAttestVerifier(root: try #require(V.root))
        let attestation = try #require(Data(base64Encoded: sample["attestationBase64"] as! String))
        let keyId = try #require(Data(base64Encoded: sample["keyIdBase64"] as! String))
        let clientDataHash = Digest.sha256(Array(try #require(Data(base64Encoded: sample["clientDataBase64"] as! String))))
        #expect(clientDataHash == Array(Data(base64Encoded: sample["clientDataHashSha256Base64"] as! String)!))
        let appId = "\(sample["teamIdentifier"] as! String).\(sample["bundleIdentifier"] as! String)"
        let at = Self.date(sample["timestamp"] as! String)

        let verified = verifier.verifyAttestation(Array(attestation), keyId: Array(keyId), clientDataHash: clientDataHash, appId: appId, at: at)
        let attested = try verified.get()
        #expect(attested.environment == .development)
        #expect(attested.publicKey.spki == PublicKey(pem: sample["publicKey"] as! String)?.spki)
        #expect(!attested.receipt.isEmpty)

        guard case .failure(let later) = verifier.verifyAttestation(Array(attestation), keyId: Array(keyId), clientDataHash: clientDataHash,
                                                                    appId: appId, at: Self.date("2030-01-01T00:00:00Z")) else {
            Issue.record("verified in 2030")
            return
        }
        #expect(later.step == "chain")
        #expect(verifier.verifyAttestation(Array(attestation), keyId: Array(keyId), clientDataHash: clientDataHash,
                                           appId: "AAAAAAAAAA.\(sample["bundleIdentifier"] as! String)", at: at) == .failure(.rpIdMismatch))
        #expect(verifier.verifyAttestation(Array(attestation), keyId: Array(keyId), clientDataHash: clientDataHash, appId: appId, at: at,
                                           allowed: [.production]) == .failure(.environmentNotAllowed("development")))
        #expect(verifier.verifyAttestation(Array(attestation), keyId: Array(keyId), clientDataHash: Digest.sha256("other"), appId: appId,
                                           at: at) == .failure(.nonceMismatch))
        var otherKey = Array(keyId)
        otherKey[0] ^= 1
        #expect(verifier.verifyAttestation(Array(attestation), keyId: otherKey, clientDataHash: clientDataHash, appId: appId, at: at) == .failure(.keyIdMismatch))
    }

    @Test("the development assertions verify once, and fail replayed or with other client data",
          arguments: V.veehaitch.filter { $0["type"] as? String == "assertion" }.indices)
    func developmentAssertions(_ index: Int) throws {
        let sample = V.veehaitch.filter { $0["type"] as? String == "assertion" }[index]
        _ = try #require(V.root, "the assertions need no root, but the samples come with it")
        let assertion = Array(try #require(Data(base64Encoded: sample["assertionBase64"] as! String)))
        let key = try #require(PublicKey(pem: sample["publicKey"] as! String))
        let clientDataHash = Digest.sha256(Array(Data(base64Encoded: sample["clientDataBase64"] as! String)!))
        let appId = "\(sample["teamIdentifier"] as! String).\(sample["bundleIdentifier"] as! String)"
        #expect(AppAttestVerifier.verifyAssertion(assertion, publicKey: key, clientDataHash: clientDataHash, appId: appId, previousCounter: 0) == .success(1))
        #expect(AppAttestVerifier.verifyAssertion(assertion, publicKey: key, clientDataHash: clientDataHash, appId: appId, previousCounter: 1)
                == .failure(.counterNotIncreasing(previous: 1, received: 1)))
        #expect(AppAttestVerifier.verifyAssertion(assertion, publicKey: key, clientDataHash: Digest.sha256("wurzel"), appId: appId, previousCounter: 0)
                == .failure(.signatureInvalid))
        // The nonce is the message: verifying it as a prehashed digest would be the classic mistake.
        let object = try AssertionObject.parse(assertion)
        #expect(!key.verify(derSignature: object.signature, message: Digest.sha256(Digest.sha256(object.authenticatorData + clientDataHash))))
    }

    @Test("a production and a development attestation are told apart, and a misused challenge fails")
    func productionAndDevelopment() throws {
        let verifier = AppAttestVerifier(root: try #require(V.root))
        let at = Self.date("2024-03-01T00:00:00Z")
        for sample in V.uebelack where sample["attestation"] != nil {
            let attestation = Array(Data(base64Encoded: sample["attestation"] as! String)!)
            let keyId = Array(Data(base64Encoded: sample["keyId"] as! String)!)
            let challenge = sample["challenge"] as! String
            let clientDataHash = Digest.sha256(Array(Data(base64Encoded: challenge)!))
            let appId = "\(sample["teamIdentifier"] as! String).\(sample["bundleIdentifier"] as! String)"
            let expected: AppAttestEnvironment = (sample["expected"] as! [String: Any])["environment"] as! String == "production" ? .production : .development
            #expect(try verifier.verifyAttestation(attestation, keyId: keyId, clientDataHash: clientDataHash, appId: appId, at: at).get().environment == expected)
            #expect(verifier.verifyAttestation(attestation, keyId: keyId, clientDataHash: Digest.sha256(challenge), appId: appId, at: at) == .failure(.nonceMismatch))
            if case .failure(let failure) = verifier.verifyAttestation(attestation, keyId: keyId, clientDataHash: clientDataHash, appId: appId,
                                                                       at: Self.date("2025-06-01T00:00:00Z")) {
                #expect(failure.step == "chain")
            } else {
                Issue.record("verified after the certificate expired")
            }
        }
        let assertionSample = try #require(V.uebelack.first { $0["type"] as? String == "assertion" })
        let assertion = Array(Data(base64Encoded: assertionSample["assertionBase64"] as! String)!)
        let key = try #require(PublicKey(pem: assertionSample["publicKey"] as! String))
        let appId = "\(assertionSample["teamIdentifier"] as! String).\(assertionSample["bundleIdentifier"] as! String)"
        #expect(AppAttestVerifier.verifyAssertion(assertion, publicKey: key, clientDataHash: Digest.sha256(assertionSample["clientData_utf8"] as! String),
                                         appId: appId, previousCounter: 0) == .success(1))
        #expect(AppAttestVerifier.verifyAssertion(assertion, publicKey: key, clientDataHash: Digest.sha256("{}"), appId: appId, previousCounter: 0)
                == .failure(.signatureInvalid))
    }

    @Test("altered or truncated attestations fail cleanly with a reason")
    func alterations() throws {
        let verifier = AppAttestVerifier(root: try #require(V.root))
        let sample = try #require(V.veehaitch.first { $0["type"] as? String == "attestation" })
        let attestation = Array(Data(base64Encoded: sample["attestationBase64"] as! String)!)
        let keyId = Array(Data(base64Encoded: sample["keyIdBase64"] as! String)!)
        let hash = Digest.sha256(Array(Data(base64Encoded: sample["clientDataBase64"] as! String)!))
        let appId = "\(sample["teamIdentifier"] as! String).\(sample["bundleIdentifier"] as! String)"
        let at = Self.date(sample["timestamp"] as! String)
        for cut in [0, 1, 10, 100, attestation.count / 2, attestation.count - 1] {
            guard case .failure(let failure) = verifier.verifyAttestation(Array(attestation.prefix(cut)), keyId: keyId, clientDataHash: hash,
                                                                         appId: appId, at: at) else {
                Issue.record("a truncated attestation verified")
                continue
            }
            #expect(failure.step == "decode", "cut at \(cut): \(failure)")
        }
        // Flipping a byte anywhere never verifies (and never crashes).
        var failures = Set<String>()
        for position in stride(from: 0, to: attestation.count, by: 37) {
            var altered = attestation
            altered[position] ^= 0x01
            if case .failure(let failure) = verifier.verifyAttestation(altered, keyId: keyId, clientDataHash: hash, appId: appId, at: at) {
                failures.insert(failure.step)
            } else if altered != attestation {
                // A flip inside the receipt, which is not covered by the attestation, may still verify.
                continue
            }
        }
        #expect(failures.isSuperset(of: ["decode", "chain", "nonce"]))
    }
}

/// The App Attest vector files, read in place.
enum AppAttestVectors {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/vectors/app-attest")
    static let available = FileManager.default.fileExists(atPath: directory.appendingPathComponent("Apple_App_Attestation_Root_CA.pem").path)

    static let rootPath = directory.appendingPathComponent("Apple_App_Attestation_Root_CA.pem").path
    static let root: Certificate? = (try? String(contentsOfFile: rootPath, encoding: .utf8)).flatMap { AppAttestVerifier.appleRoot(pem: $0) }

    static func load(_ name: String) -> [[String: Any]] {
        guard let data = try? Data(contentsOf: directory.appendingPathComponent(name)),
              let samples = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return [] }
        return samples
    }

    nonisolated(unsafe) static let veehaitch = load("veehaitch-devicecheck-appattest-samples.json")
    nonisolated(unsafe) static let uebelack = load("uebelack-node-app-attest-samples.json")
}

extension ISO8601DateFormatter {
    nonisolated(unsafe) static let withFractions: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
}
