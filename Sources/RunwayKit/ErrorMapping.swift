import LinkRunwayAPI
import RunwayHTTP
import RunwayJSON
import RunwayStore

/// The one place where errors become HTTP statuses and stable codes.
public enum ErrorMapping {
    public static func httpError(for error: any Error) -> HTTPError {
        switch error {
        case let error as HTTPError:
            return error
        case let error as JSONSyntaxError:
            return .badRequest(ErrorCode.invalidJSON, "the body is not valid JSON: \(error)")
        case let error as JSONDecodeFailure:
            switch error {
            case .syntax(let syntax):
                return .badRequest(ErrorCode.invalidJSON, "the body is not valid JSON: \(syntax)")
            case .unknownField(let field):
                return .badRequest(ErrorCode.unknownField, "\(field) is not a field of this request", field: field)
            case .missingField(let field):
                return .badRequest(ErrorCode.missingField, "\(field) is required", field: field)
            case .invalidField(let field, let reason):
                if field.isEmpty { return .badRequest(ErrorCode.invalidJSON, "the body \(reason)") }
                return .badRequest(ErrorCode.invalidField, "\(field) \(reason)", field: field)
            }
        case let error as StoreError:
            switch error {
            case .conflict:
                return .conflict(ErrorCode.conflict, "this conflicts with something that already exists")
            case .constraint:
                return .conflict(ErrorCode.conflict, "this refers to something that does not exist or is in use")
            case .unavailable, .transactionConflict:
                return .unavailable(ErrorCode.storeUnavailable, "the database is unavailable; retry shortly", retryAfter: 1)
            case .corrupt, .failed:
                return HTTPError(status: 500, code: ErrorCode.internalError, message: "internal error")
            }
        default:
            return HTTPError(status: 500, code: ErrorCode.internalError, message: "internal error")
        }
    }
}
