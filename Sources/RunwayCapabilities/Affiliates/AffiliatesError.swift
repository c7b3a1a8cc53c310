import LinkRunwayAPI
import RunwayKit

/// What affiliates refuse: codes taken, binds with no affiliate click or code behind them, App Store data that does
/// not verify (or cannot be checked), forwarded notifications whose signature does not check, payouts over the balance.
enum AffiliatesError: Refusal, Equatable {
    case codeTaken(String)
    /// A signed click id that has expired, or that this server did not sign.
    case invalidClick(expired: Bool)
    case clickNotAffiliate
    case unknownCode(String)
    /// No recent affiliate click matches the bind's address.
    case noMatch
    /// A forwarded notification's `x-ea-timestamp` or `x-ea-signature` does not check; the message says which.
    case invalidSignature(String)
    case appStoreUnconfigured
    /// App Store signed data that does not verify or lacks what the notification needs; the message says what.
    case appStoreInvalid(String)
    case insufficientBalance(currency: String, payable: Int64)

    var detail: ErrorBody.Detail {
        switch self {
        case .codeTaken(let code):
            ErrorBody.Detail(code: ErrorCode.conflict, message: "the code \(code) is taken in this workspace")
        case .invalidClick(let expired):
            ErrorBody.Detail(code: ErrorCode.invalidClick, message: expired ? "the signedClickId has expired" : "the signedClickId is not one this server signed",
                             field: "signedClickId")
        case .clickNotAffiliate:
            ErrorBody.Detail(code: ErrorCode.noMatch, message: "the click is not on an affiliate link of this app")
        case .unknownCode(let code):
            ErrorBody.Detail(code: ErrorCode.unknownCode, message: "no affiliate program of this app has the code \(code)")
        case .noMatch:
            ErrorBody.Detail(code: ErrorCode.noMatch, message: "no recent affiliate click matches")
        case .invalidSignature(let message):
            ErrorBody.Detail(code: ErrorCode.invalidSignature, message: message)
        case .appStoreUnconfigured:
            ErrorBody.Detail(code: ErrorCode.appStoreUnconfigured, message: "this server has no Apple root for App Store data (LINKRUNWAY_APP_STORE_ROOT)")
        case .appStoreInvalid(let message):
            ErrorBody.Detail(code: ErrorCode.appStoreInvalid, message: message, field: "signedPayload")
        case .insufficientBalance(let currency, let payable):
            ErrorBody.Detail(code: ErrorCode.insufficientBalance, message: "the payable \(currency) balance is \(payable)")
        }
    }
}
