import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayStore

/// Decides an installation's attribution, once. Methods in order: referrer (a click token the app presents, or a link
/// it resolved with this install id), probabilistic (the most recent iOS click from the same hashed address within
/// the app's window, each click matched at most once), view-through (the most recent ad impression from that
/// address), else unmatched. Everything looked at is kept as the explanation.
enum Matcher {
    struct Input: Sendable {
        let app: App
        let installId: String
        let platform: String
        let osVersion: String?
        let language: String?
        let clickToken: String?
        /// Keyed hashes of the client's address under the keys of the days the windows cover (today first).
        let addressHashes: [String]
        let simulated: Bool
        let now: Int64
    }

    static let minute: Int64 = 60_000

    static func rules(_ settings: AttributionSettings) -> [String] {
        [
            "consent: the request carried consent=true; nothing is stored otherwise",
            "1. referrer: a click token the app presents, or a link it resolved with this install id, at most \(settings.clickWindowDays) days old",
            settings.probabilisticMinutes > 0
                ? "2. probabilistic (on, \(settings.probabilisticMinutes) minutes): the most recent iOS click from the same hashed network address, not already matched to another install"
                : "2. probabilistic: off for this app",
            settings.viewThroughHours > 0
                ? "3. view-through (on, \(settings.viewThroughHours) hours): the most recent ad impression for this app from the same hashed network address"
                : "3. view-through: off for this app",
            "4. otherwise unmatched; the first answer is kept for this install id",
        ]
    }

    /// Returns the stored answer for the install, deciding and storing it first when there is none. Runs inside one
    /// write transaction.
    static func match(_ input: Input, db: any SQLExecutor) throws -> InstallRecord {
        if let existing = try InstallRecord.find(db, appId: input.app.id, installId: input.installId) { return existing }
        let settings = input.app.attribution
        var candidates: [MatchCandidate] = []
        var winner: MatchCandidate?
        var winnerLink: LinkRecord?

        // 1. Referrer.
        let windowStart = input.now - Int64(settings.clickWindowDays) * 1440 * minute
        var referrerRows: [SQLRow] = []
        if let token = input.clickToken, let row = try db.first("""
            SELECT c.token, c.kind, c.created_at, c.workspace_id, l.id AS link_id, l.app_id FROM clicks c JOIN links l ON l.id = c.link_id
            WHERE c.token = \(token)
            """) {
            referrerRows.append(row)
        } else if let token = input.clickToken {
            candidates.append(MatchCandidate(method: "referrer", clickToken: token, ageSeconds: 0, eligible: false, reason: "no click has this token"))
        }
        if let row = try db.first("""
            SELECT c.token, c.kind, c.created_at, c.workspace_id, l.id AS link_id, l.app_id FROM clicks c JOIN links l ON l.id = c.link_id
            WHERE c.install_id = \(input.installId) AND c.kind = 'open' AND c.workspace_id = \(input.app.workspaceId)
            ORDER BY c.created_at DESC LIMIT 1
            """) {
            referrerRows.append(row)
        }
        for row in referrerRows {
            let age = input.now - (try row.int("created_at"))
            var candidate = MatchCandidate(method: "referrer", clickToken: try row.string("token"), linkId: try row.string("link_id"),
                                           ageSeconds: Int(age / 1000), eligible: false, reason: "")
            let linkApp = try row.optionalString("app_id")
            if try row.string("workspace_id") != input.app.workspaceId || (linkApp != nil && linkApp != input.app.id) {
                candidate.reason = "the link belongs to another app"
            } else if try row.int("created_at") < windowStart {
                candidate.reason = "older than the \(settings.clickWindowDays)-day click window"
            } else {
                candidate.eligible = true
                candidate.reason = try row.string("kind") == "open" ? "the app resolved this link with this install id" : "the app presented this click token"
            }
            candidates.append(candidate)
            if candidate.eligible, winner == nil { winner = candidate }
        }

        // 2. Probabilistic.
        if winner == nil, settings.probabilisticMinutes > 0, !input.addressHashes.isEmpty {
            let window = Int64(settings.probabilisticMinutes) * minute
            let rows = try db.query("""
                SELECT c.token, c.created_at, l.id AS link_id, l.app_id, k.install_id AS claimed_by
                FROM clicks c JOIN links l ON l.id = c.link_id LEFT JOIN click_claims k ON k.token = c.token
                WHERE c.workspace_id = \(input.app.workspaceId) AND c.address_hash IN (\(input.addressHashes[0]), \(input.addressHashes.last!))
                  AND c.kind = 'click' AND c.platform = 'ios' AND c.created_at >= \(input.now - window) AND c.created_at <= \(input.now)
                ORDER BY c.created_at DESC LIMIT 20
                """)
            for row in rows {
                let age = input.now - (try row.int("created_at"))
                var candidate = MatchCandidate(method: "probabilistic", clickToken: try row.string("token"), linkId: try row.string("link_id"),
                                               ageSeconds: Int(age / 1000), eligible: false, reason: "")
                let linkApp = try row.optionalString("app_id")
                if linkApp != nil && linkApp != input.app.id {
                    candidate.reason = "the link belongs to another app"
                } else if try row.optionalString("claimed_by") != nil {
                    candidate.reason = "already matched another install"
                } else if winner != nil {
                    candidate.reason = "a more recent click won"
                } else if try db.execute("""
                    INSERT INTO click_claims (token, app_id, install_id, claimed_at)
                    VALUES (\(candidate.clickToken!), \(input.app.id), \(input.installId), \(input.now)) ON CONFLICT (token) DO NOTHING
                    """) == 1 {
                    candidate.eligible = true
                    candidate.reason = "the most recent unmatched click from this address, \(candidate.ageSeconds) s before"
                    winner = candidate
                } else {
                    candidate.reason = "matched another install a moment ago"
                }
                candidates.append(candidate)
            }
            if rows.isEmpty {
                candidates.append(MatchCandidate(method: "probabilistic", ageSeconds: 0, eligible: false,
                                                 reason: "no iOS click from this address in the last \(settings.probabilisticMinutes) minutes"))
            }
        }

        // 3. View-through.
        var impressionNetwork: String?
        if winner == nil, settings.viewThroughHours > 0, !input.addressHashes.isEmpty {
            let window = Int64(settings.viewThroughHours) * 60 * minute
            if let row = try db.first("""
                SELECT id, network, campaign, created_at FROM impressions
                WHERE app_id = \(input.app.id) AND address_hash IN (\(input.addressHashes[0]), \(input.addressHashes.last!))
                  AND created_at >= \(input.now - window) AND created_at <= \(input.now)
                ORDER BY created_at DESC LIMIT 1
                """) {
                let candidate = MatchCandidate(method: "view_through", impressionId: try row.string("id"), network: try row.optionalString("network"),
                                               campaign: try row.optionalString("campaign"),
                                               ageSeconds: Int((input.now - (try row.int("created_at"))) / 1000), eligible: true,
                                               reason: "the most recent ad impression from this address")
                impressionNetwork = candidate.network
                candidates.append(candidate)
                winner = candidate
            } else {
                candidates.append(MatchCandidate(method: "view_through", ageSeconds: 0, eligible: false,
                                                 reason: "no impression from this address in the last \(settings.viewThroughHours) hours"))
            }
        }

        // Only the winner's token belongs to this install; another click's token would outlive that click's deletion.
        candidates = candidates.map { candidate in
            var kept = candidate
            if candidate.clickToken != winner?.clickToken || !candidate.eligible { kept.clickToken = nil }
            return kept
        }
        if let linkId = winner?.linkId { winnerLink = try LinkRecord.find(db, id: linkId) }
        let method = winner?.method ?? "unmatched"
        var record = InstallRecord(appId: input.app.id, installId: input.installId, workspaceId: input.app.workspaceId,
                                   platform: input.platform, osVersion: input.osVersion, language: input.language, method: method,
                                   confidence: confidence(winner, settings: settings),
                                   source: winner == nil ? "organic" : (method == "view_through" ? "ad:\(impressionNetwork ?? "unknown")" : "link"),
                                   explanation: Explanation(settings: settings, rules: rules(settings), candidates: candidates, winner: winner).json,
                                   simulated: input.simulated, matchedAt: input.now)
        record.clickToken = winner?.clickToken
        record.impressionId = winner?.impressionId
        record.linkId = winnerLink?.id
        record.campaign = winnerLink?.campaign ?? winner?.campaign
        record.channel = winnerLink?.channel
        record.feature = winnerLink?.feature
        record.addressHash = input.addressHashes.first
        if try record.insert(db) { return record }
        // Another request for this install stored its answer first; that one stands.
        if let token = record.clickToken, method == "probabilistic" {
            try db.execute("DELETE FROM click_claims WHERE token = \(token) AND install_id = \(input.installId)")
        }
        guard let stored = try InstallRecord.find(db, appId: input.app.id, installId: input.installId) else {
            throw StoreError.conflict("the install was stored and removed concurrently")
        }
        return stored
    }

    /// 1 for referrer; from 0.9 down to 0.4 as a probabilistic click ages through the window; 0.3 for view-through.
    static func confidence(_ winner: MatchCandidate?, settings: AttributionSettings) -> Double {
        guard let winner else { return 0 }
        switch winner.method {
        case "referrer": return 1
        case "probabilistic":
            let window = Double(max(1, settings.probabilisticMinutes) * 60)
            return ((0.9 - 0.5 * min(1, Double(winner.ageSeconds) / window)) * 1000).rounded() / 1000
        default: return 0.3
        }
    }
}
