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
                     price: Int64 = 9990, currency: String = "USD", purchaseDate: Int64, freeTrial: Bool = false,
                     extra: [(String, JSONValue)] = []) -> String {
        var members: [(String, JSONValue)] = [
            ("transactionId", .string(id)), ("originalTransactionId", .string(original ?? id)), ("bundleId", .string(bundleId)),
            ("productId", "premium.monthly"), ("purchaseDate", .number(String(purchaseDate))), ("type", "Auto-Renewable Subscription"),
            ("environment", .string(environment)), ("price", .number(String(freeTrial ? 0 : price))), ("currency", .string(currency)),
            ("signedDate", .number(String(purchaseDate))),
        ]
        if let token { members.append(("appAccountToken", .string(token.uppercased()))) }
        if freeTrial { members += [("offerType", 1), ("offerDiscountType", "FREE_TRIAL")] }
        return sign(.object(members + extra))
    }

    /// A notification's signedPayload, with `data` as Apple documents it (`appAppleId` is absent in sandbox).
    func notification(_ type: String, subtype: String? = nil, uuid: String = UUID().uuidString.lowercased(), bundleId: String, appAppleId: Int64?,
                      environment: String = "Production", transaction: String? = nil, renewalInfo: String? = nil, signedDate: Int64) -> String {
        var data: [(String, JSONValue)] = [("bundleId", .string(bundleId)), ("environment", .string(environment))]
        if let appAppleId { data.insert(("appAppleId", .number(String(appAppleId))), at: 0) }
        if let transaction { data.append(("signedTransactionInfo", .string(transaction))) }
        if let renewalInfo { data.append(("signedRenewalInfo", .string(renewalInfo))) }
        return notification(type, subtype: subtype, uuid: uuid, body: [("data", .object(data))], signedDate: signedDate)
    }

    /// A notification's signedPayload with `body` in place of `data` (`appData`, `summary`, nothing at all…).
    func notification(_ type: String, subtype: String? = nil, uuid: String = UUID().uuidString.lowercased(), body: [(String, JSONValue)],
                      signedDate: Int64) -> String {
        var members: [(String, JSONValue)] = [("notificationType", .string(type)), ("notificationUUID", .string(uuid)),
                                              ("signedDate", .number(String(signedDate))), ("version", "2.0")] + body
        if let subtype { members.append(("subtype", .string(subtype))) }
        return sign(.object(members))
    }

    /// Signed renewal info, which names no app (`JWSRenewalInfoDecodedPayload`).
    func renewalInfo(original: String, environment: String = "Production", appTransactionId: String? = nil, signedDate: Int64) -> String {
        var members: [(String, JSONValue)] = [
            ("originalTransactionId", .string(original)), ("autoRenewProductId", "premium.monthly"), ("productId", "premium.monthly"),
            ("autoRenewStatus", 1), ("environment", .string(environment)), ("signedDate", .number(String(signedDate))),
            ("recentSubscriptionStartDate", .number(String(signedDate))), ("renewalDate", .number(String(signedDate + 30 * 86_400_000))),
        ]
        if let appTransactionId { members.append(("appTransactionId", .string(appTransactionId))) }
        return sign(.object(members))
    }

    /// A signed app transaction (`JWSAppTransactionDecodedPayload`), as `RESCIND_CONSENT` carries it.
    func appTransaction(id: String, bundleId: String, appAppleId: Int64?, environment: String = "Production", signedDate: Int64,
                        storeType: String? = nil) -> String {
        var members: [(String, JSONValue)] = [
            ("receiptType", .string(environment)), ("bundleId", .string(bundleId)), ("applicationVersion", "1"),
            ("receiptCreationDate", .number(String(signedDate))), ("requestDate", .number(String(signedDate))),
            ("originalApplicationVersion", "1"), ("originalPurchaseDate", .number(String(signedDate))), ("signedDate", .number(String(signedDate))),
            ("appTransactionId", .string(id)), ("originalPlatform", "iOS"),
        ]
        if let appAppleId { members.insert(("appAppleId", .number(String(appAppleId))), at: 1) }
        if let storeType { members.append(("storeType", .string(storeType))) }
        return sign(.object(members))
    }
}
