import LinkRunwayAPI
import RunwayKit

/// What webhooks refuse besides a bad request: redelivering a delivery that is still being tried.
enum WebhooksError: Refusal, Equatable {
    /// The delivery is pending: the dispatcher still sends it (at `nextAttemptAt`), so a copy would arrive twice.
    case stillPending(deliveryId: String, nextAttemptAt: String?)

    var detail: ErrorBody.Detail {
        switch self {
        case .stillPending(let id, let next):
            ErrorBody.Detail(code: ErrorCode.conflict, message: "delivery \(id) is still pending (next attempt \(next ?? "soon")); "
                             + "redeliver it once it is delivered or failed")
        }
    }
}
