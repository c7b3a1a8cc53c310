import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayStore

/// App Attest: one-time challenges, key registration with full attestation checks, assertions with a counter that
/// only goes up (kept in the store, so a replay fails in every process), and the tokens events carry.
enum AttestRoutes {
    static let challengeLifetime: Int64 = 5 * 60_000

    static func routes(_ services: ServerServices) -> [Route] {
        services.metrics.declareCounter("linkrunway_unattested_total", help: "Requests kept out of attribution because an app requires attestation, by kind.")
        let limiter = RateLimiter(capacity: 20, perMinute: 20, clock: services.monotonic)
        return [
            Route(method: .POST, pattern: "/v1/attest/apple/challenge", operation: Operation(
                id: "attestChallenge", summary: "A one-time App Attest challenge, valid for five minutes", tag: "App Attest",
                access: Access.client, responses: [.json(201, "AttestChallenge", "The challenge.")], errors: [409, 429], rateLimited: true)
            ) { request, context in
                let app = try await attestingApp(context, services, requested: nil)
                if let wait = limiter.take("\(app.id)|\(request.remoteAddress ?? "")") {
                    throw HTTPError(status: 429, code: ErrorCode.rateLimited, message: "too many challenges; retry in \(wait) s",
                                    headers: ["Retry-After": String(wait)])
                }
                let now = services.clock.nowMilliseconds()
                let challenge = ByteEncoding.base64url(SecureRandom.bytes(32))
                try await services.store.write { db in
                    try db.execute("DELETE FROM attest_challenges WHERE created_at < \(now - 2 * challengeLifetime)")
                    try db.execute("INSERT INTO attest_challenges (app_id, challenge, created_at) VALUES (\(app.id), \(challenge), \(now))")
                }
                return try .json(AttestChallenge(challenge: challenge, expiresAt: Timestamp.iso(now + challengeLifetime)), status: 201)
            },

            Route(method: .POST, pattern: "/v1/attest/apple/register", operation: Operation(
                id: "attestRegister", summary: "Register a key with its App Attest attestation; returns an attestation token",
                tag: "App Attest", access: Access.client, requestSchema: "AttestRegisterRequest",
                responses: [.json(201, "AttestationGrant", "The key is registered.")], maxBodyBytes: 128 * 1024, errors: [409], rateLimited: true)
            ) { request, context in
                let body = try request.decode(AttestRegisterRequest.self)
                let app = try await attestingApp(context, services, requested: body.appId)
                guard let root = services.appAttestRoot else {
                    throw HTTPError.unavailable(ErrorCode.attestationUnconfigured, "this server has no App Attestation root (LINKRUNWAY_APP_ATTEST_ROOT)")
                }
                let keyId = try base64(body.keyId, field: "keyId", limit: 64)
                guard keyId.count == 32 else { throw HTTPError.invalidField("keyId", "must be the base64 of a 32-byte key id") }
                let attestation = try base64(body.attestation, field: "attestation", limit: 96 * 1024)
                let installId = try Validate.installID(body.installId, field: "installId")
                try await consume(body.challenge, app: app, services)
                let environments = Set(app.attestation.environments.compactMap(AppAttestEnvironment.init(rawValue:)))
                let verified = AppAttestVerifier(root: root).verifyAttestation(attestation, keyId: keyId, clientDataHash: Digest.sha256(body.challenge),
                                                                               appId: "\(app.teamId).\(app.bundleId)", at: services.clock.now(),
                                                                               allowed: environments)
                let attested: AppAttestVerifier.Attested
                switch verified {
                case .success(let value): attested = value
                case .failure(let failure):
                    throw HTTPError(status: 400, code: ErrorCode.attestationInvalid, message: "\(failure.step): \(failure)", field: "attestation")
                }
                let now = services.clock.nowMilliseconds()
                do {
                    try await services.store.write { db in
                        try db.execute("""
                            INSERT INTO attest_keys (app_id, key_id, install_id, public_key, receipt, environment, counter, created_at, last_used_at)
                            VALUES (\(app.id), \(body.keyId), \(installId), \(ByteEncoding.hex(attested.publicKey.spki)),
                                    \(ByteEncoding.hex(attested.receipt)), \(attested.environment.rawValue), 0, \(now), \(now))
                            """)
                    }
                } catch StoreError.conflict {
                    throw HTTPError.conflict(ErrorCode.conflict, "this key is already registered; assert with it instead")
                }
                return try .json(grant(app: app, keyId: body.keyId, installId: installId, environment: attested.environment.rawValue, services), status: 201)
            },

            Route(method: .POST, pattern: "/v1/attest/apple/assert", operation: Operation(
                id: "attestAssert", summary: "Prove again with a registered key; returns a fresh attestation token",
                tag: "App Attest", access: Access.client, requestSchema: "AttestAssertRequest",
                responses: [.json(200, "AttestationGrant", "Verified.")], maxBodyBytes: 16 * 1024, errors: [404, 409], rateLimited: true)
            ) { request, context in
                let body = try request.decode(AttestAssertRequest.self)
                let app = try await attestingApp(context, services, requested: body.appId)
                let assertion = try base64(body.assertion, field: "assertion", limit: 8 * 1024)
                let installId = try Validate.installID(body.installId, field: "installId")
                guard let key = try await services.store.read({ db in
                    try db.first("SELECT public_key, counter, environment FROM attest_keys WHERE app_id = \(app.id) AND key_id = \(body.keyId)")
                }) else {
                    throw HTTPError.notFound(ErrorCode.unknownKey, "this key is not registered; attest a new one")
                }
                try await consume(body.challenge, app: app, services)
                guard let spki = ByteEncoding.fromHex(try key.string("public_key")), let publicKey = PublicKey(spki: spki) else {
                    throw StoreError.corrupt("a stored App Attest key is unreadable")
                }
                let previous = UInt32(clamping: try key.int("counter"))
                let counter: UInt32
                switch AppAttestVerifier.verifyAssertion(assertion, publicKey: publicKey, clientDataHash: Digest.sha256(body.challenge),
                                                appId: "\(app.teamId).\(app.bundleId)", previousCounter: previous) {
                case .success(let value): counter = value
                case .failure(.counterNotIncreasing(let previous, let received)):
                    throw HTTPError.badRequest(ErrorCode.counterReplayed, "counter \(received) is not above \(previous): a replayed assertion", field: "assertion")
                case .failure(let failure):
                    throw HTTPError.badRequest(ErrorCode.assertionInvalid, "\(failure.step): \(failure)", field: "assertion")
                }
                let now = services.clock.nowMilliseconds()
                let advanced = try await services.store.write { db in
                    try db.execute("""
                        UPDATE attest_keys SET counter = \(Int64(counter)), last_used_at = \(now)
                        WHERE app_id = \(app.id) AND key_id = \(body.keyId) AND counter < \(Int64(counter))
                        """)
                }
                guard advanced == 1 else {
                    throw HTTPError.badRequest(ErrorCode.counterReplayed, "another assertion with this counter got there first", field: "assertion")
                }
                return try .json(grant(app: app, keyId: body.keyId, installId: installId, environment: try key.string("environment"), services))
            },
        ]
    }

    /// The key's app, when attestation is on for it.
    static func attestingApp(_ context: RequestContext, _ services: ServerServices, requested: String?) async throws -> App {
        let principal = try context.principal()
        guard let appId = principal.appId, let app = try await services.links.app(id: appId) else {
            throw HTTPError.forbidden(ErrorCode.keyKindForbidden, "needs an app's publishable key")
        }
        if let requested, requested != app.id { throw HTTPError.forbidden(ErrorCode.appForbidden, "this publishable key belongs to another app") }
        guard app.attestation.policy != "off" else { throw HTTPError.conflict(ErrorCode.attestationOff, "App Attest is off for this app") }
        return app
    }

    /// Uses a challenge up: it must be this app's, unused and at most five minutes old.
    static func consume(_ challenge: String, app: App, _ services: ServerServices) async throws {
        let now = services.clock.nowMilliseconds()
        let outcome: String = try await services.store.write { db in
            guard let row = try db.first("SELECT created_at FROM attest_challenges WHERE app_id = \(app.id) AND challenge = \(challenge)") else {
                return "unknown"
            }
            // Of two requests spending one challenge at the same instant, the one whose delete lands has it.
            guard try db.execute("DELETE FROM attest_challenges WHERE app_id = \(app.id) AND challenge = \(challenge)") == 1 else { return "unknown" }
            return try row.int("created_at") >= now - challengeLifetime ? "fresh" : "expired"
        }
        switch outcome {
        case "fresh": return
        case "expired": throw HTTPError.badRequest(ErrorCode.challengeExpired, "the challenge is older than five minutes; ask for a new one", field: "challenge")
        default: throw HTTPError.badRequest(ErrorCode.challengeUnknown, "the challenge is unknown or was used already", field: "challenge")
        }
    }

    static func grant(app: App, keyId: String, installId: String?, environment: String, _ services: ServerServices) -> AttestationGrant {
        let expiry = Int64(services.clock.now().timeIntervalSince1970) + AttestationToken.lifetimeSeconds
        let token = AttestationToken(appId: app.id, installId: installId, keyId: keyId, environment: environment, expiresAt: expiry)
        return AttestationGrant(token: token.signed(services.secrets), expiresAt: Timestamp.iso(expiry * 1000), environment: environment)
    }

    static func base64(_ text: String, field: String, limit: Int) throws -> [UInt8] {
        guard text.utf8.count <= limit * 4 / 3 + 4, let bytes = Data(base64Encoded: text).map(Array.init) ?? ByteEncoding.fromBase64url(text) else {
            throw HTTPError.invalidField(field, "must be base64")
        }
        return bytes
    }

}
