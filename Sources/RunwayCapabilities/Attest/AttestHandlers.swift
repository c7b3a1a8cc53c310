import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayKit
import RunwayStore

/// App Attest: one-time challenges, key registration with full attestation checks, assertions with a counter that
/// only goes up (kept in the store, so a replay fails in every process), and the tokens events carry.
struct AttestHandlers: Sendable {
    /// How long a challenge is taken for an assertion.
    static let challengeLifetime: Int64 = 5 * 60_000
    /// How long a challenge is taken for an attestation: Apple asks a device that met an outage at `attestKey` to try
    /// again later with the same key and client data hash, so the challenge that hash is of stays good for an hour.
    static let attestationLifetime: Int64 = 60 * 60_000

    let services: ServerServices
    /// Twenty challenges a minute per app and client address.
    let limiter: RateLimiter

    init(services: ServerServices) {
        self.services = services
        limiter = RateLimiter(capacity: 20, perMinute: 20, clock: services.monotonic)
    }

    func challenge(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let app = try await attestingApp(context, requested: nil)
        if let wait = limiter.take("\(app.id)|\(AddressBucket.key(for: request.remoteAddress ?? ""))") {
            throw RateLimited(seconds: wait, what: "challenges")
        }
        let now = services.clock.nowMilliseconds()
        let challenge = ByteEncoding.base64url(SecureRandom.bytes(32))
        try await services.store.write { db in
            try AttestQueries.issueChallenge(db, appId: app.id, challenge: challenge, now: now, sweepBefore: now - 2 * Self.attestationLifetime)
        }
        return try .json(AttestChallenge(challenge: challenge, expiresAt: Timestamp.iso(now + Self.challengeLifetime),
                                         attestationExpiresAt: Timestamp.iso(now + Self.attestationLifetime)), status: 201)
    }

    func register(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let body = try request.decode(AttestRegisterRequest.self)
        let app = try await attestingApp(context, requested: body.appId)
        guard let root = services.appAttestRoot else {
            throw AttestError.unconfigured
        }
        let keyId = try Self.base64(body.keyId, field: "keyId", limit: 64)
        guard keyId.count == 32 else { throw RequestError.invalidField("keyId", "must be the base64 of a 32-byte key id") }
        let attestation = try Self.base64(body.attestation, field: "attestation", limit: 96 * 1024)
        let installId = try Validate.installID(body.installId, field: "installId")
        try await consume(body.challenge, app: app, lifetime: Self.attestationLifetime)
        let environments = Set(app.attestation.environments.compactMap(AppAttestEnvironment.init(rawValue:)))
        let verified = AppAttestVerifier(root: root).verifyAttestation(attestation, keyId: keyId, clientDataHash: Digest.sha256(body.challenge),
                                                                       appId: "\(app.teamId).\(app.bundleId)", at: services.clock.now(),
                                                                       allowed: environments)
        let attested: AppAttestVerifier.Attested
        switch verified {
        case .success(let value): attested = value
        case .failure(let failure):
            throw AttestError.attestationInvalid("\(failure.step): \(failure)")
        }
        let category = attested.extensions?.validationCategory, bundleVersion = attested.extensions?.bundleVersion
        if let refusal = AttestBuilds.refusal(builds: app.attestation.builds ?? "any", category: category) {
            throw AttestError.attestationInvalid("builds: \(refusal)")
        }
        let now = services.clock.nowMilliseconds()
        do {
            try await services.store.write { db in
                try AttestQueries.insertKey(db, appId: app.id, keyId: body.keyId, installId: installId, publicKeyHex: ByteEncoding.hex(attested.publicKey.spki),
                                            receiptHex: ByteEncoding.hex(attested.receipt), environment: attested.environment.rawValue,
                                            validationCategory: category, bundleVersion: bundleVersion, now: now)
            }
        } catch StoreError.conflict {
            throw AttestError.keyRegistered
        }
        return try .json(grant(app: app, keyId: body.keyId, installId: installId, environment: attested.environment.rawValue,
                               category: category, bundleVersion: bundleVersion), status: 201)
    }

    func assert(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let body = try request.decode(AttestAssertRequest.self)
        let app = try await attestingApp(context, requested: body.appId)
        let assertion = try Self.base64(body.assertion, field: "assertion", limit: 8 * 1024)
        let installId = try Validate.installID(body.installId, field: "installId")
        guard let key = try await services.store.read({ db in try AttestQueries.key(db, appId: app.id, keyId: body.keyId) }) else {
            throw AttestError.unknownKey
        }
        try await consume(body.challenge, app: app, lifetime: Self.challengeLifetime)
        guard let spki = ByteEncoding.fromHex(key.publicKey), let publicKey = PublicKey(spki: spki) else {
            throw StoreError.corrupt("a stored App Attest key is unreadable")
        }
        let previous = UInt32(clamping: key.counter)
        let counter: UInt32
        switch AppAttestVerifier.verifyAssertion(assertion, publicKey: publicKey, clientDataHash: Digest.sha256(body.challenge),
                                                 appId: "\(app.teamId).\(app.bundleId)", previousCounter: previous) {
        case .success(let value): counter = value
        case .failure(.counterNotIncreasing(let previous, let received)):
            throw AttestError.counterReplayed(received: received, previous: previous)
        case .failure(let failure):
            throw AttestError.assertionInvalid("\(failure.step): \(failure)")
        }
        let now = services.clock.nowMilliseconds()
        let advanced = try await services.store.write { db in
            try AttestQueries.advanceCounter(db, appId: app.id, keyId: body.keyId, counter: Int64(counter), now: now)
        }
        guard advanced else {
            throw AttestError.counterReplayed(received: counter, previous: nil)
        }
        return try .json(grant(app: app, keyId: body.keyId, installId: installId, environment: key.environment,
                               category: key.validationCategory.flatMap { UInt32(exactly: $0) }, bundleVersion: key.bundleVersion))
    }

    /// The key's app, when attestation is on for it.
    func attestingApp(_ context: RequestContext, requested: String?) async throws -> App {
        let principal = try context.principal()
        guard let appId = principal.appId, let app = try await services.apps.app(id: appId) else {
            throw AccessError.keyKindForbidden("needs an app's publishable key")
        }
        if let requested, requested != app.id { throw AccessError.otherApp }
        guard app.attestation.policy != "off" else { throw AttestError.off }
        return app
    }

    /// Uses a challenge up: it must be this app's, unused and at most `lifetime` old.
    func consume(_ challenge: String, app: App, lifetime: Int64) async throws {
        let now = services.clock.nowMilliseconds()
        let createdAt = try await services.store.write { db in try AttestQueries.spendChallenge(db, appId: app.id, challenge: challenge) }
        guard let createdAt else {
            throw AttestError.challengeUnknown
        }
        guard createdAt >= now - lifetime else {
            throw AttestError.challengeExpired
        }
    }

    /// A token for the key, with the build it attested (iOS 27; nil before).
    func grant(app: App, keyId: String, installId: String?, environment: String, category: UInt32?, bundleVersion: String?) -> AttestationGrant {
        let expiry = Int64(services.clock.now().timeIntervalSince1970) + AttestationToken.lifetimeSeconds
        let token = AttestationToken(appId: app.id, installId: installId, keyId: keyId, environment: environment, expiresAt: expiry)
        return AttestationGrant(token: token.signed(services.secrets), expiresAt: Timestamp.iso(expiry * 1000), environment: environment,
                                build: category.map(AttestBuilds.name), bundleVersion: bundleVersion)
    }

    static func base64(_ text: String, field: String, limit: Int) throws -> [UInt8] {
        guard text.utf8.count <= limit * 4 / 3 + 4, let bytes = Data(base64Encoded: text).map(Array.init) ?? ByteEncoding.fromBase64url(text) else {
            throw RequestError.invalidField(field, "must be base64")
        }
        return bytes
    }
}
