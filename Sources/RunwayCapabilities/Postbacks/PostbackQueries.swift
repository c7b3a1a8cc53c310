import AppleFormats
import LinkRunwayAPI
import RunwayJSON
import RunwayKit
import RunwayStore

/// The SQL of the postbacks capability's routes: conversion schemas, received postbacks and ad networks.
enum PostbackQueries {
    /// Stores `document` as the app's next schema version and returns that version.
    static func insertSchema(_ db: any SQLExecutor, appId: String, document: String, now: Int64) throws -> Int64 {
        let next = (try db.first("SELECT MAX(version) AS v FROM conversion_schemas WHERE app_id = \(appId)", as: PostbackRows.NewestVersion.self)?.v ?? 0) + 1
        try db.execute("""
            INSERT INTO conversion_schemas (app_id, version, document, created_at) VALUES (\(appId), \(next), \(document), \(now))
            """)
        return next
    }

    /// The app's newest 100 schema versions, newest first.
    static func schemaVersions(_ db: any SQLExecutor, appId: String) throws -> [ConversionSchema] {
        try db.query("""
            SELECT \(raw: PostbackRows.Schema.columns) FROM conversion_schemas WHERE app_id = \(appId) ORDER BY version DESC LIMIT 100
            """, as: PostbackRows.Schema.self).map { try $0.wire(appId: appId) }
    }

    /// The app's newest schema version.
    static func latestSchema(_ db: any SQLExecutor, appId: String) throws -> ConversionSchema? {
        try db.first("""
            SELECT \(raw: PostbackRows.Schema.columns) FROM conversion_schemas WHERE app_id = \(appId) ORDER BY version DESC LIMIT 1
            """, as: PostbackRows.Schema.self)?.wire(appId: appId)
    }

    /// The app's newest schema version created at or before `cutoff`, else its oldest.
    static func schemaInForce(_ db: any SQLExecutor, appId: String, cutoff: Int64) throws -> ConversionSchema? {
        let columns = PostbackRows.Schema.columns
        let inForce = try db.first("""
            SELECT \(raw: columns) FROM conversion_schemas WHERE app_id = \(appId) AND created_at <= \(cutoff) ORDER BY version DESC LIMIT 1
            """, as: PostbackRows.Schema.self)
        let schema = try inForce ?? db.first("""
            SELECT \(raw: columns) FROM conversion_schemas WHERE app_id = \(appId) ORDER BY version LIMIT 1
            """, as: PostbackRows.Schema.self)
        return try schema?.wire(appId: appId)
    }

    /// How many invalid postbacks of the scope are kept for `day`, counting up to `limit`.
    static func invalidSampled(_ db: any SQLExecutor, workspaceId: String?, day: Int64, limit: Int) throws -> Int64 {
        let scopeFilter: SQL = workspaceId.map { "workspace_id = \($0)" } ?? "workspace_id IS NULL"
        return try db.count("""
            SELECT COUNT(*) AS n FROM (SELECT 1 AS one FROM postbacks WHERE \(scopeFilter) AND status = 'invalid'
            AND received_at >= \(day * 86_400_000) AND received_at < \((day + 1) * 86_400_000) LIMIT \(Int64(limit))) sample
            """)
    }

    /// Counts an invalid postback past the day's sample.
    static func countRejection(_ db: any SQLExecutor, scope: String, day: Int64, framework: PostbackVerdict.Framework, reason: String) throws {
        try db.execute("""
            INSERT INTO postback_rejections (scope, day, framework, reason, count) VALUES (\(scope), \(day), \(framework.rawValue), \(reason), 1)
            ON CONFLICT (scope, day, framework, reason) DO UPDATE SET count = postback_rejections.count + 1
            """)
    }

    /// Claims a postback's de-duplication key for `postbackId`: false when another postback holds it.
    static func claimKey(_ db: any SQLExecutor, scope: String, key: String, postbackId id: String, now: Int64) throws -> Bool {
        try db.execute("""
            INSERT INTO postback_keys (scope, dedup_key, postback_id, received_at) VALUES (\(scope), \(key), \(id), \(now))
            ON CONFLICT (scope, dedup_key) DO NOTHING
            """) == 1
    }

    /// The de-duplication key `postbackId` holds, if any.
    static func dedupKey(_ db: any SQLExecutor, postbackId id: String) throws -> String? {
        try db.first("SELECT dedup_key FROM postback_keys WHERE postback_id = \(id)", as: PostbackRows.DedupKey.self)?.dedupKey
    }

    /// Forgets the keys of postbacks received before `cutoff` (their copies are gone).
    static func forgetKeys(_ db: any SQLExecutor, receivedBefore cutoff: Int64) throws {
        try db.execute("DELETE FROM postback_keys WHERE received_at < \(cutoff)")
    }

    /// Whether a postback already holds `key` in `scope`.
    static func hasKey(_ db: any SQLExecutor, scope: String, key: String) throws -> Bool {
        try db.first("SELECT 1 AS found FROM postback_keys WHERE scope = \(scope) AND dedup_key = \(key)") != nil
    }

    /// Stores one received postback with its verdict and what it decodes to.
    static func insertPostback(_ db: any SQLExecutor, id: String, now: Int64, framework: PostbackVerdict.Framework, hostname: String?,
                               workspaceId: String?, appId: String?, body: [UInt8], status: String, verdict: PostbackVerdict,
                               environment: String, campaign: String?, tier: String?, schemaVersion: Int?, decoded: String?) throws {
        let fields = verdict.fields
        let clip = PostbackReceiver.clip
        // What Apple withheld is known only of a verified postback; an invalid one's fields may be anyone's.
        let lacks = verdict.valid ? PostbackTierFields(verdict) : PostbackTierFields()
        try db.execute("""
            INSERT INTO postbacks (id, received_at, framework, host, workspace_id, app_id, body, status, reason, detail, version, kid,
                environment, ad_network_id, campaign_id, source_identifier, campaign, app_store_id, transaction_id, sequence_index,
                did_win, redownload, conversion_type, fidelity_type, source_app_id, source_domain, fine_value, coarse_value,
                country_code, interaction_type, tier, schema_version, decoded, marketplace, lacks_country, lacks_marketplace,
                lacks_source_digits, lacks_publisher)
            VALUES (\(id), \(now), \(framework.rawValue), \(hostname), \(workspaceId), \(appId), \(body), \(status), \(verdict.reason),
                \(verdict.detail), \(verdict.version), \(verdict.kid), \(environment), \(fields.adNetworkId.map(clip)),
                \(fields.campaignId.map(clip)), \(fields.sourceIdentifier.map(clip)), \(campaign), \(fields.appStoreId.map(clip)),
                \(fields.transactionId.map(clip)), \(fields.sequenceIndex), \(fields.didWin), \(fields.redownload),
                \(fields.conversionType.map(clip)), \(fields.fidelityType), \(fields.sourceAppId.map(clip)), \(fields.sourceDomain.map(clip)),
                \(fields.fineValue), \(fields.coarseValue.map(clip)), \(fields.countryCode.map(clip)), \(fields.interactionType.map(clip)),
                \(tier), \(schemaVersion), \(decoded), \(fields.marketplace.map(clip)), \(lacks.countryCode), \(lacks.marketplace),
                \(lacks.sourceIdentifierDigits), \(lacks.publisher))
            """)
    }

    /// Queues the postback's raw body for one of the app's forwarding URLs.
    static func queueForward(_ db: any SQLExecutor, postbackId id: String, appId: String, url: String, body: [UInt8], now: Int64) throws {
        try db.execute("""
            INSERT INTO postback_forwards (id, postback_id, app_id, url, body, status, attempts, next_attempt_at, created_at)
            VALUES (\(Identifier.make("pbf")), \(id), \(appId), \(url), \(body), 'pending', 0, \(now), \(now))
            """)
    }

    /// The verified (and duplicate) postbacks of `appStoreId` kept unrouted, or routed to `previous`, oldest first.
    static func unrouted(_ db: any SQLExecutor, appStoreId: String, ownedBy previous: String?, limit: Int64) throws -> [PostbackRows.Unrouted] {
        let owners: SQL = previous.map { "(app_id IS NULL OR app_id = \($0))" } ?? "app_id IS NULL"
        return try db.query("""
            SELECT \(raw: PostbackRows.Unrouted.columns)
            FROM postbacks WHERE app_store_id = \(appStoreId) AND status IN ('valid', 'duplicate') AND \(owners)
            ORDER BY received_at, id LIMIT \(limit)
            """, as: PostbackRows.Unrouted.self)
    }

    /// Gives a postback to `app`, with what its schema and campaigns make of it.
    static func route(_ db: any SQLExecutor, postbackId id: String, to app: App, status: String, campaign: String?, schemaVersion: Int64?,
                      decoded: String?) throws {
        try db.execute("""
            UPDATE postbacks SET app_id = \(app.id), workspace_id = \(app.workspaceId), status = \(status), campaign = \(campaign),
                schema_version = \(schemaVersion), decoded = \(decoded)
            WHERE id = \(id)
            """)
    }

    /// Forwards due now that no server holds, soonest first.
    static func dueForwards(_ db: any SQLExecutor, now: Int64, limit: Int) throws -> [PostbackRows.Forward] {
        try db.query("""
            SELECT id, postback_id, url, body, attempts FROM postback_forwards
            WHERE status = 'pending' AND next_attempt_at <= \(now) AND (lease_until IS NULL OR lease_until < \(now))
            ORDER BY next_attempt_at LIMIT \(Int64(limit))
            """, as: PostbackRows.Forward.self)
    }

    /// One page of postbacks, newest first, plus one more when there is a next page.
    static func postbacks(_ db: any SQLExecutor, workspaceFilter: SQL, appId: String?, status: String?, environment: String? = nil,
                          cursor: String?, limit: Int) throws -> [StoredPostback] {
        var clauses = workspaceFilter
        if let appId { clauses = clauses + " AND app_id = \(appId)" }
        if let status { clauses = clauses + " AND status = \(status)" }
        if let environment { clauses = clauses + " AND environment = \(environment)" }
        let filter = clauses
        let cursor: SQL = cursor.map { " AND (received_at, id) < (SELECT received_at, id FROM postbacks WHERE id = \($0))" } ?? ""
        return try db.query("""
            SELECT \(raw: PostbackRows.Stored.columns) FROM postbacks WHERE 1 = 1\(filter)\(cursor) ORDER BY received_at DESC, id DESC
            LIMIT \(limit + 1)
            """, as: PostbackRows.Stored.self).map(\.wire)
    }

    /// The report's postbacks in `scope`, counted by `key` (SQL, `PostbackReports.key`) and what the counts tell apart.
    static func reportGroups(_ db: any SQLExecutor, scope: SQL, key: String) throws -> [PostbackRows.ReportGroup] {
        try db.query("""
            SELECT \(raw: key) AS k, status, did_win, sequence_index, conversion_type, redownload,
                   CASE WHEN fine_value IS NOT NULL THEN 1 ELSE 0 END AS has_fine,
                   CASE WHEN coarse_value IS NOT NULL THEN 1 ELSE 0 END AS has_coarse, COUNT(*) AS n
            FROM postbacks WHERE \(scope)
            GROUP BY \(raw: key), status, did_win, sequence_index, conversion_type, redownload,
                     CASE WHEN fine_value IS NOT NULL THEN 1 ELSE 0 END, CASE WHEN coarse_value IS NOT NULL THEN 1 ELSE 0 END
            """, as: PostbackRows.ReportGroup.self)
    }

    /// The workspace's invalid postbacks past each day's sample from `fromDay` to `toDay`, by day (`byDay`) or by
    /// framework.
    static func rejectionCounts(_ db: any SQLExecutor, workspaceId: String, byDay: Bool, fromDay: Int64, toDay: Int64) throws
        -> [PostbackRows.RejectionCount] {
        let key = byDay ? "day" : "framework"
        return try db.query("""
            SELECT \(raw: key) AS k, SUM(count) AS n FROM postback_rejections
            WHERE scope = \(workspaceId) AND day >= \(fromDay) AND day <= \(toDay)
            GROUP BY \(raw: key)
            """, as: PostbackRows.RejectionCount.self)
    }

    /// Per group of `key`, the verified postbacks in `scope` lacking each tier-controlled field, out of those that could.
    static func missingFieldSums(_ db: any SQLExecutor, scope: SQL, key: String) throws -> [PostbackRows.MissingFieldSums] {
        let sums = PostbackReports.tierColumns.map(\.column).map { "SUM(\($0)) AS \($0)_missing, COUNT(\($0)) AS \($0)_of" }
        return try db.query("""
            SELECT \(raw: key) AS k, \(raw: sums.joined(separator: ", ")) FROM postbacks WHERE \(scope) AND status = 'valid' GROUP BY \(raw: key)
            """, as: PostbackRows.MissingFieldSums.self)
    }

    /// The app's AdAttributionKit settings, or nil while it has none.
    static func adAttributionSettings(_ db: any SQLExecutor, appId: String) throws -> AdAttributionSettings? {
        guard let text = try db.first("SELECT document FROM ad_attribution_settings WHERE app_id = \(appId)", as: PostbackRows.Document.self)?.document
        else { return nil }
        do {
            return try StrictJSONDecoder().decode(AdAttributionSettings.self, from: Array(text.utf8))
        } catch {
            throw StoreError.corrupt("an app's AdAttributionKit settings are unreadable")
        }
    }

    /// Replaces the app's AdAttributionKit settings.
    static func setAdAttributionSettings(_ db: any SQLExecutor, appId: String, document: String, now: Int64) throws {
        try db.execute("""
            INSERT INTO ad_attribution_settings (app_id, document, updated_at) VALUES (\(appId), \(document), \(now))
            ON CONFLICT (app_id) DO UPDATE SET document = excluded.document, updated_at = excluded.updated_at
            """)
    }

    /// The workspace's ad network ids, oldest first.
    static func adNetworkIds(_ db: any SQLExecutor, workspaceId: String) throws -> [String] {
        try db.query("SELECT ad_network_id FROM ad_networks WHERE workspace_id = \(workspaceId) ORDER BY created_at, id",
                     as: PostbackRows.AdNetworkIdRow.self).map(\.adNetworkId)
    }

    static func insertAdNetwork(_ db: any SQLExecutor, _ network: AdNetwork, sealedKey: String, now: Int64) throws {
        try db.execute("""
            INSERT INTO ad_networks (id, workspace_id, ad_network_id, private_key, public_key, created_at)
            VALUES (\(network.id), \(network.workspaceId), \(network.adNetworkId), \(sealedKey), \(network.publicKey), \(now))
            """)
    }

    static func adNetwork(_ db: any SQLExecutor, id: String) throws -> AdNetwork? {
        try db.first("SELECT \(raw: PostbackRows.AdNetworkRow.columns) FROM ad_networks WHERE id = \(id)", as: PostbackRows.AdNetworkRow.self)?.wire
    }

    /// Ad network `id` with its sealed private key, or nil when there is none.
    static func adNetworkWithKey(_ db: any SQLExecutor, id: String) throws -> (network: AdNetwork, sealedKey: String)? {
        guard let row = try db.first("SELECT \(raw: PostbackRows.AdNetworkRow.columns), private_key FROM ad_networks WHERE id = \(id)")
        else { return nil }
        return (try row.decode(PostbackRows.AdNetworkRow.self).wire, try row.decode(PostbackRows.SealedKey.self).privateKey)
    }
}
