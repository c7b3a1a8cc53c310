import LinkRunwayAPI
import RunwayKit

/// What retention messaging refuses: Apple's Retention Messaging API refusing a request (a text too long, an id that
/// exists, a message not approved…), or not knowing what was asked for, or answering what cannot be read.
enum RetentionMessagingError: Refusal, Equatable {
    /// Apple answered 400, 403 or 409; the message carries Apple's error code and text.
    case appleRefused(status: Int, String)
    /// Apple answered 404: no such message, default, realtime URL or test.
    case appleNotFound(String)
    case appleAnswerUnreadable(String)

    var detail: ErrorBody.Detail {
        switch self {
        case .appleRefused(let status, let why):
            ErrorBody.Detail(code: ErrorCode.appStoreRefused, message: "Apple's Retention Messaging API refused it (HTTP \(status)): \(why)")
        case .appleNotFound(let why):
            ErrorBody.Detail(code: ErrorCode.notFound, message: "Apple's Retention Messaging API has no such thing: \(why)")
        case .appleAnswerUnreadable(let why):
            ErrorBody.Detail(code: ErrorCode.appStoreAPIFailed, message: "Apple's Retention Messaging API: \(why)")
        }
    }
}
