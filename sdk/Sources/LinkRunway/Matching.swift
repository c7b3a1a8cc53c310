import Foundation

extension LinkRunway {
    /// Asks the server, once per installation, which link brought this install. The answer is stored; later and
    /// concurrent calls get it without a request. After consent was withdrawn and given again, the new install id is
    /// registered as returning: the server decides no match for it and does not count the installation again, and the
    /// answer is unmatched (the SDK makes this request itself before the first event, claim or bind when the app does
    /// not). The first match of a first installation also carries StoreKit 2's app transaction, signed by Apple. Nil
    /// without consent.
    public func matchInstall() async throws -> InstallMatch? {
        guard let installId = try gate() else { return nil }
        if let stored = storage.string(.match).flatMap(Self.decodeMatch) { return stored }
        if let running = matchTask { return try await running.value }
        let started = epoch
        // The task exists before the first suspension, so a call made while attestation runs joins this one.
        let task = Task { () async throws -> InstallMatch? in
            let attestation = await self.currentAttestation()
            return try await self.requestMatch(installId: installId, attestation: attestation, epoch: started)
        }
        matchTask = task
        defer { if epoch == started { matchTask = nil } }
        return try await task.value
    }

    /// Match fields a server before 2026-12-05 does not know (and refuses as `unknown_field`).
    static let newerFields = ["signedAppTransactions", "appAttestSupported"]

    func requestMatch(installId: String, attestation: String?, epoch started: Int) async throws -> InstallMatch? {
        guard started == epoch else { return nil }
        // Decided once per install id, when it was made: a device that reported an installation under an earlier id is
        // returning. An id made by an older SDK is decided here, by the earlier match alone.
        let returning: Bool
        if let decided = storage.int(.matchReturning) { returning = decided == 1 } else {
            returning = storage.bool(.matchRequested)
            storage.set(returning ? 1 : 0, .matchReturning)
        }
        var body: [String: Any] = ["installId": installId, "platform": environment.device.platform, "osVersion": environment.device.osVersion,
                                   "consent": true, "installSecret": installSecret()]
        if let language = environment.device.language { body["language"] = language }
        if let attestation { body["attestation"] = attestation }
        if returning {
            body["returning"] = true
        } else if let provider = environment.appTransaction {
            // Only with a first report: the same Apple account sends the same id, which would tie a returning id to the old one.
            // StoreKit may ask the App Store for them: each has the deadline of Apple's calls, and the match goes without
            // what did not come in time.
            let deadline = environment.appleCallTimeout
            if case .success(let id?)? = await AppleCall.awaiting(within: deadline, { await provider.appTransactionID() }) { body["appTransactionId"] = id }
            if case .success(let signed?)? = await AppleCall.awaiting(within: deadline, { await provider.signedAppTransaction() }) {
                body["signedAppTransaction"] = signed
            }
            if case .success(let all)? = await AppleCall.awaiting(within: deadline, { await provider.signedAppTransactions() }), !all.isEmpty {
                body["signedAppTransactions"] = Array(all.prefix(8))
            }
        }
        // App Attest missing where it should be there is a fraud signal (Apple's word): the server keeps it.
        if let appAttest = environment.appAttest, appAttest.isExpected { body["appAttestSupported"] = appAttest.isSupported }
        guard started == epoch else { return nil }
        storage.set(true, .matchRequested)
        do {
            let answer: Transport.Answer
            do {
                answer = try await transport.send("POST", "/v1/installs/match", body: try Transport.json(body))
            } catch LinkRunwayError.server(status: 400, let refusal) where Self.newerFields.contains(where: { body[$0] != nil && refusal.contains("\"field\":\"\($0)\"") }) {
                // A server older than these fields refuses them as unknown: the match goes again without them.
                for field in Self.newerFields { body[field] = nil }
                guard started == epoch else { return nil }
                answer = try await transport.send("POST", "/v1/installs/match", body: try Transport.json(body))
            }
            return try storeMatch(answer, epoch: started)
        } catch {
            // Nothing reached the server: this installation is still unreported (unless an earlier id reported it).
            if started == epoch, !returning, Transport.changedNothing(error) { storage.set(false, .matchRequested) }
            throw error
        }
    }

    /// A returning install id is unknown to the server until a match registers it, and the server refuses events,
    /// claims and binds for an unknown id. Before those, this registers it (sharing the request with `matchInstall()`
    /// and every concurrent caller) unless a match already has. A first installation needs nothing here: its INSTALL
    /// event or its match registers it.
    func registerReturningInstall() async throws {
        guard storage.int(.matchReturning) == 1, storage.string(.match) == nil else { return }
        _ = try await matchInstall()
    }

    func storeMatch(_ answer: Transport.Answer, epoch started: Int) throws -> InstallMatch? {
        guard started == epoch else { return nil }
        let text = String(decoding: answer.body, as: UTF8.self)
        guard let match = Self.decodeMatch(text) else { throw LinkRunwayError.unreadableResponse }
        storage.set(text, .match)
        if match.matched, let click = match.clickId { storage.set(click, .clickToken) }
        return match
    }

    static func decodeMatch(_ text: String) -> InstallMatch? {
        guard let json = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
              let matched = json["matched"] as? Bool, let method = json["method"] as? String else { return nil }
        return InstallMatch(matched: matched, method: MatchMethod(method), clickId: json["clickId"] as? String, path: json["path"] as? String,
                            url: json["url"] as? String, metadata: metadataText(json["metadata"]), variant: json["variant"] as? String)
    }

    static func metadataText(_ value: Any?) -> String? {
        guard let value, JSONSerialization.isValidJSONObject(value),
              let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Resolves a universal link the app was opened with and keeps its click token for later events. A
    /// re-engagement URL's AdAttributionKit conversion tag is kept for conversion updates; an open that names the key
    /// with no tag (iOS 18.0–18.3 may) is kept as a re-engagement too, with an empty tag. Nil without consent.
    public func open(_ url: URL) async throws -> ResolvedLink? {
        if let item = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "AdAttributionKitReengagementOpen" }) {
            if consented {
                storage.set(item.value ?? "", .conversionTag)
                storage.set(environment.now().timeIntervalSince1970, .conversionTagAt)
                storage.set(nil as Int?, .reengagementHighestFine)
            }
        }
        guard let installId = try gate() else { return nil }
        let started = epoch
        let answer = try await transport.send("POST", "/v1/resolve", body: try Transport.json(["url": url.absoluteString, "platform": "ios", "installId": installId]))
        guard started == epoch else { return nil }
        let json = try Transport.object(answer)
        guard let linkId = json["linkId"] as? String, let link = json["url"] as? String, let token = json["clickToken"] as? String else {
            throw LinkRunwayError.unreadableResponse
        }
        storage.set(token, .clickToken)
        return ResolvedLink(linkId: linkId, url: link, path: json["appPath"] as? String, metadata: Self.metadataText(json["metadata"]), clickToken: token)
    }

    /// A link to `appPath` for the user to share; throws `consentRequired` without consent.
    public func createShare(appPath: String, metadata: [String: String]? = nil) async throws -> Share {
        guard let installId = try gate() else { throw LinkRunwayError.consentRequired }
        var body: [String: Any] = ["installId": installId, "appPath": appPath]
        if let metadata { body["metadata"] = metadata }
        let json = try Transport.object(try await transport.send("POST", "/v1/shares", body: try Transport.json(body)))
        guard let linkId = json["linkId"] as? String, let url = json["url"] as? String else { throw LinkRunwayError.unreadableResponse }
        return Share(linkId: linkId, url: url)
    }

    /// This installation's referral code; throws `consentRequired` without consent.
    public func createReferralCode(userId: String? = nil) async throws -> ReferralCode {
        guard let installId = try gate() else { throw LinkRunwayError.consentRequired }
        var body: [String: Any] = ["installId": installId]
        if let userId { body["userId"] = userId }
        let json = try Transport.object(try await transport.send("POST", "/v1/referral-codes", body: try Transport.json(body)))
        guard let code = json["code"] as? String else { throw LinkRunwayError.unreadableResponse }
        return ReferralCode(code: code)
    }
}
