import COpenSSL
import Foundation

/// Makes X.509 certificates: a self-signed root, and certificates it (or an intermediate) issues, with marker
/// extensions such as Apple's OIDs. For tests and local tooling that stand in for Apple's chains; never for trust.
public enum CertificateBuilder {
    public struct Issuer {
        public let certificate: Certificate
        public let key: PrivateKey

        public init(certificate: Certificate, key: PrivateKey) {
            self.certificate = certificate
            self.key = key
        }
    }

    /// A certificate for `key` named `commonName`, valid from `notBefore` to `notAfter`, signed by `issuer` (self-signed
    /// when nil). `ca` marks a certificate authority; each of `markerOIDs` is added as a non-critical extension whose
    /// value is an ASN.1 NULL, as Apple's are, and each of `extensions` as a non-critical extension with its DER value.
    public static func make(commonName: String, key: PrivateKey, issuer: Issuer?, serial: Int, notBefore: Date, notAfter: Date,
                            ca: Bool, markerOIDs: [String] = [], extensions: [(oid: String, value: [UInt8])] = []) -> Certificate? {
        guard let x509 = X509_new() else { return nil }
        defer { X509_free(x509); ERR_clear_error() }
        guard X509_set_version(x509, 2) == 1, ASN1_INTEGER_set(X509_get_serialNumber(x509), serial) == 1,
              ASN1_TIME_set(X509_getm_notBefore(x509), time_t(notBefore.timeIntervalSince1970)) != nil,
              ASN1_TIME_set(X509_getm_notAfter(x509), time_t(notAfter.timeIntervalSince1970)) != nil,
              X509_set_pubkey(x509, key.key) == 1, let subject = X509_get_subject_name(x509),
              X509_NAME_add_entry_by_txt(subject, "CN", 0x1001, commonName, -1, -1, 0) == 1,
              X509_NAME_add_entry_by_txt(subject, "O", 0x1001, "LinkRunway test", -1, -1, 0) == 1 else { return nil }
        let issuerName = issuer.map { X509_get_subject_name($0.certificate.certificate) } ?? subject
        guard X509_set_issuer_name(x509, issuerName) == 1 else { return nil }
        let constraints = ca ? "critical,CA:TRUE" : "critical,CA:FALSE"
        let usage = ca ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature"
        for (nid, value) in [(NID_basic_constraints, constraints), (NID_key_usage, usage)] {
            guard let ext = X509V3_EXT_conf_nid(nil, nil, nid, value) else { return nil }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(x509, ext, -1) == 1 else { return nil }
        }
        for (oid, der) in markerOIDs.map({ (oid: $0, value: [UInt8]([0x05, 0x00])) }) + extensions {
            guard let object = OBJ_txt2obj(oid, 1) else { return nil }
            defer { ASN1_OBJECT_free(object) }
            guard let value = ASN1_OCTET_STRING_new() else { return nil }
            defer { ASN1_OCTET_STRING_free(value) }
            guard ASN1_OCTET_STRING_set(value, der, Int32(der.count)) == 1,
                  let ext = X509_EXTENSION_create_by_OBJ(nil, object, 0, value) else { return nil }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(x509, ext, -1) == 1 else { return nil }
        }
        guard X509_sign(x509, (issuer?.key ?? key).key, EVP_sha256()) > 0 else { return nil }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(x509, &out)
        guard length > 0, let out else { return nil }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Certificate(der: Array(UnsafeBufferPointer(start: out, count: Int(length))))
    }
}
