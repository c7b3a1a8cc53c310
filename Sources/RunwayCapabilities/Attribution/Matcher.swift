import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// Decides an installation's attribution, once. Methods in order: referrer (a click token the app presents, or a link
/// it resolved with this install id), probabilistic (the most recent unmatched iOS click from the same hashed address
/// within the app's window; each click matches at most one install), view-through (the most recent ad impression
/// from that address), else unmatched. Everything looked at is kept as the explanation.
///
/// The search runs on a reader (`plan`); the writer only claims a click and stores the answer (`commit`), so matches
/// do not queue behind each other's queries.
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
        /// The request carried a valid App Attest token.
        var attested = false
        /// The SHA-256 of the install secret the device sent, if any.
        var secretHash: String?
        /// The device reported its installation before, under an id it deleted: no matching, not counted again.
        var returning = false
        /// StoreKit 2's app transaction id, kept with a first report.
        var appTransactionId: String?
        /// The signed app transaction the request proved, which claims its id for the install.
        var appTransactionProof: AppTransactionOwnership.Proof?
        /// The stores the verified app transactions named, sorted and distinct.
        var storeTypes: [String]?
        var appAttestSupported: Bool?
    }

    /// What the search found: everything considered, and the eligible options in the order they are tried.
    struct Plan: Sendable {
        var existing: InstallRecord?
        var candidates: [MatchCandidate] = []
        var options: [MatchCandidate] = []
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

    static let returningRule = "returning: consent was withdrawn and given again on this device, so its installation was already " +
        "counted under an id the app has deleted; this id is registered without matching and left out of install counts"

    /// Looks for the stored answer or the candidates (read-only).
    static func plan(_ input: Input, db: any SQLExecutor) throws -> Plan {
        var plan = Plan(existing: try AttributionQueries.install(db, appId: input.app.id, installId: input.installId))
        if plan.existing != nil || input.returning { return plan }
        let settings = input.app.attribution

        // 1. Referrer.
        let windowStart = input.now - Int64(settings.clickWindowDays) * 1440 * minute
        var referrerRows: [AttributionRows.ReferrerClick] = []
        if let token = input.clickToken {
            if let row = try MatchQueries.click(db, token: token) {
                referrerRows.append(row)
            } else {
                plan.candidates.append(MatchCandidate(method: "referrer", ageSeconds: 0, eligible: false, reason: "no click has the token the app presented"))
            }
        }
        if let row = try MatchQueries.lastOpen(db, installId: input.installId, workspaceId: input.app.workspaceId) {
            referrerRows.append(row)
        }
        for row in referrerRows {
            let created = row.createdAt
            var candidate = MatchCandidate(method: "referrer", clickToken: row.token, linkId: row.linkId,
                                           ageSeconds: Int((input.now - created) / 1000), eligible: false, reason: "")
            let linkApp = row.appId
            if row.workspaceId != input.app.workspaceId || (linkApp != nil && linkApp != input.app.id) {
                candidate.reason = "the link belongs to another app"
            } else if created < windowStart {
                candidate.reason = "older than the \(settings.clickWindowDays)-day click window"
            } else {
                candidate.eligible = true
                candidate.reason = row.kind == "open" ? "the app resolved this link with this install id" : "the app presented this click token"
            }
            plan.candidates.append(candidate)
            if candidate.eligible { plan.options.append(candidate) }
        }

        // 2. Probabilistic: one query per address hash, walking the index of unmatched clicks newest first.
        if settings.probabilisticMinutes > 0, !input.addressHashes.isEmpty {
            let window = Int64(settings.probabilisticMinutes) * minute
            var rows: [AttributionRows.AddressClick] = []
            for hash in Set(input.addressHashes) {
                rows += try MatchQueries.unmatchedClicks(db, workspaceId: input.app.workspaceId, addressHash: hash,
                                                         from: input.now - window, to: input.now, limit: 10)
            }
            rows.sort { $0.createdAt > $1.createdAt }
            for row in rows.prefix(10) {
                var candidate = MatchCandidate(method: "probabilistic", clickToken: row.token, linkId: row.linkId,
                                               ageSeconds: Int((input.now - row.createdAt) / 1000), eligible: true,
                                               reason: "an unmatched click from this address")
                if let linkApp = row.appId, linkApp != input.app.id {
                    candidate.eligible = false
                    candidate.reason = "the link belongs to another app"
                }
                plan.candidates.append(candidate)
                if candidate.eligible { plan.options.append(candidate) }
            }
            if rows.isEmpty {
                plan.candidates.append(MatchCandidate(method: "probabilistic", ageSeconds: 0, eligible: false,
                                                      reason: "no unmatched iOS click from this address in the last \(settings.probabilisticMinutes) minutes"))
            }
        }

        // 3. View-through.
        if settings.viewThroughHours > 0, !input.addressHashes.isEmpty {
            let window = Int64(settings.viewThroughHours) * 60 * minute
            let newest = try Set(input.addressHashes).compactMap { hash in
                try MatchQueries.newestImpression(db, appId: input.app.id, addressHash: hash, from: input.now - window, to: input.now)
            }.max { $0.createdAt < $1.createdAt }
            if let row = newest {
                let candidate = MatchCandidate(method: "view_through", impressionId: row.id, network: row.network, campaign: row.campaign,
                                               ageSeconds: Int((input.now - row.createdAt) / 1000), eligible: true,
                                               reason: "the most recent ad impression from this address")
                plan.candidates.append(candidate)
                plan.options.append(candidate)
            } else {
                plan.candidates.append(MatchCandidate(method: "view_through", ageSeconds: 0, eligible: false,
                                                      reason: "no impression from this address in the last \(settings.viewThroughHours) hours"))
            }
        }
        return plan
    }

    /// Stores the answer (in the writer's transaction, after the plan was read in it): the first option that can be had
    /// wins; a click is claimed so no other install gets it. When another writer took a click the plan offered since it
    /// was read (PostgreSQL's writers and other servers commit side by side; installs behind one address, as with a
    /// carrier's NAT, plan the same newest clicks), the newest clicks still free are looked up again here. Returns the
    /// stored answer, which is another request's when that one stored first, with the link it names (from `links`, the
    /// link cache, while its row is unchanged). The plan already looked for a stored answer; one stored since (by
    /// another writer) makes the insert do nothing, and that answer is returned.
    static func commit(_ input: Input, plan: Plan, db: any SQLExecutor, links: LinkDirectory) throws
        -> (InstallRecord, created: Bool, link: LinkRecord?) {
        let settings = input.app.attribution
        var winner: MatchCandidate?
        var lostRaces = Set<String>()
        var options = plan.options
        var index = 0
        while index < options.count {
            let option = options[index]
            index += 1
            if option.method == "probabilistic" {
                // A probabilistic option is a click: it always has a token; one without could not be claimed.
                guard let token = option.clickToken else { continue }
                guard try MatchQueries.claim(db, token: token, appId: input.app.id, installId: input.installId) else {
                    lostRaces.insert(token)
                    // The plan's other clicks were read before the claim that beat this one, most likely by installs
                    // behind the same address that another writer matched meanwhile: rather than trying each of them
                    // in turn (a failed claim apiece), the newest clicks still free are read again.
                    let fresh = try freshClicks(input, db: db, excluding: lostRaces)
                    lostRaces.formUnion(takenMeanwhile(plan, fresh: fresh))
                    // trap-safe: index <= options.count: it was just past an element
                    options = Array(options[..<index]) + fresh + options[index...].filter { $0.method != "probabilistic" }
                    continue
                }
            }
            winner = option
            break
        }
        let explanation = explain(input, plan: plan, winner: winner, lostRaces: lostRaces).json
        let link = try winner?.linkId.map { try links.link(id: $0, in: db) } ?? nil
        let method = winner?.method ?? "unmatched"
        var record = InstallRecord(appId: input.app.id, installId: input.installId, workspaceId: input.app.workspaceId,
                                   platform: input.platform, osVersion: input.osVersion, language: input.language, method: method,
                                   confidence: confidence(winner, settings: settings),
                                   source: input.returning ? "returning"
                                       : winner == nil ? "organic" : (method == "view_through" ? "ad:\(winner?.network ?? "unknown")" : "link"),
                                   explanation: explanation,
                                   simulated: input.simulated, matchedAt: input.now)
        record.clickToken = winner?.clickToken
        record.impressionId = winner?.impressionId
        record.linkId = link?.id
        record.campaign = link?.campaign ?? winner?.campaign
        record.channel = link?.channel
        record.feature = link?.feature
        record.addressHash = input.addressHashes.first
        record.attested = input.attested
        record.appTransactionId = input.returning ? nil : input.appTransactionId
        record.storeTypes = input.returning ? nil : input.storeTypes.map { $0.joined(separator: ",") }
        record.appAttestSupported = input.appAttestSupported
        // The click's variant and whether it was a QR scan travel with the install into its events.
        if let token = winner?.clickToken, let click = try MatchQueries.variant(db, token: token) {
            record.variant = click.variant
            record.qr = click.qr
        }
        if try AttributionQueries.insertInstall(db, record) {
            var rollup = LinkRollup()
            AttributionRollup.add(install: record, to: &rollup)
            try rollup.write(db)
            return (record, true, link)
        }
        // Another request for this install stored its answer first; that one stands, and our claim goes back.
        if method == "probabilistic", let token = record.clickToken {
            try MatchQueries.releaseClaim(db, token: token, appId: input.app.id, installId: input.installId)
        }
        guard let other = try AttributionQueries.install(db, appId: input.app.id, installId: input.installId) else {
            throw StoreError.conflict("the install was stored and removed concurrently")
        }
        return (other, false, try other.linkId.map { try links.link(id: $0, in: db) } ?? nil)
    }

    /// What the matcher saw and decided, given the winner and the clicks other installs took first.
    static func explain(_ input: Input, plan: Plan, winner: MatchCandidate?, lostRaces: Set<String>) -> Explanation {
        // Only the winner's token belongs to this install; another click's token would outlive that click's deletion.
        var candidates = plan.candidates.map { candidate -> MatchCandidate in
            var kept = candidate
            let isWinner = winner != nil && candidate == winner
            if let token = candidate.clickToken, lostRaces.contains(token) {
                kept.eligible = false
                kept.reason = "matched another install a moment ago"
            } else if isWinner, candidate.method == "probabilistic" {
                kept.reason = "the most recent unmatched click from this address, \(candidate.ageSeconds) s before"
            } else if candidate.eligible, !isWinner {
                kept.eligible = false
                kept.reason = "an earlier rule or a more recent candidate won"
            }
            if !isWinner { kept.clickToken = nil }
            return kept
        }
        if let winner, !plan.candidates.contains(winner) {
            var found = winner
            found.reason = "the most recent unmatched click from this address once the planned ones were taken, \(winner.ageSeconds) s before"
            candidates.append(found)
        }
        let finalWinner = winner.flatMap { winner in
            candidates.first { $0.method == winner.method && $0.linkId == winner.linkId && $0.impressionId == winner.impressionId && $0.eligible }
        }
        var rules = rules(input.app.attribution)
        if input.returning { rules.append(returningRule) }
        return Explanation(settings: input.app.attribution, rules: rules, candidates: candidates, winner: finalWinner)
    }

    /// The newest unmatched clicks from the address, looked up inside the write after the planned ones were taken.
    static func freshClicks(_ input: Input, db: any SQLExecutor, excluding taken: Set<String>) throws -> [MatchCandidate] {
        let window = Int64(input.app.attribution.probabilisticMinutes) * minute
        var found: [MatchCandidate] = []
        for hash in Set(input.addressHashes) {
            for row in try MatchQueries.unmatchedClicks(db, workspaceId: input.app.workspaceId, addressHash: hash,
                                                        from: input.now - window, to: input.now, appId: input.app.id, limit: 3)
            where !taken.contains(row.token) {
                found.append(MatchCandidate(method: "probabilistic", clickToken: row.token, linkId: row.linkId,
                                            ageSeconds: Int((input.now - row.createdAt) / 1000), eligible: true,
                                            reason: "an unmatched click from this address"))
            }
        }
        return found.sorted { $0.ageSeconds < $1.ageSeconds }
    }

    /// The plan's clicks that other installs claimed since it was read, for the explanation: those newer than the newest
    /// click still free (`fresh`, newest first), or all of them when none is free.
    static func takenMeanwhile(_ plan: Plan, fresh: [MatchCandidate]) -> [String] {
        let newestFree = fresh.first?.ageSeconds ?? Int.max
        let freeTokens = Set(fresh.compactMap(\.clickToken))
        return plan.options.compactMap { option in
            guard option.method == "probabilistic", let token = option.clickToken, !freeTokens.contains(token),
                  option.ageSeconds < newestFree else { return nil }
            return token
        }
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
