import Foundation

extension LinkRunway {
    /// The key's state between launches.
    enum KeyState: String {
        /// Made, not yet attested by Apple (an Apple outage left it so).
        case generated
        /// Attested by Apple and sent to the server, with no answer yet: assert next time.
        case sent
        /// Registered with the server.
        case registered
    }

    static let firstWait: Double = 300
    static let longestWait: Double = 300 * 64
    /// Each new key raises a counter Apple keeps for the device for good: at most this many a day.
    static let keysPerDay = 3
    /// An assertion failing with these means the key id outlived its key (a restore, a migration to a new device):
    /// the key is replaced at once.
    static let lostKey: [AppAttestFailure] = [.invalidKey, .invalidInput, .unknownSystemFailure]
    /// After Apple's service was unavailable at `attestKey`, the same key and challenge (so the same client data hash,
    /// as Apple asks) are tried again after these waits, in seconds, while the server still takes the challenge; then
    /// the usual wait and a new challenge.
    static let outageWaits: [Double] = [30, 120, 600, 1800]
    /// How long after its fetch a challenge is used for an attestation, when the server says nothing more: it takes
    /// one for five minutes, and a minute is left for the request.
    static let challengeReuse: Double = 240
    /// `attestKey` asks Apple's servers: it has this many times `appleCallTimeout`.
    static let attestKeyDeadlineFactor: Double = 4

    /// A challenge, and until when (this device's time, seconds since 1970) an attestation may still use it.
    struct Challenge {
        var text: String
        var usableUntil: Double
    }

    /// Proves with App Attest that this is the genuine app, and keeps the token the server returns for events. Never
    /// throws: without a token, events go out unattested. Without consent the app id is remembered for later.
    public func attest(appId: String) async {
        attestAppId = appId
        guard (try? gate()) ?? nil != nil else { return }
        if let running = attestTask { return await running.value }
        let task = Task { await self.runAttestation(appId: appId) }
        attestTask = task
        await task.value
        if attestTask == task { attestTask = nil }
    }

    /// The token to send with a request: waits for an attempt in progress, renews an expired token first, or tries an
    /// attestation an Apple outage interrupted again once its wait is over, when `attest(appId:)` was called in this
    /// process.
    func currentAttestation() async -> String? {
        if let running = attestTask { await running.value }
        if let token = usableToken { return token }
        if let appId = attestAppId, storage.string(.attestToken) != nil || outageChallenge != nil {
            await attest(appId: appId)
            return usableToken
        }
        return nil
    }

    /// A token is used until it expires, and for at least five minutes after it arrived whatever the device clock says.
    var usableToken: String? {
        guard let token = storage.string(.attestToken) else { return nil }
        let now = environment.now().timeIntervalSince1970
        let expires = storage.double(.attestTokenExpiresAt) ?? 0, received = storage.double(.attestTokenReceivedAt) ?? 0
        return now < expires || now - received < 300 ? token : nil
    }

    func runAttestation(appId: String) async {
        guard usableToken == nil, let provider = environment.appAttest, provider.isSupported, let installId = storage.string(.installId) else { return }
        if let next = storage.double(.attestNextAttemptAt), environment.now().timeIntervalSince1970 < next { return }
        let started = epoch
        let succeeded = await attempt(appId: appId, installId: installId, provider: provider, epoch: started)
        guard started == epoch else { return }
        if succeeded {
            storage.set(nil as Int?, .attestFailures)
            storage.set(nil as Double?, .attestNextAttemptAt)
        } else if let wait = outageRetryWait() {
            storage.set(environment.now().timeIntervalSince1970 + wait, .attestNextAttemptAt)
        } else {
            forgetOutageChallenge()
            let failures = (storage.int(.attestFailures) ?? 0) + 1
            storage.set(failures, .attestFailures)
            let wait = min(Self.firstWait * pow(2, Double(failures - 1)), Self.longestWait)
            storage.set(environment.now().timeIntervalSince1970 + wait, .attestNextAttemptAt)
        }
    }

    /// One attempt. The challenge comes first, so a refused request creates no key. Whatever arrives after consent
    /// was withdrawn (a key, a token, a refusal) is discarded, like every other late answer.
    func attempt(appId: String, installId: String, provider: any AppAttestProvider, epoch started: Int) async -> Bool {
        if let challenge = outageChallenge, storage.string(.attestKeyId) != nil, storage.string(.attestKeyState) == KeyState.generated.rawValue {
            return await register(appId: appId, installId: installId, challenge: challenge, provider: provider, epoch: started)
        }
        forgetOutageChallenge()
        guard let challenge = try? await fetchChallenge(), started == epoch else { return false }
        let hash = Data(SHA256.hash(Array(challenge.text.utf8)))
        if let keyId = storage.string(.attestKeyId), storage.string(.attestKeyState) != KeyState.generated.rawValue {
            do {
                // A call that never answers leaves the key as it is: the next attempt asserts again.
                guard let made = await AppleCall.awaiting(within: environment.appleCallTimeout, { try await provider.generateAssertion(keyId, clientDataHash: hash) })
                else { return false }
                let assertion = try made.get()
                let answer = try await transport.send("POST", "/v1/attest/apple/assert", body: try Transport.json([
                    "appId": appId, "keyId": keyId, "assertion": assertion.base64EncodedString(), "challenge": challenge.text, "installId": installId,
                ]))
                guard started == epoch else { return false }
                storage.set(KeyState.registered.rawValue, .attestKeyState)
                return keep(answer)
            } catch LinkRunwayError.server(status: 404, _) {
                // The server does not know the key: the only answer of the server that replaces it, in this same call.
                guard started == epoch else { return false }
                return await replaceKey(appId: appId, installId: installId, provider: provider, epoch: started)
            } catch {
                // The device no longer has the key: replaced in this same call, or the device would never attest again.
                guard started == epoch, Self.lostKey.contains(provider.classify(error)) else { return false }
                return await replaceKey(appId: appId, installId: installId, provider: provider, epoch: started)
            }
        }
        return await register(appId: appId, installId: installId, challenge: challenge, provider: provider, epoch: started)
    }

    /// Forgets the key and registers a new one under a fresh challenge.
    func replaceKey(appId: String, installId: String, provider: any AppAttestProvider, epoch started: Int) async -> Bool {
        forgetKey()
        guard let fresh = try? await fetchChallenge(), started == epoch else { return false }
        return await register(appId: appId, installId: installId, challenge: fresh, provider: provider, epoch: started)
    }

    func register(appId: String, installId: String, challenge: Challenge, provider: any AppAttestProvider, epoch started: Int) async -> Bool {
        let hash = Data(SHA256.hash(Array(challenge.text.utf8)))
        let keyId: String
        if let existing = storage.string(.attestKeyId) {
            keyId = existing
        } else {
            guard mayMakeKey() else { return false }
            let generated = await AppleCall.awaiting(within: environment.appleCallTimeout) { try await provider.generateKey() }
            // A key Apple made after the deadline is lost, but it still counts against the day's keys.
            countNewKey()
            guard case .success(let made)? = generated, started == epoch else { return false }
            keyId = made
            storage.set(made, .attestKeyId)
            storage.set(KeyState.generated.rawValue, .attestKeyState)
        }
        let attestation: Data
        do {
            // Past its deadline the call counts as a failure that keeps the key: the next attempt attests it again.
            guard let attested = await AppleCall.awaiting(within: environment.appleCallTimeout * Self.attestKeyDeadlineFactor, {
                try await provider.attestKey(keyId, clientDataHash: hash)
            }) else {
                guard started == epoch else { return false }
                forgetOutageChallenge()
                return false
            }
            attestation = try attested.get()
        } catch {
            // An Apple outage is tried again later with the same key and challenge. Only invalidKey makes the key
            // unusable: a new key costs the device for good, so any other failure keeps it for the next attempt.
            guard started == epoch else { return false }
            switch provider.classify(error) {
            case .serviceUnavailable: countOutage(challenge: challenge)
            case .invalidKey: forgetKey()
            default: forgetOutageChallenge()
            }
            return false
        }
        forgetOutageChallenge()
        guard started == epoch else { return false }
        // Apple attests a key only once: from here on the key is asserted, whatever the server answers.
        storage.set(KeyState.sent.rawValue, .attestKeyState)
        do {
            let answer = try await transport.send("POST", "/v1/attest/apple/register", body: try Transport.json([
                "appId": appId, "keyId": keyId, "attestation": attestation.base64EncodedString(), "challenge": challenge.text, "installId": installId,
            ]))
            guard started == epoch else { return false }
            storage.set(KeyState.registered.rawValue, .attestKeyState)
            return keep(answer)
        } catch {
            return false
        }
    }

    /// A new challenge. How long an attestation may use it comes from the server's two expiry times: the time it adds
    /// for attestations over assertions (an hour in all since 2026-12), on top of `challengeReuse`, so that only the
    /// server's clock is compared with itself and the device's clock is compared with itself.
    func fetchChallenge() async throws -> Challenge {
        let json = try Transport.object(try await transport.send("POST", "/v1/attest/apple/challenge"))
        guard let challenge = json["challenge"] as? String else { throw LinkRunwayError.unreadableResponse }
        func date(_ key: String) -> Date? {
            (json[key] as? String).flatMap { ISO8601DateFormatter.withFractions.date(from: $0) ?? ISO8601DateFormatter().date(from: $0) }
        }
        var extra = 0.0
        if let assertions = date("expiresAt"), let attestations = date("attestationExpiresAt") {
            extra = min(max(attestations.timeIntervalSince(assertions), 0), 86_400)
        }
        return Challenge(text: challenge, usableUntil: environment.now().timeIntervalSince1970 + Self.challengeReuse + extra)
    }

    func keep(_ answer: Transport.Answer) -> Bool {
        guard let json = try? Transport.object(answer), let token = json["token"] as? String else { return false }
        let expires = (json["expiresAt"] as? String).flatMap { ISO8601DateFormatter.withFractions.date(from: $0) ?? ISO8601DateFormatter().date(from: $0) }
        storage.set(token, .attestToken)
        storage.set(expires?.timeIntervalSince1970 ?? 0, .attestTokenExpiresAt)
        storage.set(environment.now().timeIntervalSince1970, .attestTokenReceivedAt)
        return true
    }

    var today: Int { Int(environment.now().timeIntervalSince1970 / 86_400) }

    /// Whether a key may be made today (`keysPerDay`).
    func mayMakeKey() -> Bool {
        storage.int(.attestKeysDay) != today || (storage.int(.attestKeysMade) ?? 0) < Self.keysPerDay
    }

    func countNewKey() {
        let made = storage.int(.attestKeysDay) == today ? storage.int(.attestKeysMade) ?? 0 : 0
        storage.set(today, .attestKeysDay)
        storage.set(made + 1, .attestKeysMade)
    }

    func forgetKey() {
        storage.set(nil as String?, .attestKeyId)
        storage.set(nil as String?, .attestKeyState)
        forgetOutageChallenge()
    }

    /// The challenge an Apple outage left to try again, while the server still takes it for an attestation.
    var outageChallenge: Challenge? {
        guard let text = storage.string(.attestOutageChallenge), let until = storage.double(.attestOutageChallengeUntil),
              environment.now().timeIntervalSince1970 < until else { return nil }
        return Challenge(text: text, usableUntil: until)
    }

    /// The wait before the next try with the outage's challenge, or nil when the retries are used up or the challenge
    /// would be too old by then.
    func outageRetryWait() -> Double? {
        guard let until = storage.double(.attestOutageChallengeUntil), storage.string(.attestOutageChallenge) != nil,
              let outages = storage.int(.attestOutages), outages >= 1, outages <= Self.outageWaits.count else { return nil }
        let wait = Self.outageWaits[outages - 1]
        return environment.now().timeIntervalSince1970 + wait < until ? wait : nil
    }

    /// Keeps the challenge of an outage with the time it stops being usable, counted from its fetch.
    func countOutage(challenge: Challenge) {
        if storage.string(.attestOutageChallenge) == challenge.text {
            storage.set((storage.int(.attestOutages) ?? 0) + 1, .attestOutages)
        } else {
            storage.set(challenge.text, .attestOutageChallenge)
            storage.set(challenge.usableUntil, .attestOutageChallengeUntil)
            storage.set(1, .attestOutages)
        }
    }

    func forgetOutageChallenge() {
        storage.set(nil as String?, .attestOutageChallenge)
        storage.set(nil as Double?, .attestOutageChallengeUntil)
        storage.set(nil as Int?, .attestOutages)
    }
}
