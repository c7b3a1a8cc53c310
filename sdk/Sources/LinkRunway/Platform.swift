import Foundation
#if canImport(StoreKit)
import StoreKit
#endif
#if canImport(AdAttributionKit)
import AdAttributionKit
#endif
#if canImport(AdServices)
import AdServices
#endif
#if canImport(DeviceCheck)
import DeviceCheck
#endif

/// A framework that takes conversion-value updates (SKAdNetwork, AdAttributionKit).
public protocol ConversionFramework: Sendable {
    /// `skadnetwork` or `adattributionkit`.
    var name: String { get }
    /// Hands one update to the framework; throws when it refuses.
    func update(fine: Int, coarse: CoarseValue?, lockWindow: Bool, conversionTag: String?) async throws
}

/// AdServices: the token Apple Ads attribution is claimed with.
public protocol AdServicesTokenProvider: Sendable {
    func attributionToken() throws -> String
}

/// What App Attest's failures mean to the key lifecycle.
public enum AppAttestFailure: Sendable {
    /// The device says the key is gone or unusable: discard it.
    case invalidKey
    /// Apple's service could not be reached: try again with the same key.
    case serviceUnavailable
    case other
}

/// DeviceCheck's App Attest service.
public protocol AppAttestProvider: Sendable {
    var isSupported: Bool { get }
    func generateKey() async throws -> String
    func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data
    func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data
    func classify(_ error: any Error) -> AppAttestFailure
}

/// The platform as the server sees it.
public struct DeviceInfo: Sendable {
    /// `ios` or `tvos` (a Mac build reports `ios`).
    public var platform: String
    /// major.minor.
    public var osVersion: String
    public var language: String?

    public init(platform: String, osVersion: String, language: String?) {
        self.platform = platform
        self.osVersion = osVersion
        self.language = language
    }

    /// This device.
    public static var current: DeviceInfo {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        #if os(tvOS)
        let platform = "tvos"
        #else
        let platform = "ios"
        #endif
        return DeviceInfo(platform: platform, osVersion: "\(version.majorVersion).\(version.minorVersion)", language: Locale.preferredLanguages.first)
    }
}

/// Everything the SDK reaches outside itself. Apps use `.system`; tests (yours and ours) pass fakes, so the whole SDK
/// runs without Apple's frameworks, on any platform.
public struct LinkRunwayDependencies: Sendable {
    public var device: DeviceInfo
    /// In the order updates go to them when no window is locked.
    public var conversionFrameworks: [any ConversionFramework]
    public var adServices: (any AdServicesTokenProvider)?
    public var appAttest: (any AppAttestProvider)?
    public var now: @Sendable () -> Date
    /// How the SDK waits between retries (seconds).
    public var sleep: @Sendable (Double) async -> Void

    public init(device: DeviceInfo = .current, conversionFrameworks: [any ConversionFramework] = [], adServices: (any AdServicesTokenProvider)? = nil,
                appAttest: (any AppAttestProvider)? = nil, now: @escaping @Sendable () -> Date = { Date() },
                sleep: @escaping @Sendable (Double) async -> Void = { seconds in try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000)) }) {
        self.device = device
        self.conversionFrameworks = conversionFrameworks
        self.adServices = adServices
        self.appAttest = appAttest
        self.now = now
        self.sleep = sleep
    }

    /// The real frameworks where they exist.
    public static var system: LinkRunwayDependencies {
        var frameworks: [any ConversionFramework] = []
        var adServices: (any AdServicesTokenProvider)?
        var appAttest: (any AppAttestProvider)?
        #if os(iOS) && !targetEnvironment(macCatalyst)
        frameworks.append(SKAdNetworkFramework())
        #if canImport(AdAttributionKit)
        if #available(iOS 17.4, *) { frameworks.append(AdAttributionKitFramework()) }
        #endif
        #if canImport(AdServices)
        adServices = SystemAdServices()
        #endif
        #endif
        #if (os(iOS) || os(tvOS)) && canImport(DeviceCheck)
        appAttest = SystemAppAttest()
        #endif
        return LinkRunwayDependencies(device: .current, conversionFrameworks: frameworks, adServices: adServices, appAttest: appAttest)
    }
}

// MARK: Apple's frameworks. These adapters follow Apple's documented signatures and compile only on Apple platforms.

#if os(iOS) && !targetEnvironment(macCatalyst)
struct SKAdNetworkFramework: ConversionFramework {
    var name: String { "skadnetwork" }

    func update(fine: Int, coarse: CoarseValue?, lockWindow: Bool, conversionTag: String?) async throws {
        if #available(iOS 16.1, *) {
            let value: SKAdNetwork.CoarseConversionValue = switch coarse ?? .low { case .low: .low; case .medium: .medium; case .high: .high }
            try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
                SKAdNetwork.updatePostbackConversionValue(fine, coarseValue: value, lockWindow: lockWindow) { error in
                    if let error { done.resume(throwing: error) } else { done.resume() }
                }
            }
        } else if #available(iOS 15.4, *) {
            try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
                SKAdNetwork.updatePostbackConversionValue(fine) { error in
                    if let error { done.resume(throwing: error) } else { done.resume() }
                }
            }
        }
    }
}

#if canImport(AdAttributionKit)
@available(iOS 17.4, *)
struct AdAttributionKitFramework: ConversionFramework {
    var name: String { "adattributionkit" }

    /// After a re-engagement open (a conversion tag is held) the update targets re-engagement postbacks on iOS 18 and
    /// later; otherwise all postbacks. The tag itself is not passed: Apple's tagged update is iOS 18.4 and later and
    /// this adapter has not been compiled against that SDK.
    func update(fine: Int, coarse: CoarseValue?, lockWindow: Bool, conversionTag: String?) async throws {
        let value: CoarseConversionValue? = coarse.map { coarse in switch coarse { case .low: .low; case .medium: .medium; case .high: .high } }
        if #available(iOS 18.0, *), conversionTag != nil {
            try await Postback.updateConversionValue(PostbackUpdate(fineConversionValue: fine, lockPostback: lockWindow, coarseConversionValue: value,
                                                                    conversionTypes: [.reengagement]))
        } else if let value {
            try await Postback.updateConversionValue(fine, coarseConversionValue: value, lockPostback: lockWindow)
        } else {
            try await Postback.updateConversionValue(fine, lockPostback: lockWindow)
        }
    }
}
#endif

#if canImport(AdServices)
struct SystemAdServices: AdServicesTokenProvider {
    func attributionToken() throws -> String { try AAAttribution.attributionToken() }
}
#endif
#endif

#if (os(iOS) || os(tvOS)) && canImport(DeviceCheck)
struct SystemAppAttest: AppAttestProvider {
    var isSupported: Bool { DCAppAttestService.shared.isSupported }
    func generateKey() async throws -> String { try await DCAppAttestService.shared.generateKey() }
    func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data {
        try await DCAppAttestService.shared.attestKey(keyId, clientDataHash: clientDataHash)
    }
    func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data {
        try await DCAppAttestService.shared.generateAssertion(keyId, clientDataHash: clientDataHash)
    }
    func classify(_ error: any Error) -> AppAttestFailure {
        guard let error = error as? DCError else { return .other }
        switch error.code {
        case .invalidKey: return .invalidKey
        case .serverUnavailable: return .serviceUnavailable
        default: return .other
        }
    }
}
#endif
