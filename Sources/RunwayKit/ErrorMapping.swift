import LinkRunwayAPI
import RunwayHTTP
import RunwayJSON
import RunwayStore

/// The one place where errors become HTTP statuses and headers. Capabilities throw `Refusal`s, which carry a code and
/// no status; the status of each code is in `table`, and the store's and the decoder's errors are mapped here too.
/// `RunwayHTTP` and the transport answer a few codes themselves (an unknown route, a body over its limit, a request
/// past its time); the table lists those with the status they use.
public enum ErrorMapping {
    /// One code of the API: its status and when it is answered.
    public struct Entry: Sendable {
        public let code: ErrorCode
        public let status: Int
        public let meaning: String
    }

    /// Every code the API answers, with its status; `docs/api.md` shows this table.
    public static let table: [Entry] = [
        Entry(code: ErrorCode.invalidJSON, status: 400, meaning: "The body is empty or not JSON, or not the JSON object the route takes."),
        Entry(code: ErrorCode.unknownField, status: 400, meaning: "The body has a field the request type does not have."),
        Entry(code: ErrorCode.missingField, status: 400, meaning: "A field the request needs is absent."),
        Entry(code: ErrorCode.invalidField, status: 400, meaning: "A field has a value the route cannot take; `field` names it."),
        Entry(code: ErrorCode.invalidQuery, status: 400, meaning: "A query parameter is absent or has a value the route cannot take."),
        Entry(code: ErrorCode.noLinkDomain, status: 400, meaning: "The workspace has no link domain to make the link on."),
        Entry(code: ErrorCode.consentRequired, status: 400, meaning: "Matching was asked without the user's consent."),
        Entry(code: ErrorCode.challengeUnknown, status: 400, meaning: "The App Attest challenge is not one this server issued, or was used."),
        Entry(code: ErrorCode.challengeExpired, status: 400, meaning: "The App Attest challenge is older than it may be: five minutes for an assertion, an hour for an attestation."),
        Entry(code: ErrorCode.attestationInvalid, status: 400, meaning: "The App Attest attestation failed a step of Apple's checks."),
        Entry(code: ErrorCode.assertionInvalid, status: 400, meaning: "The App Attest assertion failed a step of Apple's checks."),
        Entry(code: ErrorCode.counterReplayed, status: 400, meaning: "The assertion's counter is not above the last one seen: a replay."),
        Entry(code: ErrorCode.invalidClick, status: 400, meaning: "The signed click id has expired or was not signed by this server."),
        Entry(code: ErrorCode.lowContrast, status: 400, meaning: "A QR code's colours are too close for scanners (under 3:1), or its modules are lighter than its background."),
        Entry(code: ErrorCode.invalidLogo, status: 400, meaning: "An uploaded QR logo is not an accepted PNG or SVG; the message says why."),
        Entry(code: ErrorCode.logoSVGOnly, status: 400, meaning: "An SVG logo was asked of `qr.png`; it is drawn only in `qr.svg`."),
        Entry(code: ErrorCode.appStoreInvalid, status: 400, meaning: "App Store signed data that does not verify, or lacks what the notification needs."),
        Entry(code: ErrorCode.invalidIdempotencyKey, status: 400, meaning: "The `Idempotency-Key` is not 1 to 255 visible ASCII characters."),
        Entry(code: ErrorCode.missingKey, status: 401, meaning: "No API key was sent."),
        Entry(code: ErrorCode.invalidKey, status: 401, meaning: "The key, or the `Authorization` header, is not valid."),
        Entry(code: ErrorCode.revokedKey, status: 401, meaning: "The key was revoked."),
        Entry(code: ErrorCode.invalidSignature, status: 401, meaning: "The forwarded App Store notification's signature or time does not check."),
        Entry(code: ErrorCode.keyKindForbidden, status: 403, meaning: "This kind of key may not do this."),
        Entry(code: ErrorCode.workspaceForbidden, status: 403, meaning: "The key belongs to another workspace."),
        Entry(code: ErrorCode.appForbidden, status: 403, meaning: "The publishable key belongs to another app."),
        Entry(code: ErrorCode.installSecretMismatch, status: 403, meaning: "The install was made with a secret and the request lacks it."),
        Entry(code: ErrorCode.revenueRequiresServerKey, status: 403, meaning: "Revenue events come from a backend with a server key."),
        Entry(code: ErrorCode.attestationRequired, status: 403, meaning: "The app requires App Attest and the request carries no valid token."),
        Entry(code: ErrorCode.notFound, status: 404, meaning: "No such route, or nothing with this id that the key may see."),
        Entry(code: ErrorCode.linkNotFound, status: 404, meaning: "No link of the app answers this URL."),
        Entry(code: ErrorCode.unknownInstall, status: 404, meaning: "The install has not been matched or installed."),
        Entry(code: ErrorCode.unknownKey, status: 404, meaning: "The App Attest key is not registered."),
        Entry(code: ErrorCode.noMatch, status: 404, meaning: "No recent affiliate click matches."),
        Entry(code: ErrorCode.unknownCode, status: 404, meaning: "No affiliate program of the app has this code."),
        Entry(code: ErrorCode.methodNotAllowed, status: 405, meaning: "The route does not take this method; `Allow` lists those it takes."),
        Entry(code: ErrorCode.conflict, status: 409, meaning: "The request conflicts with something that exists, or refers to something that does not."),
        Entry(code: ErrorCode.appExists, status: 409, meaning: "The workspace already has an app with this team and bundle id."),
        Entry(code: ErrorCode.appIdentityTaken, status: 409, meaning: "Another app already holds this team and bundle id, or an admin proved this App Store id for another app."),
        Entry(code: ErrorCode.lastAdminKey, status: 409, meaning: "The last admin key cannot be revoked."),
        Entry(code: ErrorCode.pathTaken, status: 409, meaning: "The link domain already has a link at this path."),
        Entry(code: ErrorCode.hostnameTaken, status: 409, meaning: "The hostname is already a link domain."),
        Entry(code: ErrorCode.emailTaken, status: 409, meaning: "The email already has a console user."),
        Entry(code: ErrorCode.domainInUse, status: 409, meaning: "The link domain still has links."),
        Entry(code: ErrorCode.domainUnverified, status: 409,
              meaning: "The DNS record that proves control of the domain was not found (503 when DNS gave no answer: try again)."),
        Entry(code: ErrorCode.duplicateInstall, status: 409, meaning: "The install already has an INSTALL event."),
        Entry(code: ErrorCode.attestationOff, status: 409, meaning: "App Attest is off for this app."),
        Entry(code: ErrorCode.insufficientBalance, status: 409, meaning: "The payable balance is smaller than the payout."),
        Entry(code: ErrorCode.appStoreKeyMissing, status: 409, meaning: "The app has no In-App Purchase key to ask Apple's App Store Server API with."),
        Entry(code: ErrorCode.appStoreKeyRejected, status: 409, meaning: "Apple refused the app's In-App Purchase key (wrong key, key id, issuer id or bundle id)."),
        Entry(code: ErrorCode.idempotencyKeyInUse, status: 409, meaning: "The first request with this `Idempotency-Key` still runs; retry after a second."),
        Entry(code: ErrorCode.linkExpired, status: 410, meaning: "The link is disabled, not started, expired or over its click limit."),
        Entry(code: ErrorCode.bodyTooLarge, status: 413, meaning: "The body is over the route's limit."),
        Entry(code: ErrorCode.metadataTooLarge, status: 413, meaning: "A metadata or properties field is over its size."),
        Entry(code: ErrorCode.appStoreRefused, status: 422,
              meaning: "Apple's API refused the request (a text too long, an identifier that exists, a message not approved…); the message gives Apple's error code."),
        Entry(code: ErrorCode.idempotencyKeyReused, status: 422, meaning: "The `Idempotency-Key` was used with a different request."),
        Entry(code: ErrorCode.totalOutOfRange, status: 422,
              meaning: "The write would take a stored total (a link's figures, a balance) past 2^63−1, or the totals asked for add up past it."),
        Entry(code: ErrorCode.rateLimited, status: 429, meaning: "Too many requests from this address or key; `Retry-After` says when to retry."),
        Entry(code: ErrorCode.internalError, status: 500, meaning: "A fault of the server; it is logged."),
        Entry(code: ErrorCode.appStoreAPIFailed, status: 502, meaning: "Apple's App Store Server API answered an error, or not at all."),
        Entry(code: ErrorCode.storeUnavailable, status: 503, meaning: "The database (or password hashing) is busy or unreachable; retry after `Retry-After`."),
        Entry(code: ErrorCode.attestationUnconfigured, status: 503, meaning: "The server has no App Attestation root to check with."),
        Entry(code: ErrorCode.appStoreUnconfigured, status: 503, meaning: "The server has no Apple root to check App Store data with."),
        Entry(code: ErrorCode.requestTimeout, status: 503, meaning: "The request took longer than the server's request timeout."),
        Entry(code: ErrorCode.serverBusy, status: 503, meaning: "The server holds as many request bodies as it may; retry shortly."),
        Entry(code: ErrorCode.shuttingDown, status: 503, meaning: "The server is stopping; retry."),
    ]

    private static let statuses = Dictionary(uniqueKeysWithValues: table.map { ($0.code, $0.status) })

    /// The status of `code`; 500 for a code the table lacks (a test keeps every code in it).
    public static func status(of code: ErrorCode) -> Int { statuses[code] ?? 500 }

    /// The answer to `refusal`: its code's status (503 when the server could not decide), `WWW-Authenticate` with a
    /// 401, and `Retry-After` when the refusal knows when to retry.
    public static func httpError(for refusal: any Refusal) -> HTTPError {
        httpError(refusal.detail, status: refusal.undecided ? 503 : status(of: refusal.detail.errorCode), retryAfter: refusal.retryAfter)
    }

    public static func httpError(for error: any Error) -> HTTPError {
        switch error {
        case let error as any Refusal:
            return httpError(for: error)
        case let error as HTTPError:
            return error
        case let error as JSONSyntaxError:
            return httpError(for: RequestError.invalidJSON("the body is not valid JSON: \(error)"))
        case let error as JSONDecodeFailure:
            switch error {
            case .syntax(let syntax):
                return httpError(for: RequestError.invalidJSON("the body is not valid JSON: \(syntax)"))
            case .unknownField(let field):
                return httpError(ErrorBody.Detail(code: ErrorCode.unknownField, message: "\(field) is not a field of this request", field: field))
            case .missingField(let field):
                return httpError(for: RequestError.missingField("\(field) is required", field: field))
            case .invalidField(let field, let reason):
                if field.isEmpty { return httpError(for: RequestError.invalidJSON("the body \(reason)")) }
                return httpError(ErrorBody.Detail.field(ErrorCode.invalidField, field, reason))
            }
        case let error as StoreError:
            switch error {
            case .conflict:
                return httpError(ErrorBody.Detail(code: ErrorCode.conflict, message: "this conflicts with something that already exists"))
            case .constraint:
                return httpError(ErrorBody.Detail(code: ErrorCode.conflict, message: "this refers to something that does not exist or is in use"))
            case .outOfRange:
                return httpError(ErrorBody.Detail(code: ErrorCode.totalOutOfRange, message: "the totals would pass what can be counted (2^63−1)"))
            case .unavailable, .transactionConflict:
                return httpError(ErrorBody.Detail(code: ErrorCode.storeUnavailable, message: "the database is unavailable; retry shortly"), retryAfter: 1)
            case .corrupt, .newerSchema, .failed:
                return httpError(ErrorBody.Detail(code: ErrorCode.internalError, message: "internal error"))
            }
        default:
            return httpError(ErrorBody.Detail(code: ErrorCode.internalError, message: "internal error"))
        }
    }

    /// The code, message and field of any error, as a per-item answer (a rejected event of a batch) shows them.
    public static func detail(for error: any Error) -> ErrorBody.Detail {
        if let refusal = error as? any Refusal { return refusal.detail }
        let mapped = httpError(for: error)
        return ErrorBody.Detail(code: mapped.code, message: mapped.message, field: mapped.field)
    }

    private static func httpError(_ detail: ErrorBody.Detail, status: Int? = nil, retryAfter: Int? = nil) -> HTTPError {
        let status = status ?? self.status(of: detail.errorCode)
        var headers: [String: String] = [:]
        if status == 401 { headers["WWW-Authenticate"] = "Bearer" }
        if let retryAfter { headers["Retry-After"] = String(retryAfter) }
        return HTTPError(status: status, code: detail.errorCode, message: detail.message, field: detail.field, headers: headers)
    }
}
