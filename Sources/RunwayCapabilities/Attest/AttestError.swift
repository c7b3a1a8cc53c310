import LinkRunwayAPI
import RunwayKit

/// What App Attest refuses: challenges unknown or old, attestations and assertions that fail Apple's checks, replayed
/// counters, keys not registered, and apps that have it off or require it.
enum AttestError: Refusal, Equatable {
    case unconfigured
    case off
    /// The app requires App Attest and the request carries no valid token.
    case required
    case challengeUnknown
    case challengeExpired
    /// The attestation failed a step; the message names it.
    case attestationInvalid(String)
    case keyRegistered
    case unknownKey
    /// The assertion's counter is not above the last one seen (`previous` nil: another assertion took it meanwhile).
    case counterReplayed(received: UInt32, previous: UInt32?)
    /// The assertion failed a step; the message names it.
    case assertionInvalid(String)

    var detail: ErrorBody.Detail {
        switch self {
        case .unconfigured:
            ErrorBody.Detail(code: ErrorCode.attestationUnconfigured, message: "this server has no App Attestation root (LINKRUNWAY_APP_ATTEST_ROOT)")
        case .off:
            ErrorBody.Detail(code: ErrorCode.attestationOff, message: "App Attest is off for this app")
        case .required:
            ErrorBody.Detail(code: ErrorCode.attestationRequired, message: "this app requires App Attest: attest, then send the token as attestation")
        case .challengeUnknown:
            ErrorBody.Detail(code: ErrorCode.challengeUnknown, message: "the challenge is unknown or was used already", field: "challenge")
        case .challengeExpired:
            ErrorBody.Detail(code: ErrorCode.challengeExpired, message: "the challenge is too old (five minutes for an assertion, an hour for an attestation); ask for a new one", field: "challenge")
        case .attestationInvalid(let message):
            ErrorBody.Detail(code: ErrorCode.attestationInvalid, message: message, field: "attestation")
        case .keyRegistered:
            ErrorBody.Detail(code: ErrorCode.conflict, message: "this key is already registered; assert with it instead")
        case .unknownKey:
            ErrorBody.Detail(code: ErrorCode.unknownKey, message: "this key is not registered; attest a new one")
        case .counterReplayed(let received, let previous?):
            ErrorBody.Detail(code: ErrorCode.counterReplayed, message: "counter \(received) is not above \(previous): a replayed assertion", field: "assertion")
        case .counterReplayed:
            ErrorBody.Detail(code: ErrorCode.counterReplayed, message: "another assertion with this counter got there first", field: "assertion")
        case .assertionInvalid(let message):
            ErrorBody.Detail(code: ErrorCode.assertionInvalid, message: message, field: "assertion")
        }
    }
}
