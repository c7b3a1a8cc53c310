import AppleFormats
import Foundation
import RunwayCrypto
import RunwayJSON

/// A test certificate authority shaped like Apple's (root, intermediate with the WWDR OID, leaf with the receipt
/// OID), made in the test, and notifications signed with it.
final class AppStoreTestSigner: Sendable {
    let root: Certificate
    let intermediate: Certificate
    let leaf: Certificate
    let leafKey: PrivateKey
    let intermediateKey: PrivateKey

    init(intermediateOID: Bool = true, leafOID: Bool = true) {
        let now = Date()
        let from = now.addingTimeInterval(-10 * 365 * 86_400), to = now.addingTimeInterval(10 * 365 * 86_400)
        let rootKey = PrivateKey.generateP256()!
        intermediateKey = PrivateKey.generateP256()!
        leafKey = PrivateKey.generateP256()!
        root = CertificateBuilder.make(commonName: "Test Root", key: rootKey, issuer: nil, serial: 1, notBefore: from, notAfter: to, ca: true)!
        intermediate = CertificateBuilder.make(commonName: "Test WWDR", key: intermediateKey, issuer: .init(certificate: root, key: rootKey), serial: 2,
                                               notBefore: from, notAfter: to, ca: true,
                                               markerOIDs: intermediateOID ? [AppStoreVerifier.intermediateOID] : [])!
        leaf = CertificateBuilder.make(commonName: "Test Receipt Signing", key: leafKey, issuer: .init(certificate: intermediate, key: intermediateKey),
                                       serial: 3, notBefore: from, notAfter: to, ca: false, markerOIDs: leafOID ? [AppStoreVerifier.leafOID] : [])!
    }

    func sign(_ payload: JSONValue) -> String {
        let chain: JSONValue = .array([leaf, intermediate, root].map { .string(Data($0.der).base64EncodedString()) })
        return CompactJWS.sign(payload: payload, header: ["alg": "ES256", "x5c": chain], key: leafKey)!
    }

    /// A signed transaction; `price` in milliunits.
    func transaction(id: String, original: String? = nil, bundleId: String, environment: String = "Production", token: String?,
                     price: Int64 = 9990, currency: String = "USD", purchaseDate: Int64, freeTrial: Bool = false) -> String {
        var members: [(String, JSONValue)] = [
            ("transactionId", .string(id)), ("originalTransactionId", .string(original ?? id)), ("bundleId", .string(bundleId)),
            ("productId", "premium.monthly"), ("purchaseDate", .number(String(purchaseDate))), ("type", "Auto-Renewable Subscription"),
            ("environment", .string(environment)), ("price", .number(String(freeTrial ? 0 : price))), ("currency", .string(currency)),
            ("signedDate", .number(String(purchaseDate))),
        ]
        if let token { members.append(("appAccountToken", .string(token.uppercased()))) }
        if freeTrial { members += [("offerType", 1), ("offerDiscountType", "FREE_TRIAL")] }
        return sign(.object(members))
    }

    /// A notification's signedPayload.
    func notification(_ type: String, subtype: String? = nil, uuid: String = UUID().uuidString.lowercased(), bundleId: String, appAppleId: Int64,
                      environment: String = "Production", transaction: String? = nil, signedDate: Int64) -> String {
        var data: [(String, JSONValue)] = [("appAppleId", .number(String(appAppleId))), ("bundleId", .string(bundleId)),
                                           ("environment", .string(environment))]
        if let transaction { data.append(("signedTransactionInfo", .string(transaction))) }
        var members: [(String, JSONValue)] = [("notificationType", .string(type)), ("notificationUUID", .string(uuid)),
                                              ("signedDate", .number(String(signedDate))), ("version", "2.0"), ("data", .object(data))]
        if let subtype { members.append(("subtype", .string(subtype))) }
        return sign(.object(members))
    }
}

import Testing

@Suite("App Store verifier with a test authority")
struct AppStoreVerifierTests {
    @Test("once an intermediate is cached, every leaf is still checked: a forged leaf, an expired leaf and a stranger's leaf fail")
    func cachedIntermediateStillChecksLeaves() throws {
        let signer = AppStoreTestSigner()
        let verifier = AppStoreVerifier(root: signer.root)
        let payload: JSONValue = ["signedDate": .number(String(Int64(Date().timeIntervalSince1970 * 1000)))]
        #expect(throws: Never.self) { try verifier.verify(signer.sign(payload)).get() }
        #expect(throws: Never.self) { try verifier.verify(signer.sign(payload)).get() }

        // A leaf made by someone else's key but presented with the real intermediate.
        let forgerKey = PrivateKey.generateP256()!, leafKey = PrivateKey.generateP256()!
        let now = Date()
        let forged = CertificateBuilder.make(commonName: "Test Receipt Signing", key: leafKey, issuer: .init(certificate: signer.intermediate, key: forgerKey),
                                             serial: 9, notBefore: now.addingTimeInterval(-86_400), notAfter: now.addingTimeInterval(86_400), ca: false,
                                             markerOIDs: [AppStoreVerifier.leafOID])!
        func jws(leaf: Certificate, key: PrivateKey) -> String {
            let chain: JSONValue = .array([leaf, signer.intermediate, signer.root].map { .string(Data($0.der).base64EncodedString()) })
            return CompactJWS.sign(payload: payload, header: ["alg": "ES256", "x5c": chain], key: key)!
        }
        guard case .failure(.verificationFailure) = verifier.verify(jws(leaf: forged, key: leafKey)) else {
            Issue.record("a leaf the intermediate never signed verified")
            return
        }
        // A payload signed at a time the certificates were not valid, after the intermediate was cached.
        let stale = AppStoreTestSigner()
        let staleVerifier = AppStoreVerifier(root: stale.root)
        #expect(throws: Never.self) { try staleVerifier.verify(stale.sign(payload)).get() }
        let old: JSONValue = ["signedDate": .number(String(Int64(Date().addingTimeInterval(-20 * 365 * 86_400).timeIntervalSince1970 * 1000)))]
        guard case .failure(.verificationFailure) = staleVerifier.verify(stale.sign(old)) else {
            Issue.record("a payload signed before the certificates were valid verified")
            return
        }
        // A leaf of the cached intermediate that expired a year ago, signing now: the cached path checks its dates too.
        let expiredKey = PrivateKey.generateP256()!
        let expired = CertificateBuilder.make(commonName: "Test Receipt Signing", key: expiredKey,
                                              issuer: .init(certificate: signer.intermediate, key: signer.intermediateKey), serial: 10,
                                              notBefore: now.addingTimeInterval(-2 * 365 * 86_400), notAfter: now.addingTimeInterval(-365 * 86_400),
                                              ca: false, markerOIDs: [AppStoreVerifier.leafOID])!
        guard case .failure(.verificationFailure(let reason)) = verifier.verify(jws(leaf: expired, key: expiredKey)) else {
            Issue.record("an expired leaf of a cached intermediate verified")
            return
        }
        #expect(reason.contains("the leaf is not valid"), "\(reason)")
        // The same leaf with a fresh verifier takes the whole chain, and fails there too.
        guard case .failure(.verificationFailure) = AppStoreVerifier(root: signer.root).verify(jws(leaf: expired, key: expiredKey)) else {
            Issue.record("an expired leaf verified on the uncached path")
            return
        }
        // Changing one byte of the payload breaks the signature.
        let good = signer.sign(payload)
        var parts = good.split(separator: ".").map(String.init)
        parts[1] = ByteEncoding.base64url(Array(#"{"signedDate":1}"#.utf8))
        guard case .failure(.verificationFailure) = verifier.verify(parts.joined(separator: ".")) else {
            Issue.record("a changed payload verified")
            return
        }
    }
}
