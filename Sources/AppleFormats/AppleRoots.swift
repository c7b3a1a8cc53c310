import RunwayCrypto

/// Apple's two public root certificates the server trusts, built in so that no operator has to download them:
/// Apple Root CA - G3, which App Store signed data chains to, and the Apple App Attestation Root CA, which App Attest
/// attestations chain to. Both are published at https://www.apple.com/certificateauthority/ with their SHA-256
/// fingerprints (`AppStoreVerifier.appleRootG3Fingerprint`, `AppAttestVerifier.rootFingerprint`), which a test
/// holds these bytes to. The settings `LINKRUNWAY_APP_STORE_ROOT` and `LINKRUNWAY_APP_ATTEST_ROOT` still replace them
/// (tests, or Apple rotating a root).
public enum AppleRoots {
    /// Apple Root CA - G3 (ECDSA P-384, valid 2014-04-30 to 2039-04-30).
    public static var appleRootCAG3: Certificate { certificate(appleRootCAG3Base64) }

    /// Apple App Attestation Root CA (ECDSA P-384, valid 2020-03-18 to 2045-03-15).
    public static var appAttestationRootCA: Certificate { certificate(appAttestationRootCABase64) }

    /// The DER of Apple Root CA - G3, in base64.
    static let appleRootCAG3Base64 = """
        MIICQzCCAcmgAwIBAgIILcX8iNLFS5UwCgYIKoZIzj0EAwMwZzEbMBkGA1UEAwwSQXBwbGUgUm9v
        dCBDQSAtIEczMSYwJAYDVQQLDB1BcHBsZSBDZXJ0aWZpY2F0aW9uIEF1dGhvcml0eTETMBEGA1UE
        CgwKQXBwbGUgSW5jLjELMAkGA1UEBhMCVVMwHhcNMTQwNDMwMTgxOTA2WhcNMzkwNDMwMTgxOTA2
        WjBnMRswGQYDVQQDDBJBcHBsZSBSb290IENBIC0gRzMxJjAkBgNVBAsMHUFwcGxlIENlcnRpZmlj
        YXRpb24gQXV0aG9yaXR5MRMwEQYDVQQKDApBcHBsZSBJbmMuMQswCQYDVQQGEwJVUzB2MBAGByqG
        SM49AgEGBSuBBAAiA2IABJjpLz1AcqTtkyJygRMc3RCV8cWjTnHcFBbZDuWmBSp3ZHtfTjjTuxxE
        tX/1H7YyYl3J6YRbTzBPEVoA/VhYDKX1DyxNB0cTddqXl5dvMVztK517IDvYuVTZXpmkOlEKMaNC
        MEAwHQYDVR0OBBYEFLuw3qFYM4iapIqZ3r6966/ayySrMA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0P
        AQH/BAQDAgEGMAoGCCqGSM49BAMDA2gAMGUCMQCD6cHEFl4aXTQY2e3v9GwOAEZLuN+yRhHFD/3m
        eoyhpmvOwgPUnPWTxnS4at+qIxUCMG1mihDK1A3UT82NQz60imOlM27jbdoXt2QfyFMm+YhidDkL
        F1vLUagM6BgD56KyKA==
        """

    /// The DER of the Apple App Attestation Root CA, in base64.
    static let appAttestationRootCABase64 = """
        MIICITCCAaegAwIBAgIQC/O+DvHN0uD7jG5yH2IXmDAKBggqhkjOPQQDAzBSMSYwJAYDVQQDDB1B
        cHBsZSBBcHAgQXR0ZXN0YXRpb24gUm9vdCBDQTETMBEGA1UECgwKQXBwbGUgSW5jLjETMBEGA1UE
        CAwKQ2FsaWZvcm5pYTAeFw0yMDAzMTgxODMyNTNaFw00NTAzMTUwMDAwMDBaMFIxJjAkBgNVBAMM
        HUFwcGxlIEFwcCBBdHRlc3RhdGlvbiBSb290IENBMRMwEQYDVQQKDApBcHBsZSBJbmMuMRMwEQYD
        VQQIDApDYWxpZm9ybmlhMHYwEAYHKoZIzj0CAQYFK4EEACIDYgAERTHhmLW07ATaFQIEVwTtT4dy
        ctdhNbJhFs/Ii2FdCgAHGbpphY3+d8qjuDngIN3WVhQUBHAoMeQ/cLiP1sOUtgjqK9auYen1mMEv
        Rq9Sk3Jm5X8U62H+xTD3FE9TgS41o0IwQDAPBgNVHRMBAf8EBTADAQH/MB0GA1UdDgQWBBSskRBT
        M72+aEH/pwyp5frq5eWKoTAOBgNVHQ8BAf8EBAMCAQYwCgYIKoZIzj0EAwMDaAAwZQIwQgFGnByv
        siVbpTKwSga0kP0e8EeDS4+sQmTvb7vn53O5+FRXgeLhpJ06ysC5PrOyAjEAp5U4xDgEgllF7En3
        VcE3iexZZtKeYnpqtijVoyFraWVIyd/dganmrduC1bmTBGwD
        """

    /// Parses a built-in root; these are constants of this file, so one that does not parse is a fault of the build.
    static func certificate(_ base64: String) -> Certificate {
        guard let der = ByteEncoding.fromBase64(base64.filter { !$0.isWhitespace }), let certificate = Certificate(der: der) else {
            fatalError("a built-in Apple root does not parse")
        }
        return certificate
    }
}
