import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// LinkRunway in an app: consent-gated deep links, install matching, events, conversion values, Apple Ads claims,
/// App Attest and affiliate binds. Nothing is stored or sent until `setConsent(true)`.
public actor LinkRunway {
    /// This SDK's version, sent in the user agent (the one place it is written; `CHANGELOG.md` names it too).
    public static let version = "1.2.0"

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
    /// The one delivery of queued events running now, and what it decided for the events someone waits for.
    var deliveryTask: Task<Void, Never>?
    var deliveryOutcomes: [String: Result<EventReceipt?, any Error>] = [:]
    var awaitedEvents: Set<String> = []
    /// The event whose request is on its way now (it may reach the server even if consent is withdrawn meanwhile).
    var sending: String?

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
        transport = Transport(endpoint: endpoint, publishableKey: publishableKey, session: session,
                              userAgent: Self.userAgent(platform: environment.device.platform), sleep: environment.sleep)
        storage = SDKStorage(suiteName: suiteName, endpoint: endpoint, publishableKey: publishableKey, deviceOnly: environment.deviceOnly)
        self.environment = environment
        // Apple's conversion windows start at the first launch, not at consent: kept on the device only.
        if configurationError == nil, storage.double(.firstLaunchAt) == nil {
            storage.set(environment.now().timeIntervalSince1970, .firstLaunchAt)
        }
        // A launch with consent given earlier (an installation updated from an SDK before 1.2) registers now.
        if configurationError == nil, storage.bool(.consent) { Task { await self.registerPostback() } }
    }

    /// `LinkRunwaySDK/<version> iOS`, or `tvOS` on Apple TV.
    static func userAgent(platform: String) -> String { "LinkRunwaySDK/\(version) \(platform == "tvos" ? "tvOS" : "iOS")" }

    // MARK: Consent and identity

    /// Records the user's decision. Granting creates the install id the first time; withdrawing deletes everything the
    /// SDK stored (but three flags that keep a later consent from reporting the same installation twice, and the first
    /// launch's local time, where conversion windows start), drops
    /// queued events and conversion updates, and discards answers still in flight. After consent is given again, the
    /// new install id is registered with the server as a returning one (by `matchInstall()`, or by the SDK itself
    /// before the first event, Apple Ads claim or bind): every call works, and the installation is not counted twice.
    /// Nothing links the new id to the old one.
    public func setConsent(_ granted: Bool) async {
        if granted {
            storage.set(true, .consent)
            if storage.string(.installId) == nil {
                // Decided as the id is made: any report that may have reached the server (a match, INSTALL, an Apple
                // Ads claim) was of this device's installation under an earlier id.
                let returning = SDKStorage.Key.survivors.contains { storage.bool($0) }
                storage.set(UUID().uuidString.lowercased(), .installId)
                storage.set(returning ? 1 : 0, .matchReturning)
            }
            registerPostback()
            if let appId = pendingConversionsAppId { _ = try? await configureConversions(appId: appId) }
            if let appId = attestAppId { await attest(appId: appId) }
        } else {
            epoch += 1
            keepReportedFlags()
            storage.forgetAll()
            matchTask = nil
            attestTask = nil
            deliveryTask = nil
            deliveryOutcomes = [:]
            sending = nil
            conversionQueue?.cancel()
            conversionQueue = nil
        }
    }

    /// Before a withdrawal deletes the install id: an Apple Ads claim that may have reached the server counts as
    /// reported, and an INSTALL event still queued that certainly never reached it (not on its way either) does not.
    func keepReportedFlags() {
        if storage.bool(.adServicesClaimed) { storage.set(true, .adServicesReported) }
        if let install = outbox.first(where: { $0.type == "INSTALL" }), !install.mayHaveArrived, install.eventId != sending {
            storage.set(false, .installReported)
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

    static func iso(_ date: Date) -> String { ISO8601DateFormatter.withFractions.string(from: date) }
}

extension ISO8601DateFormatter {
    nonisolated(unsafe) static let withFractions: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
}
