import AppleFormats
import Foundation
import RunwayCrypto
import RunwayJSON

/// A certificate authority shaped as Apple's App Store one (a root, an intermediate with Apple's WWDR marker, a leaf
/// with the receipt-signing marker), made fresh, and JWS signed with its leaf as Apple signs App Store data. For
/// stand-ins and local demos only: a server trusts it only when `LINKRUNWAY_APP_STORE_ROOT` names its root.
public final class AppStoreStandInSigner: Sendable {
    public let root: Certificate
    private let intermediate: Certificate
    private let leaf: Certificate
    private let leafKey: PrivateKey

    public init?() {
        let now = Date()
        let from = now.addingTimeInterval(-365 * 86_400), to = now.addingTimeInterval(5 * 365 * 86_400)
        guard let rootKey = PrivateKey.generateP256(), let intermediateKey = PrivateKey.generateP256(), let leafKey = PrivateKey.generateP256(),
              let root = CertificateBuilder.make(commonName: "Stand-in Root", key: rootKey, issuer: nil, serial: 1, notBefore: from, notAfter: to, ca: true),
              let intermediate = CertificateBuilder.make(commonName: "Stand-in WWDR", key: intermediateKey, issuer: .init(certificate: root, key: rootKey),
                                                         serial: 2, notBefore: from, notAfter: to, ca: true,
                                                         markerOIDs: [AppStoreVerifier.intermediateOID]),
              let leaf = CertificateBuilder.make(commonName: "Stand-in Signing", key: leafKey, issuer: .init(certificate: intermediate, key: intermediateKey),
                                                 serial: 3, notBefore: from, notAfter: to, ca: false, markerOIDs: [AppStoreVerifier.leafOID])
        else { return nil }
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
        self.leafKey = leafKey
    }

    /// The root as PEM, for `LINKRUNWAY_APP_STORE_ROOT`.
    public var rootPEM: String {
        var lines: [String] = [], line = ""
        for character in Data(root.der).base64EncodedString() {
            line.append(character)
            if line.count == 64 { lines.append(line); line = "" }
        }
        if !line.isEmpty { lines.append(line) }
        return "-----BEGIN CERTIFICATE-----\n" + lines.joined(separator: "\n") + "\n-----END CERTIFICATE-----\n"
    }

    /// `payload` as a compact JWS with `x5c` [leaf, intermediate, root].
    public func sign(_ payload: JSONValue) -> String {
        let chain: JSONValue = .array([leaf, intermediate, root].map { .string(Data($0.der).base64EncodedString()) })
        return CompactJWS.sign(payload: payload, header: ["alg": "ES256", "x5c": chain], key: leafKey) ?? ""
    }
}
