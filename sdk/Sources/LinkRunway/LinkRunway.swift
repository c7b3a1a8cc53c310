import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// LinkRunway in an app: consent-gated deep links, install matching, events, conversion values, Apple Ads claims,
/// App Attest and affiliate binds. Nothing is stored or sent until `setConsent(true)`.
public actor LinkRunway {
    /// This SDK's version, sent in the user agent.
    public static let version = "0.3.0"

    let transport: Transport
    let storage: SDKStorage
    let environment: LinkRunwayDependencies
    let configurationError: LinkRunwayError?
    /// Counts consent withdrawals in this process; an answer that arrives after one is discarded.
    var epoch = 0
    var pendingConversionsAppId: String?
    var attestAppId: String?
    var matchTask: Task<InstallMatch?, any Error>?
    var attestTask: Task<Void, Never>?
    var conversionQueue: Task<Void, Never>?

    /// - Parameters:
    ///   - endpoint: your LinkRunway server (`https://…`, or `http://localhost…` while developing).
    ///   - publishableKey: the app's publishable key (`lr_pk_…`); other keys are refused.
    ///   - suiteName: the UserDefaults suite to keep state in (the standard one by default).
    ///   - session: the URLSession to send with (pass one with a URLProtocol stub to test without a network).
    public init(endpoint: URL, publishableKey: String, suiteName: String? = nil, session: URLSession = .shared) {
        self.init(endpoint: endpoint, publishableKey: publishableKey, suiteName: suiteName, session: session, dependencies: .system)
    }

    /// With your own dependencies: fakes of Apple's frameworks, a clock and a way to wait, for tests.
    public init(endpoint: URL, publishableKey: String, suiteName: String?, session: URLSession, dependencies environment: LinkRunwayDependencies) {
        let local = ["localhost", "127.0.0.1", "::1"].contains(endpoint.host ?? "")
        if !publishableKey.hasPrefix("lr_pk_") {
            configurationError = .invalidConfiguration("only a publishable key (lr_pk_…) belongs in an app")
        } else if endpoint.scheme != "https" && !(endpoint.scheme == "http" && local) {
            configurationError = .invalidConfiguration("the endpoint must be https (or http on localhost)")
        } else {
            configurationError = nil
        }
        #if os(tvOS)
        let system = "tvOS"
        #else
        let system = "iOS"
        #endif
        transport = Transport(endpoint: endpoint, publishableKey: publishableKey, session: session,
                              userAgent: "LinkRunwaySDK/\(Self.version) \(system)", sleep: environment.sleep)
        storage = SDKStorage(suiteName: suiteName, endpoint: endpoint, publishableKey: publishableKey)
        self.environment = environment
    }

    // MARK: Consent and identity

    /// Records the user's decision. Granting creates the install id the first time; withdrawing deletes everything the
    /// SDK stored (but three flags that keep a later consent from reporting the same installation twice), drops
    /// queued conversion updates, and discards answers still in flight.
    public func setConsent(_ granted: Bool) async {
        if granted {
            storage.set(true, .consent)
            if storage.string(.installId) == nil {
                storage.set(UUID().uuidString.lowercased(), .installId)
                storage.set(environment.now().timeIntervalSince1970, .firstLaunchAt)
            }
            if let appId = pendingConversionsAppId { _ = try? await configureConversions(appId: appId) }
            if let appId = attestAppId { await attest(appId: appId) }
        } else {
            epoch += 1
            storage.forgetAll()
            matchTask = nil
            conversionQueue?.cancel()
            conversionQueue = nil
        }
    }

    /// Deletes what the server holds about this installation (its install, events, clicks, codes) and then withdraws
    /// consent here, which deletes what the SDK stored. Throws, and keeps everything, when the server cannot be reached.
    public func forgetInstallation() async throws {
        guard let installId = try gate() else { return }
        // The secret sent with the first match proves to the server that this installation is this device's.
        _ = try await transport.send("POST", "/v1/installs/\(installId)/forget", headers: ["LinkRunway-Install-Secret": installSecret()])
        await setConsent(false)
    }

    /// A random secret of this installation, made with its id and deleted with it: the server keeps the first one it is
    /// sent and asks for it before it forgets the installation, so no one else holding the app's publishable key can.
    func installSecret() -> String {
        if let secret = storage.string(.installSecret) { return secret }
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        let secret = String((0..<32).map { _ in alphabet[Int(generator.next(upperBound: UInt32(alphabet.count)))] })
        storage.set(secret, .installSecret)
        return secret
    }

    /// The random id of this installation (not the IDFA or IDFV), for your backend's server-key events; nil without
    /// consent.
    public func installId() -> String? { consented ? storage.string(.installId) : nil }

    var consented: Bool { configurationError == nil && storage.bool(.consent) && storage.string(.installId) != nil }

    /// Throws the configuration error, if any; returns the install id when there is consent.
    func gate() throws -> String? {
        if let configurationError { throw configurationError }
        return consented ? storage.string(.installId) : nil
    }

    // MARK: Matching and links

    /// Asks the server, once per installation, which link brought this install. The answer is stored; later and
    /// concurrent calls get it without a request. Nil without consent.
    public func matchInstall() async throws -> InstallMatch? {
        guard let installId = try gate() else { return nil }
        if let stored = storage.string(.match).flatMap(Self.decodeMatch) { return stored }
        // Asked before consent was withdrawn: this installation was reported once already.
        if storage.bool(.matchRequested) { return nil }
        if let running = matchTask { return try await running.value }
        let started = epoch
        let attestation = await currentAttestation()
        let task = Task { () async throws -> InstallMatch? in
            var body: [String: Any] = ["installId": installId, "platform": environment.device.platform, "osVersion": environment.device.osVersion,
                                       "consent": true, "installSecret": self.installSecret()]
            if let language = environment.device.language { body["language"] = language }
            if let attestation { body["attestation"] = attestation }
            let answer = try await transport.send("POST", "/v1/installs/match", body: try Transport.json(body))
            return try self.storeMatch(answer, epoch: started)
        }
        matchTask = task
        defer { if epoch == started { matchTask = nil } }
        return try await task.value
    }

    func storeMatch(_ answer: Transport.Answer, epoch started: Int) throws -> InstallMatch? {
        guard started == epoch else { return nil }
        let text = String(decoding: answer.body, as: UTF8.self)
        guard let match = Self.decodeMatch(text) else { throw LinkRunwayError.unreadableResponse }
        storage.set(text, .match)
        storage.set(true, .matchRequested)
        if match.matched, let click = match.clickId { storage.set(click, .clickToken) }
        return match
    }

    static func decodeMatch(_ text: String) -> InstallMatch? {
        guard let json = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
              let matched = json["matched"] as? Bool, let method = json["method"] as? String else { return nil }
        return InstallMatch(matched: matched, method: MatchMethod(method), clickId: json["clickId"] as? String, path: json["path"] as? String,
                            url: json["url"] as? String, metadata: metadataText(json["metadata"]))
    }

    static func metadataText(_ value: Any?) -> String? {
        guard let value, JSONSerialization.isValidJSONObject(value),
              let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Resolves a universal link the app was opened with and keeps its click token for later events. A
    /// re-engagement URL's AdAttributionKit conversion tag is kept for conversion updates. Nil without consent.
    public func open(_ url: URL) async throws -> ResolvedLink? {
        if let tag = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "AdAttributionKitReengagementOpen" })?.value {
            if consented {
                storage.set(tag, .conversionTag)
                storage.set(environment.now().timeIntervalSince1970, .conversionTagAt)
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

    // MARK: Events

    static let revenueTypes: Set<String> = ["PURCHASE", "SUBSCRIPTION", "REFUND"]

    /// Records an event (SIGNUP, LOGIN, OPEN, CUSTOM with a name, …) and then updates Apple's conversion value by the
    /// app's rules, without waiting for that. Revenue events are refused: send them from your backend. Nil without
    /// consent.
    @discardableResult
    public func track(type: String, name: String? = nil, userId: String? = nil) async throws -> EventReceipt? {
        guard !Self.revenueTypes.contains(type) else {
            throw LinkRunwayError.revenueNeedsServerKey("\(type) events carry money: send them from your backend with a server key")
        }
        return try await send(type: type, name: name, userId: userId)
    }

    /// The INSTALL event, once per installation (also after consent is given again).
    public func install() async throws {
        guard try gate() != nil, !storage.bool(.installReported) else { return }
        if try await send(type: "INSTALL", name: nil, userId: nil) != nil { storage.set(true, .installReported) }
    }

    func send(type: String, name: String?, userId: String?) async throws -> EventReceipt? {
        guard let installId = try gate() else { return nil }
        let started = epoch
        var body: [String: Any] = ["eventId": UUID().uuidString.lowercased(), "type": type, "installId": installId,
                                   "timestamp": Self.iso(environment.now())]
        if let name { body["name"] = name }
        if let userId { body["userId"] = userId }
        if let click = storage.string(.clickToken) { body["clickToken"] = click }
        if let attestation = await currentAttestation() { body["attestation"] = attestation }
        let answer = try await transport.send("POST", "/v1/events", body: try Transport.json(body))
        guard started == epoch else { return nil }
        let json = try Transport.object(answer)
        let receipt = EventReceipt(eventId: body["eventId"] as! String, status: json["status"] as? String ?? "stored")
        _ = enqueueConversion(type: type, name: name, amount: nil)
        return receipt
    }

    static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    // MARK: Apple Ads

    /// Posts the AdServices token once per installation. A 202 (Apple has no answer yet) is retried at most three
    /// times, five seconds apart unless the server names another wait (at most thirty). Nil without consent or
    /// where AdServices does not exist.
    @discardableResult
    public func submitAdServicesToken() async throws -> AppleAdsClaim? {
        guard let installId = try gate(), let provider = environment.adServices, !storage.bool(.adServicesReported) else { return nil }
        let token = try provider.attributionToken()
        let started = epoch
        var claim: AppleAdsClaim?
        for attempt in 0...3 {
            let answer = try await transport.send("POST", "/v1/claims/apple-ads", body: try Transport.json(["installId": installId, "token": token]))
            guard started == epoch else { return nil }
            let json = try Transport.object(answer)
            let attribution = json["attribution"] as? [String: Any]
            claim = AppleAdsClaim(status: json["status"] as? String ?? "pending", campaignId: attribution?["campaignId"] as? String,
                                  adGroupId: attribution?["adGroupId"] as? String, keywordId: attribution?["keywordId"] as? String)
            guard answer.status == 202, attempt < 3 else { break }
            await environment.sleep(min(Double(json["retryAfter"] as? Int ?? 5), 30))
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
        var body = fields
        body["installId"] = installId
        if let attestation = await currentAttestation() { body["attestation"] = attestation }
        let started = epoch
        let json = try Transport.object(try await transport.send("POST", path, body: try Transport.json(body)))
        guard started == epoch else { return nil }
        guard let text = json["appAccountToken"] as? String, let token = UUID(uuidString: text) else { throw LinkRunwayError.unreadableResponse }
        return AffiliateBinding(appAccountToken: token, offerCode: json["offerCode"] as? String)
    }
}
