import AppleFormats
import RunwayKit
import RunwayStore

/// The SQL of what the affiliates capability keeps about app transactions: which install owns each proven id and
/// which dispute it (`AppTransactionOwnership`), which were rescinded and what they are unlinked from
/// (`ConsentRescission`), and the install a purchase comes from (`ConsumerStores`).
enum AppTransactionQueries {
    // MARK: Owners and disputes

    /// Records the install as the id's owner unless one is recorded: whether it is now.
    static func insertOwner(_ db: any SQLExecutor, appId: AppId, environment: String, appTransactionId id: String, installId: InstallId,
                            now: Int64) throws -> Bool {
        try db.execute("""
            INSERT INTO app_transaction_owners (app_id, environment, app_transaction_id, install_id, proven_at)
            VALUES (\(appId), \(environment), \(id), \(installId), \(now)) ON CONFLICT DO NOTHING
            """) == 1
    }

    /// The install that owns the id in the environment (`Production` or `Sandbox`: owners are kept under Apple's
    /// spelling).
    static func owner(_ db: any SQLExecutor, appId: AppId, environment: String, appTransactionId id: String) throws -> InstallId? {
        try db.first("""
            SELECT install_id FROM app_transaction_owners WHERE app_id = \(appId) AND environment = \(environment) AND app_transaction_id = \(id)
            """, as: AffiliateRows.InstallOf.self)?.installId
    }

    /// Records the install disputing the owner's claim, once.
    static func insertDispute(_ db: any SQLExecutor, appId: AppId, environment: String, appTransactionId id: String, installId: InstallId, owner: InstallId,
                              now: Int64) throws {
        try db.execute("""
            INSERT INTO app_transaction_disputes (app_id, environment, app_transaction_id, install_id, owner_install_id, reported_at)
            VALUES (\(appId), \(environment), \(id), \(installId), \(owner), \(now)) ON CONFLICT DO NOTHING
            """)
    }

    /// The oldest bind of the install that owns the app transaction id, with what `AffiliateQueries.tokenBinding` gives.
    static func ownerBinding(_ db: any SQLExecutor, appTransactionId: AppTransactionId, appId: AppId, environment: AppStoreVerifier.Environment) throws
        -> AffiliateRows.Binding? {
        try db.first("""
            SELECT \(raw: AffiliateRows.Binding.columns) FROM app_transaction_owners o
            JOIN app_account_tokens t ON t.app_id = o.app_id AND t.install_id = o.install_id
            JOIN affiliate_programs p ON p.id = t.program_id
            WHERE o.app_id = \(appId) AND o.environment = \(environment.rawValue) AND o.app_transaction_id = \(appTransactionId)
            ORDER BY t.created_at, t.token LIMIT 1
            """, as: AffiliateRows.Binding.self)
    }

    /// Deletes what the install owns and disputes: how many rows.
    static func forgetInstall(_ db: any SQLExecutor, appId: AppId, installId: InstallId) throws -> Int {
        try db.execute("DELETE FROM app_transaction_owners WHERE app_id = \(appId) AND install_id = \(installId)")
            + db.execute("DELETE FROM app_transaction_disputes WHERE app_id = \(appId) AND install_id = \(installId)")
    }

    /// Deletes the owner and disputes of the id: how many rows.
    static func forgetAppTransaction(_ db: any SQLExecutor, appId: AppId, appTransactionId: AppTransactionId) throws -> Int {
        try db.execute("DELETE FROM app_transaction_owners WHERE app_id = \(appId) AND app_transaction_id = \(appTransactionId)")
            + db.execute("DELETE FROM app_transaction_disputes WHERE app_id = \(appId) AND app_transaction_id = \(appTransactionId)")
    }

    // MARK: Rescinded consent

    /// Whether the app has the app transaction whose SHA-256 is `hash` among the rescinded.
    static func isRescinded(_ db: any SQLExecutor, appId: AppId, hash: String) throws -> Bool {
        try db.first("""
            SELECT 1 AS one FROM app_store_rescinded WHERE app_id = \(appId) AND app_transaction_hash = \(hash)
            """) != nil
    }

    static func insertRescinded(_ db: any SQLExecutor, appId: AppId, hash: String, now: Int64) throws {
        try db.execute("""
            INSERT INTO app_store_rescinded (app_id, app_transaction_hash, rescinded_at) VALUES (\(appId), \(hash), \(now))
            ON CONFLICT (app_id, app_transaction_hash) DO NOTHING
            """)
    }

    /// The condition that a commission is one of the app's programs'.
    static func commissionsOfApp(_ appId: AppId) -> SQL { "program_id IN (SELECT id FROM affiliate_programs WHERE app_id = \(appId))" }

    /// The appAccountTokens tied to the app transaction: the binds of the installs that reported it, and those its
    /// commissions were credited through.
    static func tokens(_ db: any SQLExecutor, appId: AppId, appTransactionId: AppTransactionId) throws -> Set<String> {
        try Set(db.query("""
            SELECT t.token FROM app_account_tokens t JOIN installs i ON i.app_id = t.app_id AND i.install_id = t.install_id
            WHERE i.app_id = \(appId) AND i.app_transaction_id = \(appTransactionId)
            UNION SELECT app_account_token AS token FROM commissions WHERE app_transaction_id = \(appTransactionId) AND \(commissionsOfApp(appId))
            """, as: AffiliateRows.Token.self).map(\.token))
    }

    /// Deletes the bind of `token`: how many rows.
    static func deleteBind(_ db: any SQLExecutor, token: String, appId: AppId) throws -> Int {
        try db.execute("DELETE FROM app_account_tokens WHERE token = \(token) AND app_id = \(appId)")
    }

    /// Replaces `token` on the app's commissions by `unlinked`, with their app transaction: how many.
    static func unlinkCommissions(_ db: any SQLExecutor, token: String, appId: AppId, unlinked: String) throws -> Int {
        try db.execute("""
            UPDATE commissions SET app_account_token = \(unlinked), app_transaction_id = NULL WHERE app_account_token = \(token) AND \(commissionsOfApp(appId))
            """)
    }

    /// Unlinks the app's commissions of the app transaction from it and their appAccountToken: how many.
    static func unlinkCommissions(_ db: any SQLExecutor, appTransactionId: AppTransactionId, appId: AppId, unlinked: String) throws -> Int {
        try db.execute("""
            UPDATE commissions SET app_account_token = \(unlinked), app_transaction_id = NULL
            WHERE app_transaction_id = \(appTransactionId) AND \(commissionsOfApp(appId))
            """)
    }

    /// Unlinks the app's installs from the app transaction: how many.
    static func unlinkInstalls(_ db: any SQLExecutor, appId: AppId, appTransactionId: AppTransactionId) throws -> Int {
        try db.execute("UPDATE installs SET app_transaction_id = NULL WHERE app_id = \(appId) AND app_transaction_id = \(appTransactionId)")
    }

    /// Unlinks the notifications the app's surfaces stored from the app transaction: how many.
    static func unlinkNotifications(_ db: any SQLExecutor, appId: AppId, appTransactionId: AppTransactionId) throws -> Int {
        try db.execute("""
            UPDATE app_store_notifications SET app_transaction_id = NULL
            WHERE app_transaction_id = \(appTransactionId) AND surface_id IN (SELECT id FROM app_store_surfaces WHERE app_id = \(appId))
            """)
    }

    // MARK: The install of a purchase

    /// The install the appAccountToken was bound for.
    static func boundInstall(_ db: any SQLExecutor, token: BindToken, appId: AppId) throws -> InstallId? {
        try db.first("SELECT install_id FROM app_account_tokens WHERE token = \(token) AND app_id = \(appId)", as: AffiliateRows.InstallOf.self)?
            .installId
    }

    /// The stores the install reported, as stored.
    static func storeTypes(_ db: any SQLExecutor, appId: AppId, installId: InstallId) throws -> String? {
        try db.first("SELECT store_types FROM installs WHERE app_id = \(appId) AND install_id = \(installId)", as: AffiliateRows.StoreTypesOf.self)?
            .storeTypes
    }
}
