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
        try db.first("""
            SELECT 1 AS one FROM app_store_rescinded WHERE app_id = \(appId) AND app_transaction_hash = \(hash(appTransactionId))
            """) != nil
    }

    /// Unlinks the app transaction of the app; returns how many rows it deleted or unlinked, by kind.
    @discardableResult
    static func apply(_ db: any SQLExecutor, appId: AppId, appTransactionId: AppTransactionId, now: Int64) throws -> [String: Int] {
        try db.execute("""
            INSERT INTO app_store_rescinded (app_id, app_transaction_hash, rescinded_at) VALUES (\(appId), \(hash(appTransactionId)), \(now))
            ON CONFLICT (app_id, app_transaction_hash) DO NOTHING
            """)
        let commissionsOfApp: SQL = "program_id IN (SELECT id FROM affiliate_programs WHERE app_id = \(appId))"
        let tokens = try Set(db.query("""
            SELECT t.token FROM app_account_tokens t JOIN installs i ON i.app_id = t.app_id AND i.install_id = t.install_id
            WHERE i.app_id = \(appId) AND i.app_transaction_id = \(appTransactionId)
            UNION SELECT app_account_token AS token FROM commissions WHERE app_transaction_id = \(appTransactionId) AND \(commissionsOfApp)
            """, as: AffiliateRows.Token.self).map(\.token))
        var counts: [String: Int] = ["binds": 0, "commissions": 0]
        for token in tokens.sorted() where token != unlinkedToken {
            counts["binds", default: 0] += try db.execute("DELETE FROM app_account_tokens WHERE token = \(token) AND app_id = \(appId)")
            counts["commissions", default: 0] += try db.execute("""
                UPDATE commissions SET app_account_token = \(unlinkedToken), app_transaction_id = NULL WHERE app_account_token = \(token) AND \(commissionsOfApp)
                """)
        }
        counts["commissions", default: 0] += try db.execute("""
            UPDATE commissions SET app_account_token = \(unlinkedToken), app_transaction_id = NULL
            WHERE app_transaction_id = \(appTransactionId) AND \(commissionsOfApp)
            """)
        counts["installs"] = try db.execute("UPDATE installs SET app_transaction_id = NULL WHERE app_id = \(appId) AND app_transaction_id = \(appTransactionId)")
        counts["appTransactionClaims"] = try AppTransactionOwnership.rescind(appId: appId, appTransactionId: appTransactionId, db)
        counts["notifications"] = try db.execute("""
            UPDATE app_store_notifications SET app_transaction_id = NULL
            WHERE app_transaction_id = \(appTransactionId) AND surface_id IN (SELECT id FROM app_store_surfaces WHERE app_id = \(appId))
            """)
        return counts
    }
}
