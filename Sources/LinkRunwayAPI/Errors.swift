import RunwayJSON

/// The body of every error response: `{"error":{"code","message","field"?}}`.
public struct ErrorBody: Codable, Sendable, Equatable {
    public struct Detail: Codable, Sendable, Equatable {
        /// Stable, machine-readable; see `ErrorCode`. A string on the wire, so a client reads codes added after it.
        public var code: String
        /// For people; may change between versions.
        public var message: String
        /// The request field at fault, as a path (`platforms[1]`), when there is one.
        public var field: String?

        public init(code: ErrorCode, message: String, field: String? = nil) {
            self.code = code.rawValue
            self.message = message
            self.field = field
        }
    }

    public var error: Detail
}

extension ErrorBody: DescribedWireType {
    public static let componentName: String? = "Error"
}

/// Written for every refused request and every rejected event: it writes itself.
extension ErrorBody: CompactJSONWritable {
    public func write(into writer: inout CompactJSONObjectWriter) {
        writer.member("error", error)
    }
}

extension ErrorBody.Detail: CompactJSONWritable {
    public func write(into writer: inout CompactJSONObjectWriter) {
        writer.member("code", code)
        writer.member("field", field)
        writer.member("message", message)
    }
}

extension ErrorBody.Detail {
    /// `code`, typed.
    public var errorCode: ErrorCode { ErrorCode(rawValue: code) }
}

extension ErrorBody.Detail: DescribedWireType {
    public static let componentName: String? = nil
    public static let notes: [String: FieldNote] = [
        "code": FieldNote("Stable machine-readable code, e.g. invalid_field."),
        "message": FieldNote("What went wrong, for people."),
        "field": FieldNote("The request field at fault, as a path."),
    ]
}

/// A code the API answers. Codes never change meaning once released; the server answers only those named here, and
/// `ErrorMapping` gives each its status.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    public static let invalidJSON = ErrorCode(rawValue: "invalid_json")
    /// An App Store id, or a team and bundle id, already registered by another app (of any workspace).
    public static let appIdentityTaken = ErrorCode(rawValue: "app_identity_taken")
    /// Forgetting an install made with a secret needs that secret.
    public static let installSecretMismatch = ErrorCode(rawValue: "install_secret_mismatch")
    public static let unknownField = ErrorCode(rawValue: "unknown_field")
    public static let missingField = ErrorCode(rawValue: "missing_field")
    public static let invalidField = ErrorCode(rawValue: "invalid_field")
    public static let invalidQuery = ErrorCode(rawValue: "invalid_query")
    public static let bodyTooLarge = ErrorCode(rawValue: "body_too_large")
    public static let missingKey = ErrorCode(rawValue: "missing_key")
    public static let invalidKey = ErrorCode(rawValue: "invalid_key")
    public static let revokedKey = ErrorCode(rawValue: "revoked_key")
    public static let keyKindForbidden = ErrorCode(rawValue: "key_kind_forbidden")
    public static let workspaceForbidden = ErrorCode(rawValue: "workspace_forbidden")
    public static let appForbidden = ErrorCode(rawValue: "app_forbidden")
    public static let notFound = ErrorCode(rawValue: "not_found")
    public static let methodNotAllowed = ErrorCode(rawValue: "method_not_allowed")
    public static let conflict = ErrorCode(rawValue: "conflict")
    /// The workspace already has an app with this team and bundle id.
    public static let appExists = ErrorCode(rawValue: "app_exists")
    public static let lastAdminKey = ErrorCode(rawValue: "last_admin_key")
    public static let metadataTooLarge = ErrorCode(rawValue: "metadata_too_large")
    public static let linkNotFound = ErrorCode(rawValue: "link_not_found")
    public static let linkExpired = ErrorCode(rawValue: "link_expired")
    public static let pathTaken = ErrorCode(rawValue: "path_taken")
    public static let hostnameTaken = ErrorCode(rawValue: "hostname_taken")
    public static let emailTaken = ErrorCode(rawValue: "email_taken")
    public static let domainInUse = ErrorCode(rawValue: "domain_in_use")
    /// The DNS record that proves control of a link domain was not found.
    public static let domainUnverified = ErrorCode(rawValue: "domain_unverified")
    public static let noLinkDomain = ErrorCode(rawValue: "no_link_domain")
    /// A QR code's colours a scanner cannot tell apart (or light modules on a dark background).
    public static let lowContrast = ErrorCode(rawValue: "low_contrast")
    /// An uploaded QR logo that is not an accepted PNG or SVG.
    public static let invalidLogo = ErrorCode(rawValue: "invalid_logo")
    /// An SVG logo asked of `qr.png`: it is drawn only in `qr.svg`.
    public static let logoSVGOnly = ErrorCode(rawValue: "logo_svg_only")
    public static let consentRequired = ErrorCode(rawValue: "consent_required")
    public static let unknownInstall = ErrorCode(rawValue: "unknown_install")
    public static let revenueRequiresServerKey = ErrorCode(rawValue: "revenue_requires_server_key")
    public static let duplicateInstall = ErrorCode(rawValue: "duplicate_install")
    public static let attestationOff = ErrorCode(rawValue: "attestation_off")
    public static let attestationRequired = ErrorCode(rawValue: "attestation_required")
    public static let attestationUnconfigured = ErrorCode(rawValue: "attestation_unconfigured")
    public static let unknownKey = ErrorCode(rawValue: "unknown_key")
    public static let challengeUnknown = ErrorCode(rawValue: "challenge_unknown")
    public static let challengeExpired = ErrorCode(rawValue: "challenge_expired")
    public static let attestationInvalid = ErrorCode(rawValue: "attestation_invalid")
    public static let assertionInvalid = ErrorCode(rawValue: "assertion_invalid")
    public static let counterReplayed = ErrorCode(rawValue: "counter_replayed")
    public static let rateLimited = ErrorCode(rawValue: "rate_limited")
    public static let invalidClick = ErrorCode(rawValue: "invalid_click")
    public static let noMatch = ErrorCode(rawValue: "no_match")
    public static let unknownCode = ErrorCode(rawValue: "unknown_code")
    public static let appStoreUnconfigured = ErrorCode(rawValue: "app_store_unconfigured")
    public static let appStoreInvalid = ErrorCode(rawValue: "app_store_invalid")
    /// Replaying notifications needs the app's In-App Purchase key.
    public static let appStoreKeyMissing = ErrorCode(rawValue: "app_store_key_missing")
    /// Apple's App Store Server API refused the app's In-App Purchase key (401).
    public static let appStoreKeyRejected = ErrorCode(rawValue: "app_store_key_rejected")
    /// Apple's App Store Server API failed or answered an error.
    public static let appStoreAPIFailed = ErrorCode(rawValue: "app_store_api_failed")
    /// Apple's API refused what was asked of it (its error code and text are in the message).
    public static let appStoreRefused = ErrorCode(rawValue: "app_store_refused")
    public static let invalidSignature = ErrorCode(rawValue: "invalid_signature")
    public static let insufficientBalance = ErrorCode(rawValue: "insufficient_balance")
    public static let invalidIdempotencyKey = ErrorCode(rawValue: "invalid_idempotency_key")
    public static let idempotencyKeyInUse = ErrorCode(rawValue: "idempotency_key_in_use")
    public static let idempotencyKeyReused = ErrorCode(rawValue: "idempotency_key_reused")
    /// A write would take a stored total past what a 64-bit integer holds, or stored totals add up past it.
    public static let totalOutOfRange = ErrorCode(rawValue: "total_out_of_range")
    public static let storeUnavailable = ErrorCode(rawValue: "store_unavailable")
    public static let requestTimeout = ErrorCode(rawValue: "request_timeout")
    /// The server holds as many request bodies as it may at once.
    public static let serverBusy = ErrorCode(rawValue: "server_busy")
    public static let shuttingDown = ErrorCode(rawValue: "shutting_down")
    public static let internalError = ErrorCode(rawValue: "internal_error")
}
