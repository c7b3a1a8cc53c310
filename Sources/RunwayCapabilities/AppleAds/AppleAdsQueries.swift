import LinkRunwayAPI
import RunwayKit
import RunwayStore

/// The SQL of `apple_ads_claims` that the claim route runs.
enum AppleAdsQueries {
    /// Records a claim with `token` unless the install has one: true when this one is new. The primary key decides
    /// which of two claims at the same instant is the install's; the other one finds it as if it had come second.
    static func insertPending(_ db: any SQLExecutor, appId: String, installId: String, workspaceId: String, token: String, now: Int64) throws -> Bool {
        try db.execute("""
            INSERT INTO apple_ads_claims (app_id, install_id, workspace_id, token, status, attempts, not_found_in_a_row,
                                          next_attempt_at, test_data, received_at)
            VALUES (\(appId), \(installId), \(workspaceId), \(token), 'pending', 0, 0, \(now), 0, \(now))
            ON CONFLICT (app_id, install_id) DO NOTHING
            """) == 1
    }

    static func status(_ db: any SQLExecutor, appId: String, installId: String) throws -> String? {
        try db.first("SELECT status FROM apple_ads_claims WHERE app_id = \(appId) AND install_id = \(installId)")?.string("status")
    }

    /// A fresher token for a claim Apple has no answer for yet.
    static func refreshToken(_ db: any SQLExecutor, appId: String, installId: String, token: String) throws {
        try db.execute("UPDATE apple_ads_claims SET token = \(token) WHERE app_id = \(appId) AND install_id = \(installId) AND status = 'pending'")
    }

    static func claim(_ db: any SQLExecutor, appId: String, installId: String, now: Int64) throws -> AppleAdsClaim? {
        try db.first("SELECT \(raw: AppleAdsClaims.columns) FROM apple_ads_claims WHERE app_id = \(appId) AND install_id = \(installId)")
            .map { try AppleAdsClaims.wire($0, now: now) }
    }
}
