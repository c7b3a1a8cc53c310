import LinkRunwayAPI
import RunwayKit
import RunwayStore

/// The SQL of attribution's routes and of writing events (matching runs its own, in `Matcher`).
enum AttributionQueries {
    /// The installs with id `installId`: of `appId` when given, else within `workspaceId` unless that is nil (every workspace).
    static func installs(_ db: any SQLExecutor, installId: String, appId: String?, workspaceId: String?) throws -> [InstallRecord] {
        if let appId {
            return try db.query("SELECT \(raw: InstallRecord.columns) FROM installs WHERE app_id = \(appId) AND install_id = \(installId)")
                .map(InstallRecord.init(row:))
        }
        let scope: SQL = workspaceId.map { " AND workspace_id = \($0)" } ?? ""
        return try db.query("SELECT \(raw: InstallRecord.columns) FROM installs WHERE install_id = \(installId)\(scope)")
            .map(InstallRecord.init(row:))
    }

    /// An ad shown to a device, kept by a keyed hash of its address for view-through matching.
    static func insertImpression(_ db: any SQLExecutor, id: String, app: App, addressHash hash: String, network: String?, campaign: String?,
                                 at: Int64) throws {
        try db.execute("""
            INSERT INTO impressions (id, app_id, workspace_id, address_hash, network, campaign, created_at)
            VALUES (\(id), \(app.id), \(app.workspaceId), \(hash), \(network), \(campaign), \(at))
            """)
    }

    static func eventIdKnown(_ db: any SQLExecutor, appId: String, eventId: String) throws -> Bool {
        try db.first("SELECT 1 AS one FROM event_ids WHERE app_id = \(appId) AND event_id = \(eventId)") != nil
    }

    /// Takes the install's row lock until the transaction ends.
    static func lockInstall(_ db: any SQLExecutor, appId: String, installId: String) throws {
        try db.execute("UPDATE installs SET platform = platform WHERE app_id = \(appId) AND install_id = \(installId)")
    }

    static func hasInstallEvent(_ db: any SQLExecutor, appId: String, installId: String) throws -> Bool {
        try db.first("SELECT 1 AS one FROM events WHERE app_id = \(appId) AND install_id = \(installId) AND type = 'INSTALL' LIMIT 1") != nil
    }

    /// Claims the app's event id: false when it was stored before.
    static func claimEventId(_ db: any SQLExecutor, appId: String, eventId: String, now: Int64) throws -> Bool {
        try db.execute("INSERT INTO event_ids (app_id, event_id, received_at) VALUES (\(appId), \(eventId), \(now)) ON CONFLICT (app_id, event_id) DO NOTHING") == 1
    }

    static func insertEvent(_ db: any SQLExecutor, _ event: Events.Checked, app: App, attested: Bool, attribution: EventAttribution, now: Int64) throws {
        try db.execute("""
            INSERT INTO events (app_id, event_id, workspace_id, install_id, type, name, user_id, occurred_at, amount, currency, properties,
                                attested, method, link_id, campaign, channel, feature, source, received_at, apple_ads_campaign_id,
                                apple_ads_ad_group_id, apple_ads_keyword_id, click_token, variant, qr)
            VALUES (\(app.id), \(event.eventId), \(app.workspaceId), \(event.installId), \(event.type), \(event.name), \(event.userId),
                    \(event.occurredAt), \(event.amount), \(event.currency), \(event.properties), \(attested), \(attribution.method),
                    \(attribution.linkId), \(attribution.campaign), \(attribution.channel), \(attribution.feature), \(attribution.source), \(now),
                    \(attribution.appleAdsCampaignId), \(attribution.appleAdsAdGroupId), \(attribution.appleAdsKeywordId), \(event.clickToken),
                    \(attribution.variant), \(attribution.qr == true))
            """)
    }
}
