import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// Affiliates on StoreKit 2: programs, codes and links, binds to appAccountTokens, App Store notifications, commissions
/// and the double-entry ledger with payouts.
package struct AffiliatesCapability: Capability {
    package init() {}

    package var migrations: [Migration] { AffiliatesSchema.migrations }
    package var migrationNotes: [String: @Sendable (any Store) async throws -> String?] { AffiliatesSchema.notes }

    package func routes(_ services: ServerServices) -> [Route] {
        services.metrics.declareCounter("linkrunway_app_store_notifications_total", help: "App Store notifications, by status.")
        services.metrics.declareCounter("linkrunway_app_transactions_total",
                                        help: "Signed app transactions sent with matches, by outcome: owner, disputed (another install proved the id first) or refused.")
        let affiliates = AffiliateHandlers(services: services)
        let binds = BindHandlers(services: services)
        let notifications = NotificationHandlers(services: services)
        let ledger = LedgerHandlers(services: services, affiliates: affiliates)
        return [
            Route(.POST, "/v1/affiliates", .createAffiliate, use: affiliates.create),
            Route(.GET, "/v1/affiliates", .listAffiliates, use: affiliates.list),
            Route(.POST, "/v1/affiliate-programs", .createAffiliateProgram, use: affiliates.createProgram),
            Route(.GET, "/v1/affiliate-programs", .listAffiliatePrograms, use: affiliates.listPrograms),
            Route(.POST, "/v1/affiliates/{affiliateId}/codes", .createAffiliateCode, use: affiliates.createCode),
            Route(.GET, "/v1/affiliates/{affiliateId}/codes", .listAffiliateCodes, use: affiliates.listCodes),
            Route(.POST, "/v1/affiliates/{affiliateId}/links", .createAffiliateLink, use: affiliates.createLink),
            Route(.POST, "/v1/apps/{appId}/app-store-surfaces", .createAppStoreSurface, use: binds.createSurface),
            Route(.GET, "/v1/apps/{appId}/app-store-surfaces", .listAppStoreSurfaces, use: binds.listSurfaces),
            Route(.GET, "/v1/apps/{appId}/app-store/notifications", .listAppStoreNotifications, use: binds.listNotifications),
            Route(.POST, "/v1/app-store/bind", .bindAppAccountToken, use: binds.bind),
            Route(.POST, "/v1/app-store/bind/deferred", .bindDeferred, use: binds.bindDeferred),
            Route(.POST, "/v1/app-store/notifications/{surfaceId}", .receiveAppStoreNotification, use: notifications.receive),
            Route(.POST, "/v1/app-store/assn/{surfaceId}", .forwardAppStoreNotification, use: notifications.forward),
            Route(.GET, "/v1/affiliates/{affiliateId}/balance", .affiliateBalance, use: ledger.balance),
            Route(.GET, "/v1/affiliates/{affiliateId}/ledger", .affiliateLedger, use: ledger.ledger),
            Route(.POST, "/v1/affiliates/{affiliateId}/payouts", .createPayout, use: ledger.createPayout),
            Route(.GET, "/v1/reports/payouts", .payoutReport, use: ledger.payoutReport),
        ]
    }

    /// The appAccountToken and its commissions are the affiliate's financial record and stay; the install goes.
    package func forget(_ install: InstallReference, _ db: any SQLExecutor) throws -> [String: Int] {
        let appId = AppId(install.appId), installId = InstallId(install.installId)
        return ["affiliateBindsUnlinked": try AffiliateQueries.unlinkBinds(db, appId: appId, installId: installId),
                // The click stays taken, by nobody anyone can name.
                "deferredClickClaims": try AffiliateQueries.forgetDeferredClaims(db, appId: appId, claimant: "install:" + install.installId),
                "appTransactionClaims": try AppTransactionOwnership.forget(appId: appId, installId: installId, db)]
    }

    package func export(_ install: InstallReference, _ db: any SQLExecutor, into export: inout InstallExport) throws {
        export.affiliateBinds = try AffiliateQueries.binds(db, appId: AppId(install.appId), installId: InstallId(install.installId)).map(\.wire)
    }

    /// Commissions past their holding period become payable even when nobody reads a balance.
    package func maintain(_ services: ServerServices, policy: RetentionPolicy, now: Int64, report: inout RetentionReport) async throws {
        _ = try await services.store.write { db in try Ledger.releaseDue(db, now: now) }
        // Deferred binds reach back only as far as clicks keep their address hashes (at most 30 days).
        _ = try await services.store.write { db in try AffiliateQueries.deleteDeferredClaims(db, before: now - 31 * 86_400_000) }
    }
}
