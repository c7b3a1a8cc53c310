import LinkRunwayAPI

/// An expected failure a capability answers with: a stable code (`ErrorCode`), a message for people and, when there is
/// one, the request field at fault. A refusal names no HTTP status; `ErrorMapping` chooses the status and headers from
/// its code, so every capability's refusals answer alike.
public protocol Refusal: Error, Sendable, CustomStringConvertible {
    /// What the client gets in `{"error":{…}}`.
    var detail: ErrorBody.Detail { get }
    /// Seconds after which the same request may succeed, when that is known (sent as `Retry-After`).
    var retryAfter: Int? { get }
    /// The server could not decide because a service it asks (DNS) gave no answer; the same request may succeed later.
    var undecided: Bool { get }
}

extension Refusal {
    public var retryAfter: Int? { nil }
    public var undecided: Bool { false }
    public var description: String { "\(detail.code): \(detail.message)" }
}

extension ErrorBody.Detail {
    /// A refusal of `field`, with the field named in front of the reason (`teamId: must be …`).
    package static func field(_ code: ErrorCode, _ field: String, _ reason: String) -> ErrorBody.Detail {
        ErrorBody.Detail(code: code, message: "\(field): \(reason)", field: field)
    }
}
