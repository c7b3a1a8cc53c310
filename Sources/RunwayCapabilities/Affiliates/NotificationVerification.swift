import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayJSON

/// Checks an App Store notification for a surface before anything is stored: the signed payload and every JWS nested
/// in it (`signedTransactionInfo`, `signedRenewalInfo`, `appData.signedAppTransactionInfo`) to the configured root, as
/// Apple's libraries check them, with four verdicts of our own:
///
/// - a notification from another environment reaching a production surface is `ignored_non_production`, whether or
///   not it carries `appAppleId` (Apple omits it in sandbox, where its libraries say `INVALID_APP_IDENTIFIER`);
/// - a notification for this app from neither `Production` nor `Sandbox` (StoreKit Testing's environments, or one
///   Apple adds) reaching a sandbox surface is recorded as `ignored` with the reason `other_environment`: the value is
///   kept and shown, nothing is processed, and nothing is refused;
/// - a notification that names no app at all (a type Apple adds whose payload has none of `data`, `appData`,
///   `summary` or `externalPurchaseToken`) is recorded as `ignored`, never refused, since a 400 makes a forwarder
///   drop it;
/// - unknown types and fields are accepted: only what the server acts on is required;
/// - the request body may carry fields besides `signedPayload`.
struct NotificationVerification {
    let verifier: AppStoreVerifier
    let surface: NotificationHandlers.Surface
    let now: Date

    /// A notification whose every signature holds, with what it carries.
    struct Checked {
        var notification: AppStoreNotification
        var transaction: AppStoreTransaction?
        var renewal: AppStoreRenewalInfo?
        var appTransaction: AppStoreAppTransaction?

        /// The app transaction the purchase belongs to, from whichever signed part names it.
        var appTransactionId: AppTransactionId? { transaction?.appTransactionId ?? renewal?.appTransactionId ?? appTransaction?.appTransactionId }
    }

    enum Outcome {
        /// Verified and the surface's: to be processed.
        case process(Checked)
        /// Verified, but recorded with this status (and the reason, when the status alone does not say it) and nothing
        /// else done.
        case record(AppStoreNotification, status: AppStoreNotificationStatus, reason: String?)
    }

    static let otherEnvironment = "other_environment"

    /// The `signedPayload` of a body, which may carry other fields.
    static func signedPayload(_ body: [UInt8]) throws -> String {
        guard let document = try? JSONParser().parse(body), let text = document["signedPayload"]?.stringValue, !text.isEmpty else {
            throw AffiliatesError.appStoreInvalid("the body must be {\"signedPayload\": \"<JWS>\"}")
        }
        return text
    }

    func check(_ text: String) throws -> Outcome {
        let app = surface.app
        let notification: AppStoreNotification
        switch verifier.decodeNotification(text, environment: surface.environment, now: now) {
        case .success(let (decoded, _)): notification = decoded
        case .failure(let failure): throw AffiliatesError.appStoreInvalid("\(failure.status): \(failure)")
        }
        if surface.environment == .production, let environment = notification.environment, AppStoreVerifier.Environment(rawValue: environment) != .production,
           notification.bundleId == app.bundleId {
            // A sandbox purchase reached a production app: expected while testing, never money.
            return .record(notification, status: .ignoredNonProduction, reason: nil)
        }
        guard notification.namesAnApp else { return .record(notification, status: .ignored, reason: nil) }
        if surface.environment == .sandbox, notification.bundleId == app.bundleId,
           !AppStoreVerifier.Environment.surfaceEnvironments.contains(where: { $0.rawValue == notification.environment }) {
            return .record(notification, status: .ignored, reason: Self.otherEnvironment)
        }
        if let failure = AppStoreVerifier.identityFailure(notification, bundleId: app.bundleId, appAppleId: app.appStoreId.flatMap { Int64($0) },
                                                          environment: surface.environment) {
            throw AffiliatesError.appStoreInvalid("\(failure.status): \(failure)")
        }
        var checked = Checked(notification: notification)
        if let signed = notification.signedTransactionInfo {
            checked.transaction = try nested("signedTransactionInfo", verifier.verifyTransaction(signed, bundleId: app.bundleId,
                                                                                                  environment: surface.environment, now: now))
        }
        if let signed = notification.signedRenewalInfo {
            let payload = try nested("signedRenewalInfo", verifier.verifyRenewalInfo(signed, environment: surface.environment, now: now))
            checked.renewal = AppStoreRenewalInfo(payload)
        }
        if let signed = notification.signedAppTransactionInfo {
            checked.appTransaction = try nested("signedAppTransactionInfo", verifier.verifyAppTransaction(
                signed, bundleId: app.bundleId, appAppleId: app.appStoreId.flatMap { Int64($0) }, environment: surface.environment, now: now))
        }
        let type = notification.notificationType
        if NotificationHandlers.transactionTypes.contains(type) {
            guard let transaction = checked.transaction else {
                throw AffiliatesError.appStoreInvalid("a \(type) notification needs signedTransactionInfo")
            }
            guard transaction.transactionId != nil else { throw AffiliatesError.appStoreInvalid("the transaction has no transactionId") }
        }
        if type == .rescindConsent, checked.appTransaction?.appTransactionId == nil {
            throw AffiliatesError.appStoreInvalid("a \(type) notification needs appData.signedAppTransactionInfo with an appTransactionId")
        }
        return .process(checked)
    }

    /// The value of a nested JWS, or a refusal naming the field and Apple's status.
    private func nested<T>(_ field: String, _ result: Result<T, AppStoreVerifier.Failure>) throws -> T {
        switch result {
        case .success(let value): return value
        case .failure(let failure): throw AffiliatesError.appStoreInvalid("\(field) \(failure.status): \(failure)")
        }
    }
}
