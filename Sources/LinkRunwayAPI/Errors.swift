/// The body of every error response: `{"error":{"code","message","field"?}}`.
public struct ErrorBody: Codable, Sendable, Equatable {
    public struct Detail: Codable, Sendable, Equatable {
        /// Stable, machine-readable; see `ErrorCode`.
        public var code: String
        /// For people; may change between versions.
        public var message: String
        /// The request field at fault, as a path (`platforms[1]`), when there is one.
        public var field: String?

        public init(code: String, message: String, field: String? = nil) {
            self.code = code
            self.message = message
            self.field = field
        }
    }

    public var error: Detail
}

extension ErrorBody: DescribedWireType {
    public static let componentName: String? = "Error"
}

extension ErrorBody.Detail: DescribedWireType {
    public static let componentName: String? = nil
    public static let notes: [String: FieldNote] = [
        "code": FieldNote("Stable machine-readable code, e.g. invalid_field."),
        "message": FieldNote("What went wrong, for people."),
        "field": FieldNote("The request field at fault, as a path."),
    ]
}

/// The error codes the API answers. Codes never change meaning once released.
public enum ErrorCode {
    public static let invalidJSON = "invalid_json"
    /// An App Store id, or a team and bundle id, already registered by another app (of any workspace).
    public static let appIdentityTaken = "app_identity_taken"
    /// Forgetting an install made with a secret needs that secret.
    public static let installSecretMismatch = "install_secret_mismatch"
    public static let unknownField = "unknown_field"
    public static let missingField = "missing_field"
    public static let invalidField = "invalid_field"
    public static let invalidQuery = "invalid_query"
    public static let bodyTooLarge = "body_too_large"
    public static let missingKey = "missing_key"
    public static let invalidKey = "invalid_key"
    public static let revokedKey = "revoked_key"
    public static let keyKindForbidden = "key_kind_forbidden"
    public static let workspaceForbidden = "workspace_forbidden"
    public static let appForbidden = "app_forbidden"
    public static let notFound = "not_found"
    public static let methodNotAllowed = "method_not_allowed"
    public static let conflict = "conflict"
    /// The workspace already has an app with this team and bundle id.
    public static let appExists = "app_exists"
    public static let lastAdminKey = "last_admin_key"
    public static let metadataTooLarge = "metadata_too_large"
    public static let linkNotFound = "link_not_found"
    public static let linkExpired = "link_expired"
    public static let pathTaken = "path_taken"
    public static let hostnameTaken = "hostname_taken"
    public static let emailTaken = "email_taken"
    public static let domainInUse = "domain_in_use"
    /// The DNS record that proves control of a link domain was not found.
    public static let domainUnverified = "domain_unverified"
    public static let noLinkDomain = "no_link_domain"
    /// A QR code's colours a scanner cannot tell apart (or light modules on a dark background).
    public static let lowContrast = "low_contrast"
    /// An uploaded QR logo that is not an accepted PNG or SVG.
    public static let invalidLogo = "invalid_logo"
    /// An SVG logo asked of `qr.png`: it is drawn only in `qr.svg`.
    public static let logoSVGOnly = "logo_svg_only"
    public static let consentRequired = "consent_required"
    public static let unknownInstall = "unknown_install"
    public static let revenueRequiresServerKey = "revenue_requires_server_key"
    public static let duplicateInstall = "duplicate_install"
    public static let attestationOff = "attestation_off"
    public static let attestationRequired = "attestation_required"
    public static let attestationUnconfigured = "attestation_unconfigured"
    public static let unknownKey = "unknown_key"
    public static let challengeUnknown = "challenge_unknown"
    public static let challengeExpired = "challenge_expired"
    public static let attestationInvalid = "attestation_invalid"
    public static let assertionInvalid = "assertion_invalid"
    public static let counterReplayed = "counter_replayed"
    public static let rateLimited = "rate_limited"
    public static let invalidClick = "invalid_click"
    public static let noMatch = "no_match"
    public static let unknownCode = "unknown_code"
    public static let appStoreUnconfigured = "app_store_unconfigured"
    public static let appStoreInvalid = "app_store_invalid"
    /// Replaying notifications needs the app's In-App Purchase key.
    public static let appStoreKeyMissing = "app_store_key_missing"
    /// Apple's App Store Server API refused the app's In-App Purchase key (401).
    public static let appStoreKeyRejected = "app_store_key_rejected"
    /// Apple's App Store Server API failed or answered an error.
    public static let appStoreAPIFailed = "app_store_api_failed"
    /// Apple's API refused what was asked of it (its error code and text are in the message).
    public static let appStoreRefused = "app_store_refused"
    public static let invalidSignature = "invalid_signature"
    public static let insufficientBalance = "insufficient_balance"
    public static let invalidIdempotencyKey = "invalid_idempotency_key"
    public static let idempotencyKeyInUse = "idempotency_key_in_use"
    public static let idempotencyKeyReused = "idempotency_key_reused"
    /// A write would take a stored total past what a 64-bit integer holds, or stored totals add up past it.
    public static let totalOutOfRange = "total_out_of_range"
    public static let storeUnavailable = "store_unavailable"
    public static let requestTimeout = "request_timeout"
    /// The server holds as many request bodies as it may at once.
    public static let serverBusy = "server_busy"
    public static let shuttingDown = "shutting_down"
    public static let internalError = "internal_error"
}
