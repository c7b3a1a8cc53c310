import LinkRunwayAPI
import RunwayKit

/// What tenancy refuses: an app the workspace has, an identity another app holds, an email taken, the last admin key,
/// and a console user while password hashing is busy.
enum TenancyError: Refusal, Equatable {
    case appExists(teamId: String, bundleId: String)
    /// `what` names the identity (`App Store id 123`, `team … with bundle …`).
    case appIdentityTaken(String)
    case emailTaken(String)
    case lastAdminKey
    case passwordHashingBusy

    var detail: ErrorBody.Detail {
        switch self {
        case .appExists(let teamId, let bundleId):
            ErrorBody.Detail(code: ErrorCode.appExists, message: "the workspace already has an app with team \(teamId) and bundle \(bundleId)")
        case .appIdentityTaken(let what):
            ErrorBody.Detail(code: ErrorCode.appIdentityTaken, message: "the \(what) is registered by another app; an app's identity belongs to one workspace")
        case .emailTaken(let email):
            ErrorBody.Detail(code: ErrorCode.emailTaken, message: "\(email) already has a console user")
        case .lastAdminKey:
            ErrorBody.Detail(code: ErrorCode.lastAdminKey, message: "no admin key would be left (the keys a key made are revoked with it); create another admin key before revoking it")
        case .passwordHashingBusy:
            ErrorBody.Detail(code: ErrorCode.storeUnavailable, message: "password hashing is busy; retry in a second")
        }
    }

    var retryAfter: Int? { self == .passwordHashingBusy ? 1 : nil }
}
