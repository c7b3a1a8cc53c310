// DeviceCheck's App Attest: iOS 14 and tvOS 15 and later; supported on macOS from macOS 27.
#if (os(iOS) || os(tvOS) || os(macOS) || LINKRUNWAY_APPLE_STANDINS) && canImport(DeviceCheck)
import DeviceCheck
import Foundation

/// App Attest through `DCAppAttestService.shared`.
struct SystemAppAttest: AppAttestProvider {
    var isSupported: Bool { DCAppAttestService.shared.isSupported }

    /// Apple's simulators and app extensions have no App Attest, nor a Mac before macOS 27: there `isSupported == false`
    /// says nothing about the device.
    var isExpected: Bool {
        #if targetEnvironment(simulator)
        return false
        #else
        guard Bundle.main.bundleURL.pathExtension != "appex" else { return false }
        #if os(macOS)
        if #available(macOS 27.0, *) { return true }
        return false
        #else
        return true
        #endif
        #endif
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
