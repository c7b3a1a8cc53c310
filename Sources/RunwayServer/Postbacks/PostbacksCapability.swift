import RunwayHTTP
import RunwayStore

/// Conversion schemas, SKAdNetwork and AdAttributionKit postbacks (received, verified, stored, forwarded), and the
/// keys of ad networks that sign impressions.
struct PostbacksCapability: Capability {
    var migrations: [Migration] { PostbacksSchema.migrations }

    func routes(_ services: ServerServices) -> [Route] {
        ConversionSchemas.routes(services) + PostbackReceiver.routes(services) + PostbackRoutes.routes(services) + AdNetworkRoutes.routes(services)
    }

    /// A postback Apple sends again while its first copy is kept stays a duplicate: its key lives as long as the copy.
    func maintain(_ services: ServerServices, policy: RetentionPolicy, now: Int64, report: inout RetentionReport) async throws {
        let cutoff = now - Int64(policy.postbackDays) * 86_400_000
        _ = try await services.store.write { db in try db.execute("DELETE FROM postback_keys WHERE received_at < \(cutoff)") }
    }

    var sealedColumns: [SealedColumn] { [SealedColumn("ad_networks", key: "id", column: "private_key")] }
}
