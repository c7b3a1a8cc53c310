import Foundation

extension LinkRunway {
    // MARK: Apple Ads

    /// Posts the AdServices token once per installation (registering a returning install id first, when no match has).
    /// A 202 (Apple has no answer yet) is retried at most three times, five seconds apart unless the server names
    /// another wait (at most thirty); the server keeps asking Apple after that. Nil without consent, where AdServices
    /// does not exist (the simulator included), and when Apple gives no token within `appleCallTimeout` (a later
    /// call asks again). The token is fetched off the SDK's actor, so a hung call stalls nothing else.
    @discardableResult
    public func submitAdServicesToken() async throws -> AppleAdsClaim? {
        guard let installId = try gate(), let provider = environment.adServices, !storage.bool(.adServicesReported) else { return nil }
        let started = epoch
        guard let fetched = await AppleCall.blocking(within: environment.appleCallTimeout, { try provider.attributionToken() }) else { return nil }
        let token = try fetched.get()
        guard started == epoch else { return nil }
        try await registerReturningInstall()
        guard started == epoch else { return nil }
        // Like the match, a claim counts as made once it may have reached the server.
        let claimedBefore = storage.bool(.adServicesClaimed)
        storage.set(true, .adServicesClaimed)
        var claim: AppleAdsClaim?
        for attempt in 0...3 {
            let answer: Transport.Answer
            do {
                answer = try await transport.send("POST", "/v1/claims/apple-ads", body: try Transport.json(["installId": installId, "token": token]))
            } catch {
                if started == epoch, !claimedBefore, attempt == 0, Transport.changedNothing(error) { storage.set(false, .adServicesClaimed) }
                throw error
            }
            guard started == epoch else { return nil }
            let json = try Transport.object(answer)
            let attribution = json["attribution"] as? [String: Any]
            claim = AppleAdsClaim(status: json["status"] as? String ?? "pending", campaignId: attribution?["campaignId"] as? String,
                                  adGroupId: attribution?["adGroupId"] as? String, keywordId: attribution?["keywordId"] as? String)
            guard answer.status == 202, attempt < 3 else { break }
            await environment.sleep(min(Double(json["retryAfter"] as? Int ?? 5), 30))
            guard started == epoch else { return nil }
        }
        if let claim, claim.status != "pending" { storage.set(true, .adServicesReported) }
        return claim
    }

    // MARK: Affiliates

    /// Binds this installation to the affiliate whose link the user came from (the signed click id the link page put
    /// on the clipboard): set the returned token on the StoreKit 2 purchase. Nil without consent.
    public func bindAffiliate(signedClickId: String) async throws -> AffiliateBinding? {
        try await bind("/v1/app-store/bind", ["signedClickId": signedClickId])
    }

    /// Binds this installation to the affiliate whose code the user typed. Nil without consent.
    public func bindAffiliate(refCode: String) async throws -> AffiliateBinding? {
        try await bind("/v1/app-store/bind", ["refCode": refCode])
    }

    /// Binds this installation to the newest affiliate click from the same network, if recent enough (404 otherwise).
    public func bindAffiliateDeferred(surfaceId: String) async throws -> AffiliateBinding? {
        try await bind("/v1/app-store/bind/deferred", ["surfaceId": surfaceId])
    }

    func bind(_ path: String, _ fields: [String: Any]) async throws -> AffiliateBinding? {
        guard let installId = try gate() else { return nil }
        let started = epoch
        try await registerReturningInstall()
        var body = fields
        body["installId"] = installId
        if let attestation = await currentAttestation() { body["attestation"] = attestation }
        guard started == epoch else { return nil }
        let json = try Transport.object(try await transport.send("POST", path, body: try Transport.json(body)))
        guard started == epoch else { return nil }
        guard let text = json["appAccountToken"] as? String, let token = UUID(uuidString: text) else { throw LinkRunwayError.unreadableResponse }
        return AffiliateBinding(appAccountToken: token, offerCode: json["offerCode"] as? String)
    }
}
