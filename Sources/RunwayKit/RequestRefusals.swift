import LinkRunwayAPI

/// What any capability refuses about a request itself: a body or query it cannot use, or a name of nothing there.
public enum RequestError: Refusal, Equatable {
    /// The body is not the JSON the route takes.
    case invalidJSON(String)
    /// A field has a value the route cannot take; the message reads `field: reason`.
    case invalidField(_ field: String, _ reason: String)
    /// A field the request needs is absent.
    case missingField(_ message: String, field: String)
    /// A query parameter is absent or has a value the route cannot take.
    case invalidQuery(_ message: String, field: String)
    /// A free-form JSON field is over its size.
    case tooLarge(_ message: String, field: String)
    /// The request names something that is not there (or that the caller may not know is there).
    case notFound(String)

    public var detail: ErrorBody.Detail {
        switch self {
        case .invalidJSON(let message): ErrorBody.Detail(code: ErrorCode.invalidJSON, message: message)
        case .invalidField(let field, let reason): .field(ErrorCode.invalidField, field, reason)
        case .missingField(let message, let field): ErrorBody.Detail(code: ErrorCode.missingField, message: message, field: field)
        case .invalidQuery(let message, let field): ErrorBody.Detail(code: ErrorCode.invalidQuery, message: message, field: field)
        case .tooLarge(let message, let field): ErrorBody.Detail(code: ErrorCode.metadataTooLarge, message: message, field: field)
        case .notFound(let message): ErrorBody.Detail(code: ErrorCode.notFound, message: message)
        }
    }
}

/// Who may call: a key that is missing, not valid or revoked, or one that may not reach what the request names.
public enum AccessError: Refusal, Equatable {
    case missingKey
    case invalidKey(String)
    case revokedKey
    /// This kind of key may not do this.
    case keyKindForbidden(String, field: String? = nil)
    case workspaceForbidden(String)
    case appForbidden(String)

    /// A publishable key naming an app other than its own.
    public static let otherApp = AccessError.appForbidden("this publishable key belongs to another app")

    public var detail: ErrorBody.Detail {
        switch self {
        case .missingKey: ErrorBody.Detail(code: ErrorCode.missingKey, message: "send an API key as Authorization: Bearer <key>")
        case .invalidKey(let message): ErrorBody.Detail(code: ErrorCode.invalidKey, message: message)
        case .revokedKey: ErrorBody.Detail(code: ErrorCode.revokedKey, message: "the API key was revoked")
        case .keyKindForbidden(let message, let field): ErrorBody.Detail(code: ErrorCode.keyKindForbidden, message: message, field: field)
        case .workspaceForbidden(let message): ErrorBody.Detail(code: ErrorCode.workspaceForbidden, message: message)
        case .appForbidden(let message): ErrorBody.Detail(code: ErrorCode.appForbidden, message: message)
        }
    }
}

/// Too many requests of one kind from one client; `what` names them (`challenges`, `requests from this key`).
public struct RateLimited: Refusal, Equatable {
    public let seconds: Int
    public let what: String

    package init(seconds: Int, what: String) {
        self.seconds = seconds
        self.what = what
    }

    public var detail: ErrorBody.Detail {
        ErrorBody.Detail(code: ErrorCode.rateLimited, message: "too many \(what); retry in \(seconds) s")
    }
    public var retryAfter: Int? { seconds }
}

/// What `IdempotencyMiddleware` refuses about an `Idempotency-Key`.
public enum IdempotencyError: Refusal, Equatable {
    case invalidKey
    /// The first request with this key still runs.
    case inUse
    /// The key was used with a different request.
    case reused

    public var detail: ErrorBody.Detail {
        switch self {
        case .invalidKey:
            ErrorBody.Detail(code: ErrorCode.invalidIdempotencyKey, message: "Idempotency-Key must be 1 to 255 visible ASCII characters")
        case .inUse:
            ErrorBody.Detail(code: ErrorCode.idempotencyKeyInUse, message: "a request with this Idempotency-Key is in progress; retry shortly")
        case .reused:
            ErrorBody.Detail(code: ErrorCode.idempotencyKeyReused, message: "this Idempotency-Key was used with a different request")
        }
    }
    public var retryAfter: Int? { self == .inUse ? 1 : nil }
}
