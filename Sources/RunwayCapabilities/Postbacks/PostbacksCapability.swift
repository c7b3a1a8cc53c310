import RunwayHTTP
import RunwayKit
import RunwayStore

/// Conversion schemas, SKAdNetwork and AdAttributionKit postbacks (received, verified, stored, forwarded), the
/// keys of ad networks that sign impressions, and their placements, whose impressions publisher apps fetch.
package struct PostbacksCapability: Capability {
    package init() {}

    package var migrations: [Migration] { PostbacksSchema.migrations }

    package func routes(_ services: ServerServices) -> [Route] {
        services.metrics.declareCounter("linkrunway_postbacks_total", help: "Postbacks received, by framework and status.")
        services.metrics.declareCounter("linkrunway_postback_forwards_total", help: "Postback forwarding attempts, by the status they left.")
        let handlers = PostbackHandlers(services: services), plist = InfoPlistHandlers(services: services)
        let placements = AdPlacementHandlers(services: services)
        return [
            Route(.PUT, "/v1/apps/{appId}/conversion-schema", .setConversionSchema, use: handlers.setSchema),
            Route(.GET, "/v1/apps/{appId}/conversion-schema", .getConversionSchema, use: handlers.schema),
            Route(.GET, "/v1/apps/{appId}/conversion-schema/versions", .listConversionSchemas, use: handlers.schemaVersions),
            Route(.GET, "/v1/mobile/config/{appId}", .mobileConfig, use: handlers.mobileConfig),
            Route(.POST, "/.well-known/skadnetwork/report-attribution/", .receiveSKAdNetworkPostback, use: handlers.receiveSKAdNetwork),
            Route(.POST, "/.well-known/appattribution/report-attribution/", .receiveAdAttributionKitPostback, use: handlers.receiveAdAttributionKit),
            Route(.GET, "/v1/postbacks", .listPostbacks, use: handlers.list),
            Route(.GET, "/v1/reports/postbacks", .postbackReport, use: handlers.report),
            Route(.POST, "/v1/ad-networks", .createAdNetwork, use: handlers.createAdNetwork),
            Route(.GET, "/v1/ad-networks", .listAdNetworks, use: handlers.listAdNetworks),
            Route(.POST, "/v1/ad-networks/{networkId}/impressions", .signImpression, use: handlers.signImpression),
            Route(.POST, "/v1/ad-networks/{networkId}/placements", .createAdPlacement, use: placements.create),
            Route(.GET, "/v1/ad-networks/{networkId}/placements", .listAdPlacements, use: placements.list),
            Route(.DELETE, "/v1/ad-placements/{placementId}", .deleteAdPlacement, use: placements.delete),
            Route(.POST, "/v1/ad-placements/{placementId}/impressions", .placementImpression, use: placements.impression),
            Route(.GET, "/v1/apps/{appId}/ad-attribution", .getAdAttributionSettings, use: plist.settings),
            Route(.PUT, "/v1/apps/{appId}/ad-attribution", .setAdAttributionSettings, use: plist.setSettings),
            Route(.GET, "/v1/apps/{appId}/info-plist", .infoPlistFragment, use: plist.fragment),
            Route(.POST, "/v1/info-plist/check", .checkInfoPlist, use: plist.check),
        ]
    }

    /// Sends the postbacks it received, as Apple sent them, on to the app's forwarding URLs.
    package func workers(_ services: ServerServices) -> [any Service] {
        [OutboxDispatcher(services: services, queue: PostbackReceiver.forwardOutbox)]
    }

    /// A postback Apple sends again while its first copy is kept stays a duplicate: its key lives as long as the copy.
    package func maintain(_ services: ServerServices, policy: RetentionPolicy, now: Int64, report: inout RetentionReport) async throws {
        let cutoff = now - Int64(policy.postbackDays) * 86_400_000
        try await services.store.write { db in try PostbackQueries.forgetKeys(db, receivedBefore: cutoff) }
    }

    package var sealedColumns: [SealedColumn] { [SealedColumn("ad_networks", key: "id", column: "private_key")] }
}
