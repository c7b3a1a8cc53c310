// DeviceCheck's App Attest: iOS 14 and tvOS 15 and later.
#if (os(iOS) || os(tvOS) || LINKRUNWAY_APPLE_STANDINS) && canImport(DeviceCheck)
import DeviceCheck
import Foundation

/// App Attest through `DCAppAttestService.shared`.
struct SystemAppAttest: AppAttestProvider {
    var isSupported: Bool { DCAppAttestService.shared.isSupported }
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
