import AppleFormats
import Foundation
@testable import RunwayCLI
import RunwayCrypto
import RunwayJSON
@testable import RunwayServer
import RunwayTestKit
import Testing

/// Apple's two roots built into the server: the bytes are Apple's (their SHA-256 is the fingerprint Apple publishes
/// on https://www.apple.com/certificateauthority/), they are what a server uses when no setting names a file, and they
/// are the same certificates as Apple's files in `../shared/vectors` when that folder is present.
@Suite("Apple's built-in roots")
struct AppleRootsTests {
    /// As Apple's certificate authority page prints them.
    static let publishedG3 = "63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79"
    static let publishedAppAttestation = "1C:B9:82:3B:A2:8B:A6:AD:2D:33:A0:06:94:1D:E2:AE:4F:51:3E:F1:D4:E8:31:B9:F7:E0:FA:7B:62:42:C9:32"

    static func fingerprint(_ certificate: Certificate) -> String {
        Digest.sha256(certificate.der).map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    @Test("each built-in root has Apple's published SHA-256 fingerprint and subject")
    func fingerprints() {
        #expect(Self.fingerprint(AppleRoots.appleRootCAG3) == Self.publishedG3)
        #expect(Self.fingerprint(AppleRoots.appAttestationRootCA) == Self.publishedAppAttestation)
        #expect(ByteEncoding.hex(Digest.sha256(AppleRoots.appleRootCAG3.der)) == AppStoreVerifier.appleRootG3Fingerprint)
        #expect(ByteEncoding.hex(Digest.sha256(AppleRoots.appAttestationRootCA.der)) == AppAttestVerifier.rootFingerprint)
        #expect(AppleRoots.appleRootCAG3.subject.contains("Apple Root CA - G3"))
        #expect(AppleRoots.appAttestationRootCA.subject.contains("Apple App Attestation Root CA"))
    }

    @Test("a server started without root settings trusts the built-in roots; a setting still replaces the App Store one")
    func serverDefaults() async throws {
        let directory = TemporaryDirectory()
        var configuration = ServerConfiguration(database: .sqlite(path: directory.path("roots.db")))
        configuration.http.port = 0
        configuration.logLevel = .error
        let runtime = try await ServerRuntime.start(configuration, logSink: .memory())
        #expect(runtime.services.appStoreVerifier?.root.der == AppleRoots.appleRootCAG3.der)
        #expect(runtime.services.appAttestRoot?.der == AppleRoots.appAttestationRootCA.der)
        await runtime.stop()

        let signer = AppStoreTestSigner()
        let rootFile = directory.path("test-root.der")
        try Data(signer.root.der).write(to: URL(fileURLWithPath: rootFile))
        configuration.appStoreRootPath = rootFile
        let overridden = try await ServerRuntime.start(configuration, logSink: .memory())
        #expect(overridden.services.appStoreVerifier?.root.der == signer.root.der)
        await overridden.stop()
    }

    @Test("the built-in roots are Apple's files in ../shared/vectors",
          .enabled(if: AppStoreVectors.available && AppAttestVectors.available, "../shared/vectors is absent: the built-in roots are checked by fingerprint only"))
    func sameAsVectors() throws {
        #expect(try AppStoreVectors.bytes("apple-real-certs/AppleRootCA-G3.cer") == AppleRoots.appleRootCAG3.der)
        #expect(AppAttestVectors.root?.der == AppleRoots.appAttestationRootCA.der)
    }

    @Test("verify app-attest checks a real attestation with the built-in root when no --root is given",
          .enabled(if: AppAttestVectors.available, "../shared/vectors/app-attest is absent"))
    func commandLineDefault() async throws {
        let sample = try #require(AppAttestVectors.veehaitch.first { $0["type"] as? String == "attestation" })
        let directory = TemporaryDirectory()
        let run = await CLITests.run(try CLISimulationTests.appAttestCommand(sample, in: directory) + ["--at", sample["timestamp"] as! String])
        #expect(run.status == 0, "\(run.output) \(run.errors)")
        #expect(try JSONParser().parse(run.output)["valid"] == true)
    }
}
