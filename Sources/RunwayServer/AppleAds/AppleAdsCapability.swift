import LinkRunwayAPI
import RunwayHTTP
import RunwayStore

/// Apple Ads attribution claims, resolved with Apple's AdServices API.
struct AppleAdsCapability: Capability {
    var migrations: [Migration] { AppleAdsSchema.migrations }

    func routes(_ services: ServerServices) -> [Route] { AppleAdsRoutes.routes(services) }

    func forget(_ install: InstallReference, _ db: any SQLExecutor) throws -> [String: Int] {
        ["appleAdsClaims": try db.execute("DELETE FROM apple_ads_claims WHERE app_id = \(install.appId) AND install_id = \(install.installId)")]
    }

    func export(_ install: InstallReference, _ db: any SQLExecutor, into export: inout InstallExport) throws {
        export.appleAds = try db.first("""
            SELECT \(raw: AppleAdsClaims.columns) FROM apple_ads_claims WHERE app_id = \(install.appId) AND install_id = \(install.installId)
            """).map { try AppleAdsClaims.wire($0, now: install.now) }
    }
}
