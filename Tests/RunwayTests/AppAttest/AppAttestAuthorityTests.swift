@testable import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayTestKit
import Testing

/// App Attest checks that Apple's real samples cannot exercise (they are all valid in the ways Apple guarantees),
/// against attestations from a test authority built to break one check at a time.
@Suite("App Attest with a test authority")
struct AppAttestAuthorityTests {
    typealias Authority = AppAttestTestAuthority

    @Test("each check refuses the attestation that breaks it, with its own step: credential id, counter, AAGUID, nonce, key id, app, chain")
    func eachCheck() throws {
        let authority = Authority()
        let verifier = AppAttestVerifier(root: authority.root)
        let device = authority.deviceKey()
        func verify(_ attestation: [UInt8], keyId: [UInt8]? = nil, allowed: Set<AppAttestEnvironment> = Set(AppAttestEnvironment.allCases))
            -> Result<AppAttestVerifier.Attested, AppAttestFailure> {
            verifier.verifyAttestation(attestation, keyId: keyId ?? device.keyId, clientDataHash: Digest.sha256("c"), appId: Authority.appId,
                                       at: Date(), allowed: allowed)
        }
        let attested = try verify(authority.attestation(device, challenge: "c")).get()
        #expect(attested.environment == .production && attested.publicKey.spki == device.key.publicKey!.spki)
        #expect(attested.receipt == Array("test receipt".utf8))
        #expect(try verify(authority.attestation(device, challenge: "c", aaguid: Authority.development)).get().environment == .development)

        var nearKeyId = device.keyId
        nearKeyId[31] ^= 0x01
        #expect(verify(authority.attestation(device, challenge: "c", credentialId: nearKeyId)) == .failure(.credentialIdMismatch))
        #expect(verify(authority.attestation(device, challenge: "c", credentialId: Array(device.keyId.prefix(31)))) == .failure(.credentialIdMismatch))
        #expect(verify(authority.attestation(device, challenge: "c", counter: 1)) == .failure(.counterNotZero(1)))
        #expect(verify(authority.attestation(device, challenge: "c", counter: 1 << 24)) == .failure(.counterNotZero(1 << 24)))
        var nearProduction = Authority.production
        nearProduction[15] = 1
        #expect(verify(authority.attestation(device, challenge: "c", aaguid: nearProduction)) == .failure(.unknownAAGUID))
        #expect(verify(authority.attestation(device, challenge: "c", aaguid: [UInt8](repeating: 0, count: 16))) == .failure(.unknownAAGUID))
        #expect(verify(authority.attestation(device, challenge: "c", aaguid: Authority.development), allowed: [.production])
                == .failure(.environmentNotAllowed("development")))
        #expect(verify(authority.attestation(device, challenge: "c"), allowed: [.development]) == .failure(.environmentNotAllowed("production")))
        #expect(verify(authority.attestation(device, challenge: "c", nonceFor: "another challenge")) == .failure(.nonceMismatch))
        #expect(verify(authority.attestation(device, challenge: "c", withNonce: false)) == .failure(.nonceMissing))
        #expect(verify(authority.attestation(device, challenge: "c"), keyId: authority.deviceKey().keyId) == .failure(.keyIdMismatch))
        #expect(verify(authority.attestation(device, challenge: "c", appId: "OTHER12345.com.example.attested")) == .failure(.rpIdMismatch))

        // The chain: a credential certificate that expired last week, and one a stranger's intermediate signed.
        let expired = verify(authority.attestation(device, challenge: "c", leafValidFrom: Date().addingTimeInterval(-10 * 86_400)))
        guard case .failure(.chain(let why)) = expired else { Issue.record("an expired credential certificate: \(expired)"); return }
        #expect(why.contains("expired"), "\(why)")
        let stranger = Authority()
        let forged = verify(authority.attestation(device, challenge: "c", issuer: (stranger.intermediate, stranger.intermediateKey)))
        guard case .failure(.chain) = forged else { Issue.record("a credential certificate of another authority: \(forged)"); return }
        #expect(AppAttestVerifier(root: stranger.root).verifyAttestation(authority.attestation(device, challenge: "c"), keyId: device.keyId,
                                                                         clientDataHash: Digest.sha256("c"), appId: Authority.appId, at: Date()).isChain)
    }

    @Test("production refuses any root but Apple's, so this authority never verifies there")
    func productionRefusesTheTestRoot() {
        let authority = Authority()
        #expect(Certificate(pem: authority.rootPEM)?.der == authority.root.der, "the PEM is well formed")
        #expect(AppAttestVerifier.appleRoot(pem: authority.rootPEM) == nil)
    }

    @Test("assertions: the counter must rise (equal is a replay), the key and the app must be the attested ones")
    func assertions() {
        let device = Authority().deviceKey()
        let key = device.key.publicKey!
        func verify(_ counter: UInt32, previous: UInt32, appId: String = Authority.appId, signer: Authority.DeviceKey? = nil) -> Result<UInt32, AppAttestFailure> {
            AppAttestVerifier.verifyAssertion(Authority.assertion(signer ?? device, challenge: "c", counter: counter, appId: appId), publicKey: key,
                                              clientDataHash: Digest.sha256("c"), appId: Authority.appId, previousCounter: previous)
        }
        #expect(verify(5, previous: 4) == .success(5))
        #expect(verify(5, previous: 5) == .failure(.counterNotIncreasing(previous: 5, received: 5)))
        #expect(verify(5, previous: 6) == .failure(.counterNotIncreasing(previous: 6, received: 5)))
        #expect(verify(UInt32.max, previous: UInt32.max - 1) == .success(UInt32.max))
        #expect(verify(5, previous: 4, appId: "OTHER12345.com.example.attested") == .failure(.rpIdMismatch))
        #expect(verify(5, previous: 4, signer: Authority().deviceKey()) == .failure(.signatureInvalid))
    }

    @Test("through the API: a bad credential id, counter or AAGUID is refused with its step; of concurrent assertions with one counter exactly one wins",
          arguments: StoreBackend.all)
    func throughTheAPI(_ backend: StoreBackend) async throws {
        let authority = Authority()
        let server = try await TestServer.start(backend, appAttestRoot: authority.root)
        let app = try await server.admin.post("/v1/apps", json: #"""
            {"workspaceId":"\#(server.defaultWorkspace.id)","name":"Attested","teamId":"ABCDE12345","bundleId":"com.example.attested",
             "attestation":{"policy":"optional","environments":["production"]}}
            """#).decoded(App.self, status: 201)
        let client = server.client(try await server.createKey(.publishable, app: app.id).secret)
        func plant(_ challenge: String) async throws {
            let now = server.services.clock.nowMilliseconds()
            try await server.store.write { db in
                try db.execute("INSERT INTO attest_challenges (app_id, challenge, created_at) VALUES (\(app.id), \(challenge), \(now))")
            }
        }
        let device = authority.deviceKey()
        func register(_ challenge: String, _ attestation: [UInt8]) async throws -> HTTPResponse {
            try await plant(challenge)
            return await client.post("/v1/attest/apple/register", json: #"""
                {"appId":"\#(app.id)","keyId":"\#(device.keyIdBase64)","attestation":"\#(Data(attestation).base64EncodedString())","challenge":"\#(challenge)","installId":"att-1"}
                """#)
        }
        var wrongId = device.keyId
        wrongId[31] ^= 0x01
        for (challenge, attestation, step) in [
            ("r1", authority.attestation(device, challenge: "r1", credentialId: wrongId), "credentialId"),
            ("r2", authority.attestation(device, challenge: "r2", counter: 3), "counter"),
            ("r3", authority.attestation(device, challenge: "r3", aaguid: Authority.development), "environment"),
        ] {
            let refused = try await register(challenge, attestation)
            #expect(refused.status == 400 && refused.errorCode == "attestation_invalid" && refused.bodyText.contains("\(step):"), "\(step): \(refused.bodyText)")
        }
        #expect(try await server.store.read { try $0.first("SELECT COUNT(*) AS n FROM attest_keys")!.int("n") } == 0)
        let grant = try await register("r4", authority.attestation(device, challenge: "r4")).decoded(AttestationGrant.self, status: 201)
        #expect(grant.environment == "production")

        // Eight assertions carrying counter 1, each with a challenge of its own, at once: one advances the counter.
        let challenges = (0..<8).map { "a\($0)" }
        for challenge in challenges { try await plant(challenge) }
        let statuses = await withTaskGroup(of: (Int, String?).self) { group in
            for challenge in challenges {
                group.addTask {
                    let assertion = Data(Authority.assertion(device, challenge: challenge, counter: 1)).base64EncodedString()
                    let response = await client.post("/v1/attest/apple/assert", json: #"""
                        {"appId":"\#(app.id)","keyId":"\#(device.keyIdBase64)","assertion":"\#(assertion)","challenge":"\#(challenge)","installId":"att-1"}
                        """#)
                    return (response.status, response.errorCode)
                }
            }
            return await group.reduce(into: [(Int, String?)]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0.0 == 200 }.count == 1, "\(statuses)")
        #expect(statuses.filter { $0.0 == 400 && $0.1 == "counter_replayed" }.count == 7, "\(statuses)")
        #expect(try await server.store.read { try $0.first("SELECT counter FROM attest_keys")!.int("counter") } == 1)
        try await plant("a-next")
        let next = Data(Authority.assertion(device, challenge: "a-next", counter: 2)).base64EncodedString()
        #expect(await client.post("/v1/attest/apple/assert", json: #"{"appId":"\#(app.id)","keyId":"\#(device.keyIdBase64)","assertion":"\#(next)","challenge":"a-next"}"#).status == 200)
        await server.stop()
    }
}

extension Result where Failure == AppAttestFailure {
    var isChain: Bool {
        if case .failure(.chain) = self { return true }
        return false
    }
}
