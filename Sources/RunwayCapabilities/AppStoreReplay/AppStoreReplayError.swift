import AppleFormats
import LinkRunwayAPI
import RunwayKit

/// What a replay of App Store notifications refuses: an app without an In-App Purchase key or a surface to replay to,
/// a key Apple does not accept, and Apple's API failing.
enum AppStoreReplayError: Refusal, Equatable {
    case keyMissing
    /// The app has no App Store surface of this environment.
    case noSurface(environment: AppStoreVerifier.Environment)
    /// Apple answered 401: the key, its id, the issuer id or the bundle id is not what App Store Connect has.
    case keyRejected
    /// Apple's API answered another error, an unreadable body, or not at all; the message says which.
    case apiFailed(String)

    var detail: ErrorBody.Detail {
        switch self {
        case .keyMissing:
            ErrorBody.Detail(code: ErrorCode.appStoreKeyMissing,
                             message: "the app has no In-App Purchase key: set one with PUT /v1/apps/{appId}/app-store-key (linkrunway app-store key set)")
        case .noSurface(let environment):
            .field(ErrorCode.invalidField, "environment", "the app has no \(environment.surfaceName) App Store surface to process notifications at")
        case .keyRejected:
            ErrorBody.Detail(code: ErrorCode.appStoreKeyRejected,
                             message: "Apple refused the token (401): check the key, its key id and issuer id in App Store Connect, and the app's bundle id")
        case .apiFailed(let why):
            ErrorBody.Detail(code: ErrorCode.appStoreAPIFailed, message: "App Store Server API: \(why)")
        }
    }
}
