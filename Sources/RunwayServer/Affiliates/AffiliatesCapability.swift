import LinkRunwayAPI
import RunwayHTTP
import RunwayStore

/// Affiliates on StoreKit 2: programs, codes and links, binds to appAccountTokens, App Store notifications, commissions
/// and the double-entry ledger with payouts.
struct AffiliatesCapability: Capability {
    var migrations: [Migration] { AffiliatesSchema.migrations }
    var migrationNotes: [String: @Sendable (any Store) async throws -> String?] { AffiliatesSchema.notes }

    func routes(_ services: ServerServices) -> [Route] {
        AffiliateRoutes.routes(services) + AppStoreBinding.routes(services) + AppStoreNotifications.routes(services) + LedgerRoutes.routes(services)
    }

    /// The appAccountToken and its commissions are the affiliate's financial record and stay; the install goes.
    func forget(_ install: InstallReference, _ db: any SQLExecutor) throws -> [String: Int] {
        ["affiliateBindsUnlinked": try db.execute("""
            UPDATE app_account_tokens SET install_id = NULL, click_token = NULL WHERE app_id = \(install.appId) AND install_id = \(install.installId)
            """)]
    }

    func export(_ install: InstallReference, _ db: any SQLExecutor, into export: inout InstallExport) throws {
        export.affiliateBinds = try db.query("""
            SELECT token, affiliate_id, program_id, method, created_at FROM app_account_tokens
            WHERE app_id = \(install.appId) AND install_id = \(install.installId) ORDER BY created_at
            """).map {
            ExportedBind(appAccountToken: try $0.string("token"), affiliateId: try $0.string("affiliate_id"), programId: try $0.string("program_id"),
                         method: try $0.string("method"), createdAt: Timestamp.iso(try $0.int("created_at")))
        }
    }

    /// Commissions past their holding period become payable even when nobody reads a balance.
    func maintain(_ services: ServerServices, policy: RetentionPolicy, now: Int64, report: inout RetentionReport) async throws {
        _ = try await services.store.write { db in try Ledger.releaseDue(db, now: now) }
    }
}
