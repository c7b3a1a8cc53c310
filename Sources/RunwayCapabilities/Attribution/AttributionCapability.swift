import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// Install matching, events, reports and simulated installs.
package struct AttributionCapability: Capability {
    package init() {}

    package var migrations: [Migration] { AttributionSchema.migrations }

    package func routes(_ services: ServerServices) -> [Route] {
        services.metrics.declareCounter("linkrunway_installs_matched_total", help: "Installs given their first answer, by method.")
        services.metrics.declareCounter("linkrunway_app_attest_unsupported_total",
                                        help: "Matches whose SDK found App Attest unsupported on a device that should support it (a fraud signal Apple names).")
        let handlers = AttributionHandlers(services: services)
        return [
            Route(.POST, "/v1/installs/match", .matchInstall, use: handlers.matchInstall),
            Route(.GET, "/v1/installs", .listInstalls, use: handlers.listInstalls),
            Route(.GET, "/v1/installs/{installId}/attribution", .explainInstall, use: handlers.explain),
            Route(.POST, "/v1/impressions", .recordImpression, use: handlers.recordImpression),
            Route(.POST, "/v1/events", .recordEvent, use: handlers.recordEvent),
            Route(.GET, "/v1/events", .listEvents, use: handlers.listEvents),
            Route(.POST, "/v1/events/batch", .recordEvents, use: handlers.recordEvents),
            Route(.GET, "/v1/reports/funnel", .funnelReport, use: handlers.funnel),
            Route(.POST, "/v1/simulate/clicks", .simulateClick, use: handlers.simulateClick),
            Route(.POST, "/v1/simulate/installs", .simulateInstall, use: handlers.simulateInstall),
        ]
    }

    /// The install, its secret, its events and their ids, its claims kept in `click_claims` by earlier versions, and
    /// what the install and its events added to their links' daily figures. The claim on its click goes with the
    /// click, which `LinksCapability.forget` deletes.
    package func forget(_ install: InstallReference, _ db: any SQLExecutor) throws -> [String: Int] {
        let (appId, installId) = (install.appId, install.installId)
        try AttributionRollup.forget(appId: appId, installId: installId, db)
        var counts: [String: Int] = [:]
        counts["eventIds"] = try AttributionQueries.deleteEventIds(db, appId: appId, installId: installId)
        counts["events"] = try AttributionQueries.deleteEvents(db, appId: appId, installId: installId)
        counts["clickClaims"] = try AttributionQueries.deleteClickClaims(db, appId: appId, installId: installId)
        counts["installs"] = try AttributionQueries.deleteInstall(db, appId: appId, installId: installId)
        try AttributionQueries.deleteSecret(db, appId: appId, installId: installId)
        return counts
    }

    /// How the install was attributed, and its events.
    package func export(_ install: InstallReference, _ db: any SQLExecutor, into export: inout InstallExport) throws {
        let record = try AttributionQueries.install(db, appId: install.appId, installId: install.installId)
        export.attribution = try record.map { record in
            let link = try record.linkId.flatMap { try LinkRecord.find(db, id: $0) }
            let explanation = Explanation.decode(record.explanation)
            return AttributionExplanation(match: record.wire(link: link, localPort: install.localPort), settings: explanation?.settings ?? AttributionSettings(),
                                          rules: explanation?.rules ?? [], candidates: explanation?.candidates ?? [],
                                          winner: explanation?.winner, simulated: record.simulated)
        }
        export.events = try AttributionQueries.exportedEvents(db, appId: install.appId, installId: install.installId).map(\.wire)
    }

    /// Address hashes on installs go after their hours, and impressions (kept only for matching by address) with them;
    /// event ids are kept as long as their events, so a late retry of a kept event stays a duplicate.
    package func maintain(_ services: ServerServices, policy: RetentionPolicy, now: Int64, report: inout RetentionReport) async throws {
        let hashCutoff = now - Int64(policy.addressHashHours) * 3_600_000
        report.addressHashesCleared += try await services.store.write { db in
            try AttributionQueries.clearAddressHashes(db, matchedBefore: hashCutoff)
                + AttributionQueries.forgetImpressions(db, createdBefore: hashCutoff)
        }
        let eventCutoff = now - Int64(policy.eventDays) * 86_400_000
        _ = try await services.store.write { db in try AttributionQueries.forgetEventIds(db, receivedBefore: eventCutoff) }
    }
}
