// libFuzzer entry point for the parsers of Apple's formats: CBOR, App Attest attestation and assertion objects,
// authenticator data, the nonce extension's DER, the whole attestation check against Apple's root when
// FUZZ_APP_ATTEST_ROOT names it, SKAdNetwork and AdAttributionKit postbacks, and compact JWS.
// Built by scripts/fuzz.sh together with Sources/AppleFormats; a crash, hang or leak fails the run.
import Foundation
import RunwayCrypto

let verifier: AppAttestVerifier? = {
    guard let path = ProcessInfo.processInfo.environment["FUZZ_APP_ATTEST_ROOT"],
          let pem = try? String(contentsOfFile: path, encoding: .utf8), let root = AppAttestVerifier.appleRoot(pem: pem) else { return nil }
    return AppAttestVerifier(root: root)
}()

let pinnedTime = Date(timeIntervalSince1970: 1_606_000_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? CBORDecoder().decode(bytes)
    _ = try? AttestationObject.parse(bytes)
    _ = try? AssertionObject.parse(bytes)
    _ = try? AuthenticatorData.parse(bytes, attested: true)
    _ = try? AuthenticatorData.parse(bytes, attested: false)
    _ = DER.appAttestNonce(bytes)
    if let verifier {
        let keyId = Array(Digest.sha256(bytes))
        _ = verifier.verifyAttestation(bytes, keyId: keyId, clientDataHash: keyId, appId: "ABCDE12345.com.example.app", at: pinnedTime)
    }
    if let key = PrivateKey.shared.publicKey {
        _ = AppAttestVerifier.verifyAssertion(bytes, publicKey: key, clientDataHash: Array(repeating: 0, count: 32),
                                              appId: "ABCDE12345.com.example.app", previousCounter: 0)
    }
    _ = SKAdNetworkPostback.verify(bytes)
    _ = AdAttributionKitPostback.verify(bytes, allowDevelopment: true)
    _ = try? CompactJWS.parse(String(decoding: bytes, as: UTF8.self))
    return 0
}

extension PrivateKey {
    static let shared: PrivateKey = PrivateKey.generateP256()!
}
