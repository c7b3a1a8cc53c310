import AppleFormats
import LinkRunwayAPI
import RunwayCrypto
import RunwayKit
import RunwayStore

/// `RESCIND_CONSENT`: a parent withdrew consent for a child's use of the app
/// (https://developer.apple.com/documentation/appstoreservernotifications/notificationtype, with the app transaction in
/// https://developer.apple.com/documentation/appstoreservernotifications/appdata). The server stops processing that
/// app transaction and deletes what ties it to a person:
///
/// - the binds (`app_account_tokens`) of the installs the SDK reported with it, and those credited with its purchases;
/// - the link from those installs to it (`installs.app_transaction_id`), and from stored notifications;
/// - the appAccountToken (the purchase's user id) and app transaction id on its commissions.
///
/// The commissions and the ledger keep their amounts, which are money owed to affiliates, but no longer lead to the
/// bind, the install or the app transaction. The app transaction is remembered only by its SHA-256, so that later
/// notifications about it are recorded as `consent_rescinded` and not processed.
enum ConsentRescission {
    /// What a commission's appAccountToken becomes once unlinked.
    static let unlinkedToken = "rescinded"

    static func hash(_ appTransactionId: AppTransactionId) -> String { ByteEncoding.hex(Digest.sha256(Array(appTransactionId.rawValue.utf8))) }

    static func isRescinded(_ db: any SQLExecutor, appId: AppId, appTransactionId: AppTransactionId) throws -> Bool {
        try AppTransactionQueries.isRescinded(db, appId: appId, hash: hash(appTransactionId))
    }

    /// Unlinks the app transaction of the app; returns how many rows it deleted or unlinked, by kind.
    @discardableResult
    static func apply(_ db: any SQLExecutor, appId: AppId, appTransactionId: AppTransactionId, now: Int64) throws -> [String: Int] {
        try AppTransactionQueries.insertRescinded(db, appId: appId, hash: hash(appTransactionId), now: now)
        let tokens = try AppTransactionQueries.tokens(db, appId: appId, appTransactionId: appTransactionId)
        var counts: [String: Int] = ["binds": 0, "commissions": 0]
        for token in tokens.sorted() where token != unlinkedToken {
            counts["binds", default: 0] += try AppTransactionQueries.deleteBind(db, token: token, appId: appId)
            counts["commissions", default: 0] += try AppTransactionQueries.unlinkCommissions(db, token: token, appId: appId, unlinked: unlinkedToken)
        }
        counts["commissions", default: 0] += try AppTransactionQueries.unlinkCommissions(db, appTransactionId: appTransactionId, appId: appId,
                                                                                         unlinked: unlinkedToken)
        counts["installs"] = try AppTransactionQueries.unlinkInstalls(db, appId: appId, appTransactionId: appTransactionId)
        counts["appTransactionClaims"] = try AppTransactionOwnership.rescind(appId: appId, appTransactionId: appTransactionId, db)
        counts["notifications"] = try AppTransactionQueries.unlinkNotifications(db, appId: appId, appTransactionId: appTransactionId)
        return counts
    }
}
