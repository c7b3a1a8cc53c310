// DeviceCheck's App Attest: iOS 14 and tvOS 15 and later; supported on macOS from macOS 27.
#if (os(iOS) || os(tvOS) || os(macOS) || LINKRUNWAY_APPLE_STANDINS) && canImport(DeviceCheck)
import DeviceCheck
import Foundation

/// App Attest through `DCAppAttestService.shared`.
struct SystemAppAttest: AppAttestProvider {
    var isSupported: Bool { DCAppAttestService.shared.isSupported }

    /// Whether App Attest should exist here (`AppAttestExpectation`), from what this process runs as.
    var isExpected: Bool {
        #if targetEnvironment(simulator)
        let host = AppAttestExpectation.Host.simulator
        #else
        let host: AppAttestExpectation.Host = Bundle.main.bundleURL.pathExtension == "appex" ? .appExtension : .device
        #endif
        #if os(macOS)
        let system: AppAttestExpectation.System = .macOS
        let from27: Bool
        if #available(macOS 27.0, *) { from27 = true } else { from27 = false }
        #elseif targetEnvironment(macCatalyst)
        let system: AppAttestExpectation.System = .macCatalyst
        let from27: Bool
        if #available(macCatalyst 27.0, *) { from27 = true } else { from27 = false }
        #elseif os(iOS)
        // An iPhone or iPad app on a Mac with Apple silicon sees the Mac's version as its iOS version (27 on macOS 27).
        let system: AppAttestExpectation.System = ProcessInfo.processInfo.isiOSAppOnMac ? .iOSAppOnMac : .iOS
        let from27: Bool
        if #available(iOS 27.0, *) { from27 = true } else { from27 = false }
        #else
        let system: AppAttestExpectation.System = .tvOS
        let from27 = true
        #endif
        return AppAttestExpectation.expected(host: host, system: system, version27OrLater: from27)
    }
    func generateKey() async throws -> String { try await DCAppAttestService.shared.generateKey() }
    func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data {
        try await DCAppAttestService.shared.attestKey(keyId, clientDataHash: clientDataHash)
    }
    func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data {
        try await DCAppAttestService.shared.generateAssertion(keyId, clientDataHash: clientDataHash)
    }

    /// `invalidKey` discards the key (and, at an assertion, `invalidInput` and `unknownSystemFailure`: a key lost to a
    /// restore); `serverUnavailable` retries with the same key and hash, as Apple directs.
    func classify(_ error: any Error) -> AppAttestFailure {
        guard let error = error as? DCError else { return .other }
        switch error.code {
        case .invalidKey: return .invalidKey
        case .invalidInput: return .invalidInput
        case .unknownSystemFailure: return .unknownSystemFailure
        case .serverUnavailable: return .serviceUnavailable
        default: return .other
        }
    }
}
#endif
