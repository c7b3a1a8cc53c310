import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// Apple Ads attribution claims, resolved with Apple's AdServices API.
package struct AppleAdsCapability: Capability {
    package init() {}

    package var settings: (any CapabilitySettings.Type)? { AppleAdsSettings.self }

    package var migrations: [Migration] { AppleAdsSchema.migrations }

    package func routes(_ services: ServerServices) -> [Route] {
        services.metrics.declareCounter("linkrunway_apple_ads_answers_total", help: "AdServices answers, by HTTP status.")
        let handlers = AppleAdsHandlers(services: services)
        return [
            Route(.POST, "/v1/claims/apple-ads", .claimAppleAds, use: handlers.claim),
            Route(.GET, "/v1/reports/apple-ads", .appleAdsReport, use: handlers.report),
        ]
    }

    /// Asks AdServices about the claims that are due.
    package func workers(_ services: ServerServices) -> [any Service] { [AppleAdsClaims(services: services, settings: services.appleAds)] }

    package func forget(_ install: InstallReference, _ db: any SQLExecutor) throws -> [String: Int] {
        ["appleAdsClaims": try AppleAdsQueries.deleteClaim(db, appId: install.appId, installId: install.installId)]
    }

    package func export(_ install: InstallReference, _ db: any SQLExecutor, into export: inout InstallExport) throws {
        export.appleAds = try AppleAdsQueries.claim(db, appId: install.appId, installId: install.installId, now: install.now)
    }
}
