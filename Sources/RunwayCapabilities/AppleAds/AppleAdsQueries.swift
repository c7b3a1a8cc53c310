import LinkRunwayAPI
import RunwayCrypto
import RunwayKit
import RunwayStore

/// The SQL of `apple_ads_claims` that the claim route and the worker asking Apple about claims (`AppleAdsClaims`) run,
/// and of the Apple Ads ids an answer gives the install and its events.
enum AppleAdsQueries {
    /// Records a claim with `token` unless the install has one: true when this one is new. The primary key decides
    /// which of two claims at the same instant is the install's; the other one finds it as if it had come second.
    static func insertPending(_ db: any SQLExecutor, appId: String, installId: String, workspaceId: String, token: String, now: Int64) throws -> Bool {
        try db.execute("""
            INSERT INTO apple_ads_claims (app_id, install_id, workspace_id, token, status, attempts, not_found_in_a_row,
                                          next_attempt_at, test_data, received_at, token_sha256)
            VALUES (\(appId), \(installId), \(workspaceId), \(token), 'pending', 0, 0, \(now), 0, \(now), \(tokenDigest(token)))
            ON CONFLICT (app_id, install_id) DO NOTHING
            """) == 1
    }

    static func status(_ db: any SQLExecutor, appId: String, installId: String) throws -> String? {
        try db.first("SELECT status FROM apple_ads_claims WHERE app_id = \(appId) AND install_id = \(installId)", as: AppleAdsRows.Status.self)?.status
    }

    /// A fresher token for a claim Apple has no answer for yet.
    static func refreshToken(_ db: any SQLExecutor, appId: String, installId: String, token: String) throws {
        try db.execute("""
            UPDATE apple_ads_claims SET token = \(token), token_sha256 = \(tokenDigest(token))
            WHERE app_id = \(appId) AND install_id = \(installId) AND status = 'pending'
            """)
    }

    /// How many times a new token may ask Apple again about an install it has answered for: consent changes are rare,
    /// and each asks Apple once more.
    static let maxRenewals: Int64 = 3

    /// A new token for an answered claim (the user changed tracking consent, and AdServices made another): the claim
    /// is pending again with it, keeping its answer until Apple gives the new one. False for the token it was answered
    /// for, and once `maxRenewals` new tokens have asked.
    static func renew(_ db: any SQLExecutor, appId: String, installId: String, token: String, now: Int64) throws -> Bool {
        try db.execute("""
            UPDATE apple_ads_claims SET token = \(token), token_sha256 = \(tokenDigest(token)), status = 'pending', attempts = 0,
                not_found_in_a_row = 0, next_attempt_at = \(now), lease_until = NULL, received_at = \(now), renewals = renewals + 1
            WHERE app_id = \(appId) AND install_id = \(installId) AND status IN ('attributed', 'not_attributed')
              AND (token_sha256 IS NULL OR token_sha256 <> \(tokenDigest(token))) AND renewals < \(maxRenewals)
            """) == 1
    }

    static func tokenDigest(_ token: String) -> String { ByteEncoding.hex(Digest.sha256(Array(token.utf8))) }

    static func claim(_ db: any SQLExecutor, appId: String, installId: String, now: Int64) throws -> AppleAdsClaim? {
        try db.first("SELECT \(raw: AppleAdsRows.Claim.columns) FROM apple_ads_claims WHERE app_id = \(appId) AND install_id = \(installId)",
                     as: AppleAdsRows.Claim.self)?.wire(now: now)
    }

    /// The install's claim: how many rows went (one or none).
    static func deleteClaim(_ db: any SQLExecutor, appId: String, installId: String) throws -> Int {
        try db.execute("DELETE FROM apple_ads_claims WHERE app_id = \(appId) AND install_id = \(installId)")
    }

    /// Up to 20 pending claims due at `now` that no worker holds, the longest due first.
    static func due(_ db: any SQLExecutor, now: Int64) throws -> [AppleAdsRows.Due] {
        try db.query("""
            SELECT app_id, install_id FROM apple_ads_claims
            WHERE status = 'pending' AND next_attempt_at <= \(now) AND (lease_until IS NULL OR lease_until < \(now))
            ORDER BY next_attempt_at LIMIT 20
            """, as: AppleAdsRows.Due.self)
    }

    /// Takes the claim's lease until `until`: false when it is not pending, not due at `now`, or another worker holds it.
    static func takeLease(_ db: any SQLExecutor, appId: String, installId: String, now: Int64, until: Int64) throws -> Bool {
        try db.execute("""
            UPDATE apple_ads_claims SET lease_until = \(until)
            WHERE app_id = \(appId) AND install_id = \(installId) AND status = 'pending' AND next_attempt_at <= \(now)
              AND (lease_until IS NULL OR lease_until < \(now))
            """) == 1
    }

    /// What asking Apple about the claim needs, once its lease is taken.
    static func taken(_ db: any SQLExecutor, appId: String, installId: String) throws -> AppleAdsRows.Taken? {
        try db.first("SELECT token, received_at, attempts, not_found_in_a_row FROM apple_ads_claims WHERE app_id = \(appId) AND install_id = \(installId)",
                     as: AppleAdsRows.Taken.self)
    }

    /// Stores what became of asking Apple (its HTTP status and the error, if any) and when to ask next, and gives back
    /// the lease. A claim asked again with a new token (`renew`) keeps its attribution when the new token fails or is not
    /// attributed: tracking consent adds detail to Apple's answer, it does not take the ad away.
    static func recordAnswer(_ db: any SQLExecutor, appId: String, installId: String, status: String, keepsAttribution: Bool, failed: Bool,
                             attempts: Int64, notFoundInARow: Int64, nextAttemptAt: Int64, httpStatus: Int?, error: String?, resolvedAt: Int64?,
                             token: String?) throws {
        try db.execute("""
            UPDATE apple_ads_claims SET status = CASE
                    WHEN renewals > 0 AND campaign_id IS NOT NULL AND \(keepsAttribution ? 1 : 0) = 1 THEN 'attributed'
                    WHEN renewals > 0 AND \(failed ? 1 : 0) = 1 THEN 'not_attributed'
                    ELSE \(status) END,
                attempts = \(attempts), not_found_in_a_row = \(notFoundInARow),
                next_attempt_at = \(nextAttemptAt), lease_until = NULL, last_status = \(httpStatus.map(Int64.init)), last_error = \(error),
                resolved_at = \(resolvedAt), token = \(token)
            WHERE app_id = \(appId) AND install_id = \(installId)
            """)
    }

    /// Stores the attribution Apple answered for the claim.
    static func storeAttribution(_ db: any SQLExecutor, appId: String, installId: String, fields: AppleAdsAttribution, clickAt: Int64?,
                                 impressionAt: Int64?, testData: Bool) throws {
        try db.execute("""
            UPDATE apple_ads_claims SET org_id = \(fields.orgId), campaign_id = \(fields.campaignId), ad_group_id = \(fields.adGroupId),
                keyword_id = \(fields.keywordId), ad_id = \(fields.adId), conversion_type = \(fields.conversionType),
                claim_type = \(fields.claimType), click_date = \(clickAt), impression_date = \(impressionAt),
                country_or_region = \(fields.countryOrRegion), supply_placement = \(fields.supplyPlacement), test_data = \(testData)
            WHERE app_id = \(appId) AND install_id = \(installId)
            """)
    }

    /// The install, and the events it already has, take the Apple Ads campaign, ad group and keyword. Apple Ads is
    /// Apple's own deterministic claim, so it replaces an estimate (probabilistic, view-through) or no match; a
    /// referrer match to one of our links keeps its source and gains the Apple Ads ids, and so does a returning install
    /// (consent given again), which must stay out of install counts.
    static func attribute(_ db: any SQLExecutor, appId: String, installId: String, fields: AppleAdsAttribution) throws {
        try db.execute("""
            UPDATE installs SET apple_ads_campaign_id = \(fields.campaignId), apple_ads_ad_group_id = \(fields.adGroupId),
                apple_ads_keyword_id = \(fields.keywordId),
                source = CASE WHEN method = 'referrer' OR source = 'returning' THEN source ELSE 'apple_ads' END
            WHERE app_id = \(appId) AND install_id = \(installId)
            """)
        try db.execute("""
            UPDATE events SET apple_ads_campaign_id = \(fields.campaignId), apple_ads_ad_group_id = \(fields.adGroupId),
                apple_ads_keyword_id = \(fields.keywordId),
                source = CASE WHEN method = 'referrer' OR source = 'returning' THEN source ELSE 'apple_ads' END
            WHERE app_id = \(appId) AND install_id = \(installId)
            """)
    }

    /// The workspace's claims received in [from, to), by outcome, without Apple's developer-mode test answers.
    static func report(_ db: any SQLExecutor, workspaceId: String, appId: String?, from: Int64, to: Int64) throws -> [AppleAdsReportRow] {
        let app: SQL = appId.map { " AND app_id = \($0)" } ?? ""
        var counts: [String: (conversionType: String?, claims: Int)] = [:]
        for row in try db.query("""
            SELECT status, conversion_type, COUNT(*) AS n FROM apple_ads_claims
            WHERE workspace_id = \(workspaceId) AND received_at >= \(from) AND received_at < \(to) AND test_data = 0\(app)
            GROUP BY status, conversion_type
            """, as: AppleAdsRows.Count.self) {
            let conversionType = row.conversionType
            let outcome = switch row.status {
            case "attributed": "attributed"
            case "not_attributed": "not_attributed_by_apple"
            case "invalid": "invalid"
            default: "unanswered"
            }
            let key = outcome + "|" + (outcome == "attributed" ? conversionType ?? "" : "")
            counts[key, default: (outcome == "attributed" ? conversionType : nil, 0)].claims += row.n
        }
        return counts.map { key, value in
            let outcome = String(key.prefix { $0 != "|" })
            return AppleAdsReportRow(outcome: outcome, conversionType: value.conversionType, label: label(outcome, value.conversionType),
                                     claims: value.claims)
        }.sorted { (AppleAdsReportRow.outcomes.firstIndex(of: $0.outcome) ?? 9, $0.conversionType ?? "") <
                   (AppleAdsReportRow.outcomes.firstIndex(of: $1.outcome) ?? 9, $1.conversionType ?? "") }
    }

    /// An outcome in words.
    static func label(_ outcome: String, _ conversionType: String?) -> String {
        switch outcome {
        case "attributed": "Attributed to Apple Ads" + (conversionType.map { " (\($0))" } ?? "")
        case "not_attributed_by_apple": "Not attributed by Apple"
        case "invalid": "Token refused by Apple"
        default: "No answer from Apple (pending or expired)"
        }
    }
}
