import LinkRunwayAPI
import RunwayCrypto
import RunwayKit
import RunwayStore

/// The SQL of `apple_ads_claims` that the claim route runs.
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
