import LinkRunwayAPI
import RunwayKit

/// What forgetting and exporting an install refuses beyond attribution's own refusals.
enum PrivacyError: Refusal, Equatable {
    /// The install's app is gone (deleted between the lookup and the deletion).
    case noApp(String)

    var detail: ErrorBody.Detail {
        switch self {
        case .noApp(let appId): ErrorBody.Detail(code: ErrorCode.unknownInstall, message: "no app \(appId)")
        }
    }
}
