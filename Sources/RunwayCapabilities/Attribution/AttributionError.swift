import LinkRunwayAPI
import RunwayKit

/// What attribution refuses: matching without consent, installs it does not know (or knows in several apps), revenue
/// from an app, a second INSTALL event, and forgetting an install without its secret.
enum AttributionError: Refusal, Equatable {
    case consentRequired
    /// No install with this id (nil: the id is not one an install could have) that the caller may see.
    case unknownInstall(String?)
    /// An event or a claim names an install that was never matched or installed.
    case installNotMatched(String)
    /// The install id is known in several apps of the caller's reach, so `appId` must pick one.
    case ambiguousInstall
    case duplicateInstall
    /// Events of this type come only with a server key.
    case revenueRequiresServerKey(type: String)
    case installSecretMismatch
    /// The body of an event batch is not `{"events": [...]}`.
    case notAnEventBatch

    var detail: ErrorBody.Detail {
        switch self {
        case .consentRequired:
            ErrorBody.Detail(code: ErrorCode.consentRequired, message: "consent must be true; nothing is stored without it", field: "consent")
        case .unknownInstall(let installId):
            ErrorBody.Detail(code: ErrorCode.unknownInstall, message: installId.map { "no install \($0)" } ?? "no install")
        case .installNotMatched(let installId):
            ErrorBody.Detail(code: ErrorCode.unknownInstall, message: "install \(installId) has not been matched or installed")
        case .ambiguousInstall:
            ErrorBody.Detail(code: ErrorCode.invalidQuery, message: "the install id is known in several apps; add ?appId=", field: "appId")
        case .duplicateInstall:
            ErrorBody.Detail(code: ErrorCode.duplicateInstall, message: "this install already has an INSTALL event")
        case .revenueRequiresServerKey(let type):
            ErrorBody.Detail(code: ErrorCode.revenueRequiresServerKey, message: "\(type) events come from your backend with a server key")
        case .installSecretMismatch:
            ErrorBody.Detail(code: ErrorCode.installSecretMismatch,
                             message: "this install's secret is needed: send it in LinkRunway-Install-Secret to forget the install, or as installSecret to match it again")
        case .notAnEventBatch:
            ErrorBody.Detail(code: ErrorCode.invalidField, message: "the body must be {\"events\": [...]}", field: "events")
        }
    }
}
