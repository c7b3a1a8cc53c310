import Foundation

/// A framework that takes conversion-value updates (SKAdNetwork, AdAttributionKit).
public protocol ConversionFramework: Sendable {
    /// `skadnetwork` or `adattributionkit`.
    var name: String { get }
    /// Whether it updates re-engagement postbacks (AdAttributionKit on iOS 18 and later); false by default.
    var takesReengagementUpdates: Bool { get }
    /// Hands one update to the framework; throws when it refuses. Without a `conversionTag` the update is for the
    /// install's postbacks; with one, only for the re-engagement that tag names. `coarse` is nil when the rule sets
    /// no coarse value: the framework's fine-only call is made then, so no coarse value already sent is lowered.
    func update(fine: Int, coarse: CoarseValue?, lockWindow: Bool, conversionTag: String?) async throws
}

extension ConversionFramework {
    public var takesReengagementUpdates: Bool { false }
}

/// StoreKit 2's app transaction: Apple's signed copy goes with the first match, so the server can join purchases made
/// without the bind's appAccountToken to the install without user accounts.
public protocol AppTransactionProvider: Sendable {
    /// `AppTransaction.appTransactionID` when StoreKit can verify the app transaction (iOS and tvOS 16 and later).
    func appTransactionID() async -> String?
    /// `AppTransaction.shared`'s `jwsRepresentation` when StoreKit can verify it: the server checks Apple's signature
    /// and credits purchases through the id only to the first install that sent it this way.
    func signedAppTransaction() async -> String?
    /// iOS 27's `AppTransaction.all`: the `jwsRepresentation` of each verified app transaction of this app version
    /// (each names its store: consumer, education, enterprise), at most eight. The server keeps the stores they name.
    func signedAppTransactions() async -> [String]
}

extension AppTransactionProvider {
    /// A provider made before 1.1.1 sends the id alone, which the server keeps but never credits a purchase by.
    public func signedAppTransaction() async -> String? { nil }
    /// A provider made before 1.2 sends none.
    public func signedAppTransactions() async -> [String] { [] }
}

/// AdServices: the token Apple Ads attribution is claimed with.
public protocol AdServicesTokenProvider: Sendable {
    func attributionToken() throws -> String
}

/// What App Attest's failures mean to the key lifecycle.
public enum AppAttestFailure: Sendable {
    /// The device says the key is gone or unusable: discard it.
    case invalidKey
    /// The device refused the request's input (`DCError.invalidInput`); after a restore or a migration, a key id whose
    /// key did not come along.
    case invalidInput
    /// The device's service failed unexpectedly (`DCError.unknownSystemFailure`), also a key lost to a restore.
    case unknownSystemFailure
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
    /// Whether this device should support App Attest (not a simulator, not an app extension; a Mac from macOS 27): when
    /// it should and `isSupported` is false, the first match says so, as a fraud signal. True by default.
    var isExpected: Bool { get }
}

extension AppAttestProvider {
    public var isExpected: Bool { true }
}

/// Values kept on this device alone, out of its backups and of a move to a new device (the Keychain's
/// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`). App Attest's key id is kept here: Apple's key never leaves the
/// device, so an id restored without it would only fail.
public protocol DeviceOnlyStore: Sendable {
    func string(_ name: String) -> String?
    func set(_ value: String?, _ name: String)
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
    public var appTransaction: (any AppTransactionProvider)?
    /// Where App Attest's key id is kept: the Keychain in `.system`; in UserDefaults with the rest when nil.
    public var deviceOnly: (any DeviceOnlyStore)?
    public var now: @Sendable () -> Date
    /// How the SDK waits between retries (seconds).
    public var sleep: @Sendable (Double) async -> Void
    /// How long one call to Apple (the Apple Ads token, a conversion-value update) may take before the SDK goes on
    /// without it, in seconds of real time (not `sleep`'s): five by default.
    public var appleCallTimeout: Double

    public init(device: DeviceInfo = .current, conversionFrameworks: [any ConversionFramework] = [], adServices: (any AdServicesTokenProvider)? = nil,
                appAttest: (any AppAttestProvider)? = nil, appTransaction: (any AppTransactionProvider)? = nil, now: @escaping @Sendable () -> Date = { Date() },
                sleep: @escaping @Sendable (Double) async -> Void = { seconds in try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000)) },
                appleCallTimeout: Double = 5, deviceOnly: (any DeviceOnlyStore)? = nil) {
        self.device = device
        self.conversionFrameworks = conversionFrameworks
        self.adServices = adServices
        self.appAttest = appAttest
        self.appTransaction = appTransaction
        self.now = now
        self.sleep = sleep
        self.appleCallTimeout = appleCallTimeout
        self.deviceOnly = deviceOnly
    }

    /// The real frameworks where they exist: SKAdNetwork, AdAttributionKit (iOS 17.4 and later) and AdServices on
    /// iOS (not on the simulator, where Apple's token call always fails); App Attest (and on macOS, where it exists from
    /// macOS 27: `isSupported` decides) and StoreKit 2's app transaction on iOS and tvOS. (`LINKRUNWAY_APPLE_STANDINS` is defined only by
    /// the build that type-checks these adapters on Linux against stand-ins of Apple's modules.)
    public static var system: LinkRunwayDependencies {
        var frameworks: [any ConversionFramework] = []
        var adServices: (any AdServicesTokenProvider)?
        var appAttest: (any AppAttestProvider)?
        var appTransaction: (any AppTransactionProvider)?
        #if os(iOS) || LINKRUNWAY_APPLE_STANDINS
        frameworks.append(SKAdNetworkFramework())
        #if canImport(AdAttributionKit)
        if #available(iOS 17.4, *) { frameworks.append(AdAttributionKitFramework()) }
        #endif
        #if canImport(AdServices) && !targetEnvironment(simulator)
        adServices = SystemAdServices()
        #endif
        #endif
        #if (os(iOS) || os(tvOS) || os(macOS) || LINKRUNWAY_APPLE_STANDINS) && canImport(DeviceCheck)
        appAttest = SystemAppAttest()
        #endif
        #if (os(iOS) || os(tvOS) || LINKRUNWAY_APPLE_STANDINS) && canImport(StoreKit)
        appTransaction = SystemAppTransaction()
        #endif
        var deviceOnly: (any DeviceOnlyStore)?
        #if (os(iOS) || os(tvOS) || os(macOS) || LINKRUNWAY_APPLE_STANDINS) && canImport(Security)
        deviceOnly = SystemKeychain()
        #endif
        return LinkRunwayDependencies(device: .current, conversionFrameworks: frameworks, adServices: adServices, appAttest: appAttest,
                                      appTransaction: appTransaction, deviceOnly: deviceOnly)
    }
}
