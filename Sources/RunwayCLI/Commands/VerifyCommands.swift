import AppleFormats
import Foundation
import RunwayCrypto

/// Offline checks of Apple-signed data, with the same code the server runs.
enum VerifyCommands {
    /// What `verify app-attest` prints.
    struct AttestationVerdict: Encodable {
        let valid: Bool
        let appId: String
        let checkedAt: String
        var environment: String?
        /// The attested key (SubjectPublicKeyInfo, base64), to check later assertions with.
        var publicKey: String?
        var receiptBytes: Int?
        /// The first check that failed, and why.
        var step: String?
        var reason: String?
    }

    static let appAttest: Command = Command(["verify", "app-attest"], summary: "Check an App Attest attestation offline, step by step.",
                                   options: [
        .required("--attestation", "file", "The attestation object, raw CBOR or base64 text (required)."),
        .required("--key-id", "base64", "The key id from generateKey (required)."),
        .value("--challenge", "text", "The challenge the app hashed as client data."),
        .value("--client-data-hash", "base64|hex", "The client data hash itself, instead of --challenge."),
        .required("--team-id", "id", "Apple Developer Team ID (required)."),
        .required("--bundle-id", "id", "Bundle ID (required)."),
        .value("--at", "time", "Check the certificates at this time (ISO 8601 or Unix seconds; default now)."),
        .value("--environment", "env", "Accept only development or production (default either)."),
        .value("--root", "pem", "Apple's App Attestation Root CA (default LINKRUNWAY_APP_ATTEST_ROOT, else the copy built in)."),
    ], details: """
        Prints a JSON verdict: the environment and
        the attested public key, or the first failing step (decode, format, certificates, chain, nonce, keyId,
        rpIdHash, counter, environment, credentialId) and why. Exits 1 when the attestation does not verify.
        """) { arguments, context in
        let path = try arguments.required("--attestation")
        let keyId = try decode(try arguments.required("--key-id"), option: "--key-id")
        let clientDataHash: [UInt8]
        switch (arguments.value("--challenge"), arguments.value("--client-data-hash")) {
        case (let challenge?, nil): clientDataHash = Digest.sha256(challenge)
        case (nil, let hash?):
            clientDataHash = try decode(hash, option: "--client-data-hash")
            guard clientDataHash.count == 32 else { throw UsageError("--client-data-hash must be 32 bytes") }
        default: throw UsageError("give --challenge or --client-data-hash")
        }
        let appId = "\(try arguments.required("--team-id")).\(try arguments.required("--bundle-id"))"
        let at = try time(arguments.value("--at"))
        let allowed: Set<AppAttestEnvironment>
        if let environment = arguments.value("--environment") {
            guard let parsed = AppAttestEnvironment(rawValue: environment) else { throw UsageError("--environment must be development or production") }
            allowed = [parsed]
        } else {
            allowed = Set(AppAttestEnvironment.allCases)
        }
        var root = AppleRoots.appAttestationRootCA
        if let rootPath = arguments.value("--root") ?? context.environment["LINKRUNWAY_APP_ATTEST_ROOT"] {
            guard let pem = try? String(contentsOfFile: rootPath, encoding: .utf8), let named = AppAttestVerifier.appleRoot(pem: pem) else {
                throw CommandFailure("\(rootPath) is not Apple's App Attestation Root CA")
            }
            root = named
        }
        guard let raw = FileManager.default.contents(atPath: path) else { throw CommandFailure("cannot read \(path)") }
        let text = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let attestation = Data(base64Encoded: text).map(Array.init) ?? Array(raw)

        var verdict = AttestationVerdict(valid: false, appId: appId, checkedAt: ISO8601DateFormatter().string(from: at))
        switch AppAttestVerifier(root: root).verifyAttestation(attestation, keyId: keyId, clientDataHash: clientDataHash, appId: appId,
                                                               at: at, allowed: allowed) {
        case .success(let attested):
            verdict = AttestationVerdict(valid: true, appId: appId, checkedAt: verdict.checkedAt, environment: attested.environment.rawValue,
                                         publicKey: Data(attested.publicKey.spki).base64EncodedString(), receiptBytes: attested.receipt.count)
            context.output(try Output.json(verdict))
        case .failure(let failure):
            verdict.step = failure.step
            verdict.reason = failure.description
            context.output(try Output.json(verdict))
            throw CommandFailure("the attestation does not verify (\(failure.step))")
        }
    }

    /// Base64 (standard or URL-safe), or 32 bytes in hex.
    static func decode(_ text: String, option: String) throws -> [UInt8] {
        if text.count == 64, let hex = ByteEncoding.fromHex(text) { return hex }
        if let bytes = Data(base64Encoded: text).map(Array.init) ?? ByteEncoding.fromBase64url(text) { return bytes }
        throw UsageError("\(option) must be base64 or hex")
    }

    static func time(_ text: String?) throws -> Date {
        guard let text else { return Date() }
        if let seconds = Int64(text) { return Date(timeIntervalSince1970: Double(seconds)) }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        throw UsageError("--at must be ISO 8601 or Unix seconds")
    }
}
