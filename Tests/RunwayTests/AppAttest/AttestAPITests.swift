import AppleFormats
import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayCrypto
import RunwayHTTP
@testable import RunwayKit
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

@Suite("App Attest API")
struct AttestAPITests {
    struct World {
        let server: TestServer
        let clock: ManualClock
        let app: App
        let client: TestClient
    }

    /// The app of the real development samples, with attestation `policy` for `environments`.
    static func world(policy: String = "optional", environments: [String] = ["development"], at: Date, root: Certificate?) async throws -> World {
        let clock = ManualClock(at)
        let server = try await TestServer.start(clock: clock.wall, monotonic: clock.monotonic, appAttestRoot: root)
        let app = try await server.admin.post("/v1/apps", CreateAppRequest(workspaceId: server.defaultWorkspace.id, name: "PoC", teamId: "6MURL8TA57",
                                                                           bundleId: "de.vincent-haupert.apple-appattest-poc",
                                                                           attestation: AttestationSettings(policy: policy, environments: environments)))
            .decoded(App.self, status: 201)
        let key = try await server.createKey(.publishable, app: app.id).secret
        return World(server: server, clock: clock, app: app, client: server.client(key))
    }

    /// Issues `text` as a challenge, as if the server had made it `ageSeconds` ago (the samples signed a fixed text).
    static func plant(_ w: World, challenge text: String, ageSeconds: Double = 0) async throws {
        let at = w.server.services.clock.nowMilliseconds() - Int64(ageSeconds * 1000)
        try await w.server.store.write { db in
            try db.execute("INSERT INTO attest_challenges (app_id, challenge, created_at) VALUES (\(w.app.id), \(text), \(at))")
        }
    }

    static var sample: (attestation: [String: Any], assertion: [String: Any])? {
        let samples = AppAttestVectors.veehaitch
        guard let attestation = samples.first(where: { $0["type"] as? String == "attestation" }),
              let assertion = samples.first(where: { $0["type"] as? String == "assertion" && $0["keyIdBase64"] as? String == attestation["keyIdBase64"] as? String })
        else { return nil }
        return (attestation, assertion)
    }

    @Test("register and assert real device data through the API: challenges once, counters only up, tokens on events",
          .enabled(if: AppAttestVectors.available, "../shared/vectors/app-attest is absent"))
    func realDevice() async throws {
        let (attestation, assertion) = try #require(Self.sample)
        let w = try await Self.world(at: AppAttestVectorTests.date(attestation["timestamp"] as! String), root: AppAttestVectors.root)
        let keyId = attestation["keyIdBase64"] as! String
        func register(_ challenge: String) async throws -> HTTPResponse {
            try await w.client.post("/v1/attest/apple/register", AttestRegisterRequest(appId: w.app.id, keyId: keyId, attestation: attestation["attestationBase64"] as! String,
                                                                                       challenge: challenge, installId: "dev-1"))
        }
        func assert(_ challenge: String) async throws -> HTTPResponse {
            try await w.client.post("/v1/attest/apple/assert", AttestAssertRequest(appId: w.app.id, keyId: keyId, assertion: assertion["assertionBase64"] as! String,
                                                                                   challenge: challenge, installId: "dev-1"))
        }
        #expect(try await register("wurzelpfropf").errorCode == "challenge_unknown", "a challenge the server never gave")
        try await Self.plant(w, challenge: "wurzelpfropf", ageSeconds: 3601)
        #expect(try await register("wurzelpfropf").errorCode == "challenge_expired", "an attestation takes a challenge for an hour")
        // Fifty-nine minutes: a device that met an Apple outage at attestKey tries again with the same challenge.
        try await Self.plant(w, challenge: "wurzelpfropf", ageSeconds: 3540)
        let grant = try await register("wurzelpfropf").decoded(AttestationGrant.self, status: 201)
        #expect(grant.environment == "development")
        #expect(try await register("wurzelpfropf").errorCode == "challenge_unknown", "challenges are one-time")

        try await Self.plant(w, challenge: "wurzelpfropf", ageSeconds: 301)
        #expect(try await assert("wurzelpfropf").errorCode == "challenge_expired")
        try await Self.plant(w, challenge: "wurzelpfropf")
        let asserted = try await assert("wurzelpfropf").decoded(AttestationGrant.self)
        #expect(asserted.environment == "development")
        let counter = try await w.server.store.read { try $0.first("SELECT counter FROM attest_keys")!.int("counter") }
        #expect(counter == 1)
        try await Self.plant(w, challenge: "wurzelpfropf")
        let replay = try await assert("wurzelpfropf")
        #expect(replay.status == 400 && replay.errorCode == "counter_replayed")
        #expect(try await w.client.post("/v1/attest/apple/assert", AttestAssertRequest(appId: w.app.id, keyId: "AAAA", assertion: "AAAA", challenge: "x")).status == 404)

        // The token marks events as attested.
        _ = try await w.client.post("/v1/installs/match", MatchInstallRequest(installId: "dev-1", platform: "ios", consent: true, attestation: grant.token))
            .decoded(InstallMatch.self)
        _ = try await w.client.post("/v1/events", EventRequest(eventId: "a1", type: "OPEN", installId: "dev-1", timestamp: "2020-11-21T22:00:00Z",
                                                               attestation: asserted.token)).decoded(EventResult.self, status: 201)
        _ = try await w.client.post("/v1/events", EventRequest(eventId: "a2", type: "OPEN", installId: "dev-1", timestamp: "2020-11-21T22:00:00Z"))
            .decoded(EventResult.self, status: 201)
        let flags = try await w.server.store.read { try $0.query("SELECT event_id, attested FROM events ORDER BY event_id").map { try $0.bool("attested") } }
        #expect(flags == [true, false])
        #expect(try await w.server.store.read { try $0.first("SELECT attested FROM installs")!.bool("attested") })

        // A key registers once; deleting the install deletes its key.
        try await Self.plant(w, challenge: "wurzelpfropf")
        #expect(try await register("wurzelpfropf").status == 409)
        let receipt = try await w.server.admin.send("DELETE", "/v1/installs/dev-1?appId=\(w.app.id)").decoded(DeletionReceipt.self)
        #expect(receipt.deleted["attestKeys"] == 1)
        #expect(try await w.server.store.read { try $0.first("SELECT COUNT(*) AS n FROM attest_keys")!.int("n") } == 0)
        await w.server.stop()
    }

    @Test("the app's environments decide: a development key is refused by a production-only app",
          .enabled(if: AppAttestVectors.available, "../shared/vectors/app-attest is absent"))
    func environments() async throws {
        let (attestation, _) = try #require(Self.sample)
        let w = try await Self.world(environments: ["production"], at: AppAttestVectorTests.date(attestation["timestamp"] as! String),
                                     root: AppAttestVectors.root)
        try await Self.plant(w, challenge: "wurzelpfropf")
        let refused = try await w.client.post("/v1/attest/apple/register", AttestRegisterRequest(appId: w.app.id, keyId: attestation["keyIdBase64"] as! String,
                                                                                                 attestation: attestation["attestationBase64"] as! String,
                                                                                                 challenge: "wurzelpfropf"))
        #expect(refused.status == 400)
        #expect(refused.errorCode == "attestation_invalid")
        #expect(refused.bodyText.contains("environment"))
        await w.server.stop()
    }

    @Test("assertions with a key made here: the signature, the app and the counter decide; off is 409; required keeps the unattested out")
    func ownKey() async throws {
        let w = try await Self.world(policy: "required", environments: ["development", "production"], at: Date(), root: nil)
        let key = try #require(PrivateKey.generateP256())
        let point = try #require(key.publicKey?.ecPoint)
        let keyId = Data(Digest.sha256(point)).base64EncodedString()
        try await w.server.store.write { db in
            try db.execute("""
                INSERT INTO attest_keys (app_id, key_id, install_id, public_key, receipt, environment, counter, created_at, last_used_at)
                VALUES (\(w.app.id), \(keyId), 'own-1', \(ByteEncoding.hex(key.publicKey!.spki)), '', 'production', 4, 0, 0)
                """)
        }
        let appId = "6MURL8TA57.de.vincent-haupert.apple-appattest-poc"
        func assertion(counter: UInt32, challenge: String, appId: String = appId, signer: PrivateKey? = nil) -> String {
            let authData = Digest.sha256(appId) + [0x40] + withUnsafeBytes(of: counter.bigEndian, Array.init)
            let signature = (signer ?? key).sign(Digest.sha256(authData + Digest.sha256(challenge)))!
            return Data(TestCBOR.map([("signature", .bytes(signature)), ("authenticatorData", .bytes(authData))])).base64EncodedString()
        }
        func send(_ assertion: String, _ challenge: String) async throws -> HTTPResponse {
            try await Self.plant(w, challenge: challenge)
            return try await w.client.post("/v1/attest/apple/assert", AttestAssertRequest(appId: w.app.id, keyId: keyId, assertion: assertion, challenge: challenge,
                                                                                          installId: "own-1"))
        }
        #expect(try await send(assertion(counter: 4, challenge: "c1"), "c1").errorCode == "counter_replayed")
        #expect(try await send(assertion(counter: 5, challenge: "c2", signer: PrivateKey.generateP256()), "c2").errorCode == "assertion_invalid")
        #expect(try await send(assertion(counter: 5, challenge: "c3", appId: "OTHERTEAM1.x.y"), "c3").errorCode == "assertion_invalid")
        #expect(try await send(assertion(counter: 5, challenge: "other"), "c4").errorCode == "assertion_invalid")
        let grant = try await send(assertion(counter: 5, challenge: "c5"), "c5").decoded(AttestationGrant.self)
        #expect(grant.environment == "production")

        // Required: no token, no match; events without one are stored but kept out of attribution.
        func match(_ installId: String, attestation: String? = nil) async throws -> HTTPResponse {
            try await w.client.post("/v1/installs/match", MatchInstallRequest(installId: installId, platform: "ios", consent: true, attestation: attestation))
        }
        let refused = try await match("own-1")
        #expect(refused.status == 403 && refused.errorCode == "attestation_required")
        let forged = try await match("own-1", attestation: grant.token + "x")
        #expect(forged.errorCode == "attestation_required")
        let other = try await match("someone-else", attestation: grant.token)
        #expect(other.errorCode == "attestation_required", "a token bound to one install does not attest another")
        let otherAppToken = AttestationToken(appId: "app_another", installId: "own-1", keyId: keyId, environment: "production",
                                             expiresAt: Int64(w.clock.now.timeIntervalSince1970) + 600).signed(w.server.services.secrets)
        let foreign = try await match("own-1", attestation: otherAppToken)
        #expect(foreign.errorCode == "attestation_required", "a token of another app attests nothing here")
        _ = try await match("own-1", attestation: grant.token).decoded(InstallMatch.self)
        let unattested = try await w.client.post("/v1/events", EventRequest(eventId: "u1", type: "OPEN", installId: "own-1", timestamp: "2026-01-01T00:00:00Z"))
            .decoded(EventResult.self, status: 201)
        #expect(unattested.attribution?.source == "unattested")
        // Without Apple's root, registration cannot be checked: 503, never a pass.
        try await Self.plant(w, challenge: "c-root")
        let unconfigured = try await w.client.post("/v1/attest/apple/register", AttestRegisterRequest(appId: w.app.id, keyId: keyId, attestation: "AAAA", challenge: "c-root"))
        #expect(unconfigured.status == 503 && unconfigured.errorCode == "attestation_unconfigured")
        // Tokens last an hour.
        w.clock.advance(seconds: 3601)
        let expired = try await match("own-1", attestation: grant.token)
        #expect(expired.errorCode == "attestation_required")

        // Challenges: given out, rate limited; attestation off means 409 everywhere.
        let challenge = try await w.client.post("/v1/attest/apple/challenge", json: "{}").decoded(AttestChallenge.self, status: 201)
        #expect(challenge.challenge.count == 43)
        let issued = w.server.services.clock.nowMilliseconds()
        #expect(challenge.expiresAt == Timestamp.iso(issued + 300_000), "an assertion takes it for five minutes")
        #expect(challenge.attestationExpiresAt == Timestamp.iso(issued + 3_600_000),
                "an attestation for an hour, so an Apple outage can be retried with the same hash")
        var limited = 0
        for _ in 0..<25 where await w.client.post("/v1/attest/apple/challenge", json: "{}").status == 429 { limited += 1 }
        #expect(limited == 6, "twenty challenges a minute: the first and nineteen more, then none until time moves")
        _ = try await w.server.admin.patch("/v1/apps/\(w.app.id)", UpdateAppRequest(attestation: AttestationSettings(policy: "off", environments: ["production"])))
            .decoded(App.self)
        w.server.services.apps.forget(appId: w.app.id)
        #expect(await w.client.post("/v1/attest/apple/challenge", json: "{}").status == 409)
        #expect(try await send(assertion(counter: 9, challenge: "c6"), "c6").errorCode == "attestation_off")
        #expect(try await w.client.post("/v1/attest/apple/register", AttestRegisterRequest(appId: w.app.id, keyId: keyId, attestation: "AAAA", challenge: "c7"))
            .status == 409)
        await w.server.stop()
    }
}
