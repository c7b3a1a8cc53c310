import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// Link domains, links, redirects and their clicks, resolving links in apps, shares and referral codes.
package struct LinksCapability: Capability {
    package init() {}

    package var settings: (any CapabilitySettings.Type)? { LinksSettings.self }

    package var migrations: [Migration] { LinksSchema.migrations }

    package func routes(_ services: ServerServices) -> [Route] {
        Clicks.declareMetrics(services.metrics)
        AutomatedVisits.declareMetrics(services.metrics)
        LinkGates.declareMetrics(services.metrics)
        let domains = DomainHandlers(services: services)
        let links = LinkHandlers(services: services)
        let imports = LinkImportHandlers(services: services)
        let client = ClientLinkHandlers(services: services)
        let redirects = RedirectHandlers(services: services)
        let qr = QRHandlers(services: services)
        return [
            Route(.POST, "/v1/domains", .createDomain, use: domains.create),
            Route(.POST, "/v1/domains/{domainId}/verify", .verifyDomain, use: domains.verify),
            Route(.GET, "/v1/domains", .listDomains, use: domains.list),
            Route(.DELETE, "/v1/domains/{domainId}", .deleteDomain, use: domains.delete),

            Route(.POST, "/v1/links", .createLink, use: links.create),
            Route(.POST, "/v1/links/import", .importLinks, use: imports.importLinks),
            Route(.GET, "/v1/links", .listLinks, use: links.list),
            Route(.GET, "/v1/links/{linkId}", .getLink, use: links.get),
            Route(.GET, "/v1/links/{linkId}/stats", .linkStats, use: links.stats),
            Route(.PATCH, "/v1/links/{linkId}", .updateLink, use: links.update),
            Route(.POST, "/v1/links/{linkId}/disable", .disableLink, use: links.disable),
            Route(.GET, "/v1/links/{linkId}/qr.svg", .linkQRSVG, use: qr.svg),
            Route(.GET, "/v1/links/{linkId}/qr.png", .linkQRPNG, use: qr.png),
            Route(.POST, "/v1/qr-logos", .createQRLogo, use: qr.createLogo),
            Route(.GET, "/v1/qr-logos", .listQRLogos, use: qr.listLogos),
            Route(.DELETE, "/v1/qr-logos/{logoId}", .deleteQRLogo, use: qr.deleteLogo),

            Route(.POST, "/v1/resolve", .resolveLink, use: client.resolve),
            Route(.POST, "/v1/shares", .createShare, use: client.createShare),
            Route(.POST, "/v1/referral-codes", .createReferralCode, use: client.createReferralCode),
            Route(.GET, "/v1/referral-codes/{code}", .getReferralCode, use: client.getReferralCode),

            Route(.GET, "/.well-known/apple-app-site-association", .appleAppSiteAssociation, use: redirects.appleAppSiteAssociation),
            Route(.GET, "/apple-app-site-association", .appleAppSiteAssociationRoot, use: redirects.appleAppSiteAssociation),
            Route(.GET, "/.well-known/assetlinks.json", .assetLinks, use: redirects.assetLinks),
            Route(method: .GET, pattern: "/{path...}", operation: .followLink, immediate: redirects.followImmediately, handler: redirects.follow),
        ]
    }

    /// The install's clicks and opens (and the click it was matched to) with what they added to their links' daily
    /// figures, its referral codes; its shares stay, unlinked.
    package func forget(_ install: InstallReference, _ db: any SQLExecutor) throws -> [String: Int] {
        try LinkStatsQueries.forgetClicks(of: install, db)
        var clicks = try LinkQueries.deleteVisits(db, of: install)
        if let token = install.clickToken { clicks += try LinkQueries.deleteClick(db, token: token) }
        return [
            "clicks": clicks,
            "referralCodes": try LinkQueries.deleteReferralCodes(db, of: install),
            "sharesUnlinked": try LinkQueries.unlinkShares(db, of: install),
        ]
    }

    package func export(_ install: InstallReference, _ db: any SQLExecutor, into export: inout InstallExport) throws {
        var visits = try LinkQueries.visits(db, of: install)
        if let token = install.clickToken, let matched = try LinkQueries.visit(db, token: token) {
            visits.insert(matched, at: 0)
        }
        export.visits = visits.map(\.wire)
        export.referralCodes = try LinkQueries.referralCodes(db, of: install)
        export.sharedLinkIds = try LinkQueries.sharedLinkIds(db, of: install)
    }

    /// Address hashes on clicks go after their hours; counts of previews and bots go with the clicks of their days.
    package func maintain(_ services: ServerServices, policy: RetentionPolicy, now: Int64, report: inout RetentionReport) async throws {
        let cutoff = now - Int64(policy.addressHashHours) * 3_600_000
        let firstKeptDay = now / 86_400_000 - Int64(policy.clickDays)
        report.addressHashesCleared += try await services.store.write { db in
            try LinkQueries.deleteAutomatedVisits(db, before: firstKeptDay)
            return try LinkQueries.clearAddressHashes(db, before: cutoff)
        }
    }
}
