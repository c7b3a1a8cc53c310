import AppleFormats
import LinkRunwayAPI
import RunwayJSON
import RunwayKit
import RunwayStore

/// The SQL of the postbacks capability's routes: conversion schemas, received postbacks and ad networks.
enum PostbackQueries {
    static let postbackColumns = """
        id, received_at, framework, app_id, status, reason, detail, version, kid, environment, ad_network_id, campaign_id,
        source_identifier, campaign, app_store_id, transaction_id, sequence_index, did_win, redownload, conversion_type,
        fidelity_type, source_app_id, source_domain, fine_value, coarse_value, country_code, interaction_type, tier,
        schema_version, decoded, marketplace
        """
    static let adNetworkColumns = "id, workspace_id, ad_network_id, public_key, created_at"

    /// Stores `document` as the app's next schema version and returns that version.
    static func insertSchema(_ db: any SQLExecutor, appId: String, document: String, now: Int64) throws -> Int64 {
        let next = (try db.first("SELECT MAX(version) AS v FROM conversion_schemas WHERE app_id = \(appId)")?.optionalInt("v") ?? 0) + 1
        try db.execute("""
            INSERT INTO conversion_schemas (app_id, version, document, created_at) VALUES (\(appId), \(next), \(document), \(now))
            """)
        return next
    }

    /// The app's newest 100 schema versions, newest first.
    static func schemaVersions(_ db: any SQLExecutor, appId: String) throws -> [ConversionSchema] {
        try db.query("SELECT version, document, created_at FROM conversion_schemas WHERE app_id = \(appId) ORDER BY version DESC LIMIT 100")
            .map { try ConversionSchemas.schema($0, appId: appId) }
    }

    /// How many invalid postbacks of the scope are kept for `day`, counting up to `limit`.
    static func invalidSampled(_ db: any SQLExecutor, workspaceId: String?, day: Int64, limit: Int) throws -> Int64 {
        let scopeFilter: SQL = workspaceId.map { "workspace_id = \($0)" } ?? "workspace_id IS NULL"
        return try db.first("""
            SELECT COUNT(*) AS n FROM (SELECT 1 AS one FROM postbacks WHERE \(scopeFilter) AND status = 'invalid'
            AND received_at >= \(day * 86_400_000) AND received_at < \((day + 1) * 86_400_000) LIMIT \(Int64(limit))) sample
            """)?.int("n") ?? 0
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
            SELECT \(raw: postbackColumns) FROM postbacks WHERE 1 = 1\(filter)\(cursor) ORDER BY received_at DESC, id DESC LIMIT \(limit + 1)
            """).map(PostbackReports.stored)
    }

    /// The app's AdAttributionKit settings, or nil while it has none.
    static func adAttributionSettings(_ db: any SQLExecutor, appId: String) throws -> AdAttributionSettings? {
        guard let text = try db.first("SELECT document FROM ad_attribution_settings WHERE app_id = \(appId)")?.string("document") else { return nil }
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
        try db.query("SELECT ad_network_id FROM ad_networks WHERE workspace_id = \(workspaceId) ORDER BY created_at, id")
            .map { try $0.string("ad_network_id") }
    }

    static func insertAdNetwork(_ db: any SQLExecutor, _ network: AdNetwork, sealedKey: String, now: Int64) throws {
        try db.execute("""
            INSERT INTO ad_networks (id, workspace_id, ad_network_id, private_key, public_key, created_at)
            VALUES (\(network.id), \(network.workspaceId), \(network.adNetworkId), \(sealedKey), \(network.publicKey), \(now))
            """)
    }

    static func adNetwork(_ db: any SQLExecutor, id: String) throws -> AdNetwork? {
        try db.first("SELECT \(raw: adNetworkColumns) FROM ad_networks WHERE id = \(id)").map(AdNetworks.network)
    }

    /// Ad network `id` with its sealed private key, or nil when there is none.
    static func adNetworkWithKey(_ db: any SQLExecutor, id: String) throws -> (network: AdNetwork, sealedKey: String)? {
        try db.first("SELECT \(raw: adNetworkColumns), private_key FROM ad_networks WHERE id = \(id)").map {
            (try AdNetworks.network($0), try $0.string("private_key"))
        }
    }
}
