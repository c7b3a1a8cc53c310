import AppleFormats
import Foundation
import RunwayCrypto
import RunwayJSON
import RunwayTestKit
import Testing

/// Apple's App Store signed-data test resources and real certificates from `../shared/vectors/assn-v2`.
@Suite("App Store signed data vectors", .enabled(if: AppStoreVectors.available, "../shared/vectors/assn-v2 is absent: Apple's signed data is not checked"))
struct AppStoreVectorTests {
    typealias V = AppStoreVectors

    static func environment(_ text: String) -> AppStoreVerifier.Environment { AppStoreVerifier.Environment(rawValue: text)! }

    /// The outcome of one case as Apple's library names it, and our reason.
    static func outcome(_ entry: [String: Any]) throws -> (status: String, reason: String) {
        let jws = try V.jws(entry["jws"] as! String)
        let environment = environment(entry["environment"] as? String ?? "Production")
        let root = try #require(AppStoreVerifier.certificate(file: try V.bytes((entry["trusted_root"] as? String) ?? "apple-real-certs/AppleRootCA-G3.cer")))
        let verifier = AppStoreVerifier(root: root)
        let status: (status: String, reason: String)
        switch entry["method"] as? String {
        case "verifyAndDecodeNotification":
            status = Self.status(verifier.verifyNotification(jws, bundleId: entry["bundleId"] as! String,
                                                             appAppleId: (entry["appAppleId"] as? Int).map(Int64.init), environment: environment))
        case "verifyAndDecodeTransaction":
            status = Self.status(verifier.verifyTransaction(jws, bundleId: entry["bundleId"] as! String, environment: environment))
        case "verifyAndDecodeRenewalInfo":
            status = Self.status(verifier.verifyRenewalInfo(jws, environment: environment))
        default:
            status = Self.status(verifier.verify(jws, environment: environment))
        }
        return status
    }

    static func status<T>(_ result: Result<T, AppStoreVerifier.Failure>) -> (status: String, reason: String) {
        switch result {
        case .success: return ("VALID", "")
        case .failure(let failure): return (failure.status, failure.description)
        }
    }

    @Test("every JWS case gives Apple's expected outcome", arguments: V.cases.indices)
    func cases(_ index: Int) throws {
        let entry = V.cases[index]
        let expected = entry["expected"] as! String
        let (status, reason) = try Self.outcome(entry)
        if expected.hasPrefix("VALID") {
            #expect(status == "VALID", "\(entry["jws"]!) \(entry["environment"] ?? "")")
        } else if expected.hasPrefix("FAIL") {
            // Both FAIL cases are StoreKit Testing data (one self-signed certificate) checked as production data.
            #expect(status == "INVALID_JWT_FORMAT" && reason.contains("x5c has 1 certificates"), "\(entry["jws"]!): \(status) \(reason)")
        } else if expected.hasPrefix("INVALID_JWT_FORMAT") {
            // Apple's Swift library says INVALID_JWT_FORMAT where its Python one says VERIFICATION_FAILURE; ours is the Swift one.
            #expect(status == "INVALID_JWT_FORMAT", "\(entry["jws"]!): \(status) \(reason)")
        } else {
            #expect(status == expected, "\(entry["jws"]!): \(status) \(reason)")
        }
    }

    @Test("the decoded fields are Apple's, fractional Xcode dates truncated")
    func decodedFields() throws {
        let verifier = AppStoreVerifier(root: try #require(AppStoreVerifier.certificate(file: try V.bytes("apple-library-mock/testCA.der"))))
        let (notification, signedAt) = try verifier.verifyNotification(try V.jws("apple-library-mock/testNotification.jws"), bundleId: "com.example",
                                                                       appAppleId: 1234, environment: .sandbox).get()
        #expect(notification.notificationType.rawValue == "TEST")
        #expect(notification.notificationUUID == "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6")
        #expect(notification.signedDate == 1681314324000 && notification.appAppleId == 1234)
        #expect(signedAt == Date(timeIntervalSince1970: 1681314324))
        let xcode = try verifier.verifyTransaction(try V.jws("apple-library-mock/xcode-signed-transaction.jws"),
                                                   bundleId: "com.example.naturelab.backyardbirds.example", environment: .xcode).get()
        #expect(xcode.productId == "pass.premium" && xcode.transactionId?.rawValue == "0" && xcode.purchaseDate == 1697679936049)
        #expect(xcode.offerType == 1 && xcode.transactionReason == "PURCHASE")
    }

    @Test("certificate chain cases: OIDs, expiry, the wrong root, and Apple's real production chain", arguments: V.chainCases.indices)
    func chainCases(_ index: Int) throws {
        let entry = V.chainCases[index]
        func certificate(_ name: String) throws -> Certificate {
            if name.hasPrefix("apple-real-certs/") { return try #require(Certificate(der: try V.bytes(name))) }
            if name.hasPrefix("REAL_APPLE_ROOT_G3") { return try #require(Certificate(der: try V.bytes("apple-real-certs/AppleRootCA-G3.cer"))) }
            return try #require(Certificate(der: Array(Data(base64Encoded: V.chainCertificates[name]!)!)))
        }
        let verifier = AppStoreVerifier(root: try certificate(entry["trusted_root"] as! String))
        let failure = verifier.chainFailure(leaf: try certificate(entry["leaf"] as! String), intermediate: try certificate(entry["intermediate"] as! String),
                                            at: Date(timeIntervalSince1970: TimeInterval(entry["time"] as! Int)))
        let described = failure.map(String.init(describing:)) ?? "valid"
        // The reason the vector gives (Apple's Python check), and the words ours must say it with.
        let reason = entry["python_check_result"] as? String ?? ""
        let words: String
        switch reason {
        case "VALID": words = "valid"
        case let r where r.contains("intermediate OID"): words = "the intermediate lacks Apple's OID \(AppStoreVerifier.intermediateOID)"
        case let r where r.contains("leaf OID"): words = "the leaf lacks Apple's OID \(AppStoreVerifier.leafOID)"
        case let r where r.contains("validity"): words = "expired"
        case let r where r.contains("signature/issuer"): words = "issuer"
        default: words = "a reason this test does not know: \(reason)"
        }
        #expect((failure == nil) == ((entry["expected"] as! String) == "VALID"), "\(entry["name"]!): \(described)")
        #expect(described.contains(words), "\(entry["name"]!): \(described), expected to say \(words)")
    }

    @Test("the real Apple Root CA - G3 has Apple's published fingerprint")
    func realRoot() throws {
        let root = try #require(Certificate(der: try V.bytes("apple-real-certs/AppleRootCA-G3.cer")))
        #expect(ByteEncoding.hex(Digest.sha256(root.der)) == AppStoreVerifier.appleRootG3Fingerprint)
    }
}

enum AppStoreVectors {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/vectors/assn-v2")
    static let available = FileManager.default.fileExists(atPath: directory.appendingPathComponent("expected.json").path)

    static func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: directory.appendingPathComponent(path))) }

    /// A case's JWS: a file, or `literal: …`.
    static func jws(_ reference: String) throws -> String {
        if reference.hasPrefix("literal: ") { return String(reference.dropFirst("literal: ".count)) }
        return String(decoding: try bytes(reference), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func json(_ path: String) -> [String: Any] {
        (try? Data(contentsOf: directory.appendingPathComponent(path))).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
    }

    nonisolated(unsafe) static let cases: [[String: Any]] = json("expected.json")["cases"] as? [[String: Any]] ?? []
    nonisolated(unsafe) static let chainCases: [[String: Any]] = json("apple-library-mock/chain-cases.json")["cases"] as? [[String: Any]] ?? []
    static let chainCertificates: [String: String] = json("apple-library-mock/chain-cases.json")["certs_base64_der"] as? [String: String] ?? [:]
}
