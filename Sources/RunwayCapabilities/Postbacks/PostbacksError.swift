import LinkRunwayAPI
import RunwayKit

/// What postbacks refuse beyond request validation.
enum PostbacksError: Refusal, Equatable {
    /// The workspace already has an ad network with this id.
    case adNetworkTaken(String)

    var detail: ErrorBody.Detail {
        switch self {
        case .adNetworkTaken(let id): ErrorBody.Detail(code: ErrorCode.conflict, message: "this workspace already has ad network \(id)")
        }
    }
}
