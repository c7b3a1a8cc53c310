import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayKit
import RunwayStore

/// StoreKit app transaction ids proven by Apple's signature, and the install that owns each. A purchase made without
/// the bind's appAccountToken (a renewal on another device, an offer-code redemption) is credited through its app
/// transaction id only to a bind of the install that first sent Apple's signed app transaction with that id. An id a
/// client merely reports is kept with its install and moves no money.
enum AppTransactionOwnership {
    /// An app transaction whose signature, chain, bundle id, App Store id (in production) and environment verified.
    struct Proof: Sendable, Equatable {
        let appTransactionId: String
        /// `Production` or `Sandbox`: Apple's `receiptType`.
        let environment: String
        let appAppleId: Int64?
        /// Apple's `storeType`, when the transaction names one.
        var storeType: String? = nil
    }

    enum Verdict: Sendable, Equatable {
        case verified(Proof)
        /// Why the signed app transaction proves nothing: it is then ignored and the install matched without it.
        case refused(String)
    }

    /// Whether claiming made the install the owner or recorded it disputing an older owner.
    enum Claim: String, Sendable {
        case owner, disputed
    }

    /// Checks `AppTransaction.shared`'s `jwsRepresentation` as Apple's libraries check an app transaction, for `app`.
    /// StoreKit Testing's environments (`Xcode`, `LocalTesting`) are signed without Apple's chain and prove nothing.
    static func verify(_ text: String, app: App, verifier: AppStoreVerifier?, now: Date) -> Verdict {
        guard let verifier else { return .refused("unconfigured") }
        guard let jws = try? CompactJWS.parse(text) else { return .refused("INVALID_JWT_FORMAT") }
        guard let receiptType = jws.payload["receiptType"]?.stringValue, let environment = AppStoreVerifier.Environment(rawValue: receiptType),
              environment == .production || environment == .sandbox else {
            return .refused("INVALID_ENVIRONMENT")
        }
        switch verifier.verifyAppTransaction(text, bundleId: app.bundleId, appAppleId: app.appStoreId.flatMap { Int64($0) },
                                             environment: environment, now: now) {
        case .failure(let failure): return .refused(failure.status)
        case .success(let transaction):
            guard let id = transaction.appTransactionId?.rawValue, isWellFormed(id) else { return .refused("NO_APP_TRANSACTION_ID") }
            return .verified(Proof(appTransactionId: id, environment: environment.rawValue, appAppleId: transaction.appAppleId,
                                   storeType: transaction.storeType))
        }
    }

    /// Apple documents the id as a string; up to 64 letters, digits and dashes are kept.
    static func isWellFormed(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy { byte in
            byte == UInt8(ascii: "-") || (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
        }
    }

    /// The first install to prove an id owns it. A later install proving the same id (another device of the Apple
    /// account, or someone replaying a signed app transaction) is recorded as disputing it and takes nothing.
    static func claim(_ db: any SQLExecutor, appId: AppId, installId: InstallId, proof: Proof, now: Int64) throws -> Claim {
        let id = proof.appTransactionId, environment = proof.environment
        if try AppTransactionQueries.insertOwner(db, appId: appId, environment: environment, appTransactionId: id, installId: installId, now: now) {
            return .owner
        }
        let owner = try AppTransactionQueries.owner(db, appId: appId, environment: environment, appTransactionId: id)
        guard let owner, owner != installId else { return .owner }
        try AppTransactionQueries.insertDispute(db, appId: appId, environment: environment, appTransactionId: id, installId: installId, owner: owner,
                                                now: now)
        return .disputed
    }

    /// The oldest bind of the install that owns the app transaction id in the surface's environment, with what
    /// `AffiliateQueries.tokenBinding` gives.
    static func binding(_ db: any SQLExecutor, appTransactionId: AppTransactionId, appId: AppId, environment: AppStoreVerifier.Environment) throws
        -> AffiliateRows.Binding? {
        try AppTransactionQueries.ownerBinding(db, appTransactionId: appTransactionId, appId: appId, environment: environment)
    }

    /// A forgotten install owns and disputes nothing.
    static func forget(appId: AppId, installId: InstallId, _ db: any SQLExecutor) throws -> Int {
        try AppTransactionQueries.forgetInstall(db, appId: appId, installId: installId)
    }

    /// Consent rescinded for an app transaction: nobody owns it any more.
    static func rescind(appId: AppId, appTransactionId: AppTransactionId, _ db: any SQLExecutor) throws -> Int {
        try AppTransactionQueries.forgetAppTransaction(db, appId: appId, appTransactionId: appTransactionId)
    }
}
