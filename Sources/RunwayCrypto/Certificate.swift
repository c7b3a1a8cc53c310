import COpenSSL
import Foundation

/// An X.509 certificate held by OpenSSL; immutable, so it can be shared between threads.
public final class Certificate: @unchecked Sendable {
    let certificate: OpaquePointer

    deinit { X509_free(certificate) }

    /// From DER; nil when it is not a certificate.
    public init?(der: [UInt8]) {
        var pointer: UnsafePointer<UInt8>?
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            pointer = buffer.baseAddress
            return d2i_X509(nil, &pointer, buffer.count)
        }
        guard let parsed else { ERR_clear_error(); return nil }
        certificate = parsed
    }

    /// From a PEM `CERTIFICATE` block.
    public convenience init?(pem: String) {
        guard let der = PEM.decode(pem, label: "CERTIFICATE") else { return nil }
        self.init(der: der)
    }

    /// The DER encoding.
    public var der: [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(certificate, &out)
        guard length > 0, let out else { return [] }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    public var publicKey: PublicKey? {
        guard let key = X509_get_pubkey(certificate) else { ERR_clear_error(); return nil }
        return PublicKey(owning: key)
    }

    /// The contents of the extension with `oid` (dotted), or nil.
    public func extensionValue(oid: String) -> [UInt8]? {
        guard let object = OBJ_txt2obj(oid, 1) else { ERR_clear_error(); return nil }
        defer { ASN1_OBJECT_free(object) }
        let index = X509_get_ext_by_OBJ(certificate, object, -1)
        guard index >= 0, let ext = X509_get_ext(certificate, index), let data = X509_EXTENSION_get_data(ext) else { return nil }
        let length = Int(ASN1_STRING_length(data))
        guard length > 0, let bytes = ASN1_STRING_get0_data(data) else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }

    /// True when `issuer` may have issued this certificate (names and key usage fit) and its key signed it. Checks
    /// nothing about `issuer` itself.
    public func isIssued(by issuer: Certificate) -> Bool {
        defer { ERR_clear_error() }
        guard X509_check_issued(issuer.certificate, certificate) == 0, let key = X509_get0_pubkey(issuer.certificate) else { return false }
        return X509_verify(certificate, key) == 1
    }

    /// From when to when the certificate is valid.
    public var validity: ClosedRange<Date>? {
        func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
            var moment = tm()
            guard let time, ASN1_TIME_to_tm(time, &moment) == 1 else { return nil }
            return Date(timeIntervalSince1970: TimeInterval(timegm(&moment)))
        }
        guard let from = date(X509_get0_notBefore(certificate)), let to = date(X509_get0_notAfter(certificate)), from <= to else { return nil }
        return from...to
    }

    /// The subject as one line (`CN=…, O=…`).
    public var subject: String {
        guard let name = X509_get_subject_name(certificate) else { return "" }
        var buffer = [CChar](repeating: 0, count: 512)
        X509_NAME_oneline(name, &buffer, Int32(buffer.count))
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }  // trap-safe: buffer has 512 elements, so it has a base address
    }
}

/// Certificate chain verification against pinned roots at a chosen time (never the machine's trust store).
public enum ChainVerifier {
    /// Verifies `leaf` up to one of `roots` through `intermediates`, as of `time`. Returns nil when valid, or
    /// OpenSSL's reason. With `partialChain`, a trusted certificate need not be self-signed (an intermediate already
    /// checked up to its root can anchor its leaves).
    public static func failure(leaf: Certificate, intermediates: [Certificate], roots: [Certificate], at time: Date,
                               partialChain: Bool = false) -> String? {
        guard let store = X509_STORE_new() else { return "out of memory" }
        defer { X509_STORE_free(store) }
        for root in roots where X509_STORE_add_cert(store, root.certificate) != 1 {
            ERR_clear_error()
        }
        guard let untrusted = lr_x509_stack_new() else { return "out of memory" }
        defer { lr_x509_stack_free(untrusted) }
        for intermediate in intermediates { _ = lr_x509_stack_push(untrusted, intermediate.certificate) }
        guard let context = X509_STORE_CTX_new() else { return "out of memory" }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf.certificate, untrusted) == 1 else {
            ERR_clear_error()
            return "cannot set up verification"
        }
        X509_STORE_CTX_set_time(context, 0, time_t(time.timeIntervalSince1970))
        if partialChain { X509_STORE_CTX_set_flags(context, UInt(X509_V_FLAG_PARTIAL_CHAIN)) }
        let result = X509_verify_cert(context)
        ERR_clear_error()
        if result == 1 { return nil }
        let code = X509_STORE_CTX_get_error(context)
        return String(cString: X509_verify_cert_error_string(Int(code)))
    }
}
