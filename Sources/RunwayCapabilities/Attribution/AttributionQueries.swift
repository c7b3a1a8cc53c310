import LinkRunwayAPI
import RunwayKit
import RunwayStore

/// The SQL of attribution's routes, of writing events and of forgetting installs (matching's is in `MatchQueries`, the
/// funnel report's in `FunnelReportQueries`).
enum AttributionQueries {
    /// The installs with id `installId`: of `appId` when given, else within `workspaceId` unless that is nil (every workspace).
    static func installs(_ db: any SQLExecutor, installId: String, appId: String?, workspaceId: String?) throws -> [InstallRecord] {
        if let appId {
            return try db.query("SELECT \(raw: InstallRecord.columns) FROM installs WHERE app_id = \(appId) AND install_id = \(installId)",
                                as: InstallRecord.self)
        }
        let scope: SQL = workspaceId.map { " AND workspace_id = \($0)" } ?? ""
        return try db.query("SELECT \(raw: InstallRecord.columns) FROM installs WHERE install_id = \(installId)\(scope)", as: InstallRecord.self)
    }

    /// The install's stored answer, if it has one.
    static func install(_ db: any SQLExecutor, appId: String, installId: String) throws -> InstallRecord? {
        try db.first("SELECT \(raw: InstallRecord.columns) FROM installs WHERE app_id = \(appId) AND install_id = \(installId)", as: InstallRecord.self)
    }

    /// What the install's events are written with.
    static func eventInstall(_ db: any SQLExecutor, appId: String, installId: String) throws -> EventInstall? {
        try db.first("SELECT \(raw: EventInstall.columns) FROM installs WHERE app_id = \(appId) AND install_id = \(installId)", as: EventInstall.self)
    }

    /// Stores the install's answer unless another request stored this install first; true when this one did.
    static func insertInstall(_ db: any SQLExecutor, _ record: InstallRecord) throws -> Bool {
        try db.execute("""
            INSERT INTO installs (\(raw: InstallRecord.columns))
            VALUES (\(record.appId), \(record.installId), \(record.workspaceId), \(record.platform), \(record.osVersion), \(record.language), \(record.method), \(record.confidence),
                    \(record.clickToken), \(record.impressionId), \(record.linkId), \(record.campaign), \(record.channel), \(record.feature), \(record.source), \(record.addressHash),
                    \(record.explanation), \(record.simulated), \(record.matchedAt), \(record.appleAdsCampaignId), \(record.appleAdsAdGroupId), \(record.appleAdsKeywordId), \(record.attested),
                    \(record.appTransactionId), \(record.variant), \(record.qr), \(record.storeTypes), \(record.appAttestSupported.map { $0 ? 1 : 0 } as Int?))
            ON CONFLICT (app_id, install_id) DO NOTHING
            """) == 1
    }

    /// Installs of the list's page, newest first: those that `conditions` (each one ` AND …`) keep, in `order`, at most `limit`.
    static func listedInstalls(_ db: any SQLExecutor, conditions: SQL, order: NewestFirst, limit: Int) throws -> [InstallRecord] {
        try db.query("SELECT \(raw: InstallRecord.columns) FROM installs WHERE 1 = 1\(conditions)\(order.order) LIMIT \(limit)",
                     as: InstallRecord.self)
    }

    /// An ad shown to a device, kept by a keyed hash of its address for view-through matching.
    static func insertImpression(_ db: any SQLExecutor, id: String, app: App, addressHash hash: String, network: String?, campaign: String?,
                                 at: Int64) throws {
        try db.execute("""
            INSERT INTO impressions (id, app_id, workspace_id, address_hash, network, campaign, created_at)
            VALUES (\(id), \(app.id), \(app.workspaceId), \(hash), \(network), \(campaign), \(at))
            """)
    }

    /// Whether the app stored an event with this id. On SQLite the events' own primary key (app id, event id, time)
    /// answers; on PostgreSQL, whose partitioned events cannot hold a unique index without the time, `event_ids` does.
    static func eventIdKnown(_ db: any SQLExecutor, appId: String, eventId: String) throws -> Bool {
        if db.dialect == .sqlite {
            return try db.first("SELECT 1 AS one FROM events WHERE app_id = \(appId) AND event_id = \(eventId) LIMIT 1") != nil
        }
        return try db.first("SELECT 1 AS one FROM event_ids WHERE app_id = \(appId) AND event_id = \(eventId)") != nil
    }

    /// Takes the install's row lock until the transaction ends.
    static func lockInstall(_ db: any SQLExecutor, appId: String, installId: String) throws {
        try db.execute("UPDATE installs SET platform = platform WHERE app_id = \(appId) AND install_id = \(installId)")
    }

    static func hasInstallEvent(_ db: any SQLExecutor, appId: String, installId: String) throws -> Bool {
        try db.first("SELECT 1 AS one FROM events WHERE app_id = \(appId) AND install_id = \(installId) AND type = 'INSTALL' LIMIT 1") != nil
    }

    /// Claims the app's event id: false when it was stored before. On SQLite, whose writes hold its one write lock
    /// until they commit, an id not among the stored events is claimed by the event the caller then stores.
    static func claimEventId(_ db: any SQLExecutor, appId: String, eventId: String, now: Int64) throws -> Bool {
        if db.dialect == .sqlite { return try !eventIdKnown(db, appId: appId, eventId: eventId) }
        return try db.execute("INSERT INTO event_ids (app_id, event_id, received_at) VALUES (\(appId), \(eventId), \(now)) ON CONFLICT (app_id, event_id) DO NOTHING") == 1
    }

    static func insertEvent(_ db: any SQLExecutor, _ event: EventWriter.Ready, now: Int64) throws {
        try insertEvents(db, [event], now: now)
    }

    /// The columns of an event row, in the order `eventRow` gives its values.
    static let eventRows = InsertTarget(table: "events", columns: [
        "app_id", "event_id", "workspace_id", "install_id", "type", "name", "user_id", "occurred_at", "amount", "currency", "properties",
        "attested", "method", "link_id", "campaign", "channel", "feature", "source", "received_at", "apple_ads_campaign_id",
        "apple_ads_ad_group_id", "apple_ads_keyword_id", "click_token", "variant", "qr",
    ])

    static func insertEvents(_ db: any SQLExecutor, _ events: [EventWriter.Ready], now: Int64) throws {
        try db.insert(eventRows, rows: events.map { ready in
            let event = ready.event, attribution = ready.attribution
            return [.text(ready.app.id), .text(event.eventId), .text(ready.app.workspaceId), .text(event.installId), .text(event.type), event.name.sqlValue,
                    event.userId.sqlValue, .integer(event.occurredAt), event.amount.sqlValue, event.currency.sqlValue, event.properties.sqlValue,
                    ready.attested.sqlValue, .text(attribution.method), attribution.linkId.sqlValue, attribution.campaign.sqlValue,
                    attribution.channel.sqlValue, attribution.feature.sqlValue, .text(attribution.source), .integer(now),
                    attribution.appleAdsCampaignId.sqlValue, attribution.appleAdsAdGroupId.sqlValue, attribution.appleAdsKeywordId.sqlValue,
                    event.clickToken.sqlValue, attribution.variant.sqlValue, (attribution.qr == true).sqlValue]
        })
    }

    /// Which event ids a batch claimed.
    enum EventIdClaims {
        /// The ids claimed are these.
        case only(Set<Key>)
        /// Every id was claimed but these (stored before).
        case allBut(Set<Key>)

        /// An app's event id, hashed as two strings rather than joined into a new one.
        struct Key: Hashable {
            let appId: String
            let eventId: String
        }

        func claimed(_ key: Key) -> Bool {
            switch self {
            case .only(let claimed): claimed.contains(key)
            case .allBut(let stored): !stored.contains(key)
            }
        }
    }

    static let eventIdClaims = InsertTarget(table: "event_ids", columns: ["app_id", "event_id", "received_at"],
                                            then: "ON CONFLICT (app_id, event_id) DO NOTHING RETURNING app_id, event_id")

    /// Claims the apps' event ids at once (see `claimEventId`).
    static func claimEventIds(_ db: any SQLExecutor, _ ids: [(appId: String, eventId: String)], now: Int64) throws -> EventIdClaims {
        if db.dialect == .sqlite {
            var stored = Set<EventIdClaims.Key>()
            for (appId, eventIds) in Dictionary(grouping: ids, by: \.appId) {
                for range in StatementChunks.ranges(count: eventIds.count) {
                    // trap-safe: the ranges lie within 0..<eventIds.count
                    let chunk = eventIds[range].lazy.map(\.eventId)
                    for row in try db.query("SELECT event_id FROM events WHERE app_id = \(appId) AND event_id IN (\(SQL.list(chunk)))") {
                        stored.insert(EventIdClaims.Key(appId: appId, eventId: try row.string("event_id")))
                    }
                }
            }
            return .allBut(stored)
        }
        let rows = try db.insert(eventIdClaims, rows: ids.map { [.text($0.appId), .text($0.eventId), .integer(now)] })
        return .only(Set(try rows.map { row in
            let claimed = try row.decode(AttributionRows.EventId.self)
            return EventIdClaims.Key(appId: claimed.appId, eventId: claimed.eventId)
        }))
    }

    /// The install's secret's hash, when it has one.
    static func secretHash(_ db: any SQLExecutor, appId: String, installId: String) throws -> String? {
        try db.first("SELECT secret_hash FROM install_secrets WHERE app_id = \(appId) AND install_id = \(installId)", as: AttributionRows.SecretHash.self)?
            .secretHash
    }

    /// Keeps `hash` as the hash of the install's secret, unless the install already has one.
    static func keepSecret(_ db: any SQLExecutor, appId: String, installId: String, hash: String, now: Int64) throws {
        try db.execute("""
            INSERT INTO install_secrets (app_id, install_id, secret_hash, created_at) VALUES (\(appId), \(installId), \(hash), \(now))
            ON CONFLICT (app_id, install_id) DO NOTHING
            """)
    }

    /// The condition that an event `e`'s install is simulated.
    static let simulatedInstall: SQL = "EXISTS (SELECT 1 FROM installs s WHERE s.app_id = e.app_id AND s.install_id = e.install_id AND s.simulated = \(true))"

    /// Events of the list's page, each with whether its install is simulated: those that `conditions` (each one
    /// ` AND …`, naming the events `e`) keep, in `order`, at most `limit`.
    static func listedEvents(_ db: any SQLExecutor, conditions: SQL, order: NewestFirst, limit: Int) throws -> [AttributionRows.ListedEvent] {
        try db.query("""
            SELECT e.event_id, e.app_id, e.install_id, e.type, e.name, e.amount, e.currency, e.source, e.campaign, e.occurred_at, e.received_at,
                   CASE WHEN \(simulatedInstall) THEN 1 ELSE 0 END AS simulated
            FROM events e WHERE 1 = 1\(conditions)\(order.order) LIMIT \(limit)
            """, as: AttributionRows.ListedEvent.self)
    }

    /// The install's events that count in a link's figures.
    static func linkedEvents(_ db: any SQLExecutor, appId: String, installId: String) throws -> [AttributionRows.RolledUpEvent] {
        try db.query("""
            SELECT type, amount, currency, link_id, received_at, variant, qr FROM events
            WHERE app_id = \(appId) AND install_id = \(installId) AND link_id IS NOT NULL
            """, as: AttributionRows.RolledUpEvent.self)
    }

    /// The install's events, in the order they happened, for its data export.
    static func exportedEvents(_ db: any SQLExecutor, appId: String, installId: String) throws -> [AttributionRows.ExportedEvent] {
        try db.query("""
            SELECT \(raw: AttributionRows.ExportedEvent.columns)
            FROM events WHERE app_id = \(appId) AND install_id = \(installId) ORDER BY occurred_at, event_id
            """, as: AttributionRows.ExportedEvent.self)
    }

    /// Deletes the ids of the install's events, so they may be sent again: how many went. On SQLite the ids are the
    /// events' own and go with them (`deleteEvents`): how many will.
    static func deleteEventIds(_ db: any SQLExecutor, appId: String, installId: String) throws -> Int {
        if db.dialect == .sqlite {
            return try db.first("SELECT COUNT(*) AS n FROM events WHERE app_id = \(appId) AND install_id = \(installId)").map { Int(try $0.int("n")) } ?? 0
        }
        return try db.execute("""
            DELETE FROM event_ids WHERE app_id = \(appId) AND event_id IN (SELECT event_id FROM events WHERE app_id = \(appId) AND install_id = \(installId))
            """)
    }

    /// Deletes the install's events: how many went.
    static func deleteEvents(_ db: any SQLExecutor, appId: String, installId: String) throws -> Int {
        try db.execute("DELETE FROM events WHERE app_id = \(appId) AND install_id = \(installId)")
    }

    /// Deletes the install's rows in `click_claims`, where claims were kept before migration 0070 (and where servers
    /// of earlier versions keep them during a rolling upgrade): how many went.
    static func deleteClickClaims(_ db: any SQLExecutor, appId: String, installId: String) throws -> Int {
        try db.execute("DELETE FROM click_claims WHERE app_id = \(appId) AND install_id = \(installId)")
    }

    /// Deletes the install's stored answer: how many rows went (one or none).
    static func deleteInstall(_ db: any SQLExecutor, appId: String, installId: String) throws -> Int {
        try db.execute("DELETE FROM installs WHERE app_id = \(appId) AND install_id = \(installId)")
    }

    /// Deletes the install's secret's hash.
    static func deleteSecret(_ db: any SQLExecutor, appId: String, installId: String) throws {
        try db.execute("DELETE FROM install_secrets WHERE app_id = \(appId) AND install_id = \(installId)")
    }

    /// Clears the address hashes of installs matched before `cutoff`: how many it cleared.
    static func clearAddressHashes(_ db: any SQLExecutor, matchedBefore cutoff: Int64) throws -> Int {
        try db.execute("UPDATE installs SET address_hash = NULL WHERE address_hash IS NOT NULL AND matched_at < \(cutoff)")
    }

    /// Deletes the impressions recorded before `cutoff`: how many went.
    static func forgetImpressions(_ db: any SQLExecutor, createdBefore cutoff: Int64) throws -> Int {
        try db.execute("DELETE FROM impressions WHERE created_at < \(cutoff)")
    }

    /// Deletes the event ids received before `cutoff` (their events are gone): how many went. On SQLite they went
    /// with their events.
    static func forgetEventIds(_ db: any SQLExecutor, receivedBefore cutoff: Int64) throws -> Int {
        if db.dialect == .sqlite { return 0 }
        return try db.execute("DELETE FROM event_ids WHERE received_at < \(cutoff)")
    }
}
