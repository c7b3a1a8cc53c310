import LinkRunwayAPI
import RunwayStore

/// The SQL of placements.
enum AdPlacementQueries {
    static func insert(_ db: any SQLExecutor, _ placement: AdPlacement, now: Int64) throws {
        try db.execute("""
            INSERT INTO ad_placements (id, workspace_id, network_id, ad_network_id, app_id, name, advertised_item_id, source_identifier,
                                       publisher_item_id, eligible_for_reengagement, reengagement_url, created_at)
            VALUES (\(placement.id), \(placement.workspaceId), \(placement.networkId), \(placement.adNetworkId), \(placement.appId), \(placement.name),
                    \(placement.advertisedItemId), \(Int64(placement.sourceIdentifier)), \(placement.publisherItemId),
                    \(placement.eligibleForReengagement ? Int64(1) : Int64(0)), \(placement.reengagementUrl), \(now))
            """)
    }

    static func placement(_ db: any SQLExecutor, id: String) throws -> AdPlacement? {
        try db.first("SELECT \(raw: PostbackRows.PlacementRow.columns) FROM ad_placements WHERE id = \(id)", as: PostbackRows.PlacementRow.self)?.wire
    }

    /// The placement with its network's sealed private key, or nil when there is none.
    static func placementWithKey(_ db: any SQLExecutor, id: String) throws -> (placement: AdPlacement, sealedKey: String)? {
        guard let placement = try placement(db, id: id),
              let key = try db.first("SELECT private_key FROM ad_networks WHERE id = \(placement.networkId)", as: PostbackRows.SealedKey.self)
        else { return nil }
        return (placement, key.privateKey)
    }

    static func delete(_ db: any SQLExecutor, id: String) throws {
        try db.execute("DELETE FROM ad_placements WHERE id = \(id)")
    }
}
