import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// Apple's postback copies: every body is stored first (a postback that fails verification too, with its reason, so
/// Apple is answered 200 and does not send it again forever), verified postbacks are de-duplicated, decoded with the
/// app's conversion schema and queued for the app's forwarding partners in the same transaction.
package enum PostbackReceiver {
    static let maxBodyBytes = 64 * 1024
    /// Postbacks that fail verification cost their sender nothing, so only this many a day are kept per workspace (or
    /// per server for those on no link domain); the rest are counted by reason in `postback_rejections`.
    static let invalidSamplePerDay = 100

    /// Verifies, resolves, decodes and stores one postback body, checked against Apple's keys (a test passes its own).
    static func receive(_ body: [UInt8], framework: PostbackVerdict.Framework, host: String?, services: ServerServices,
                        keys: PostbackKeys = .apple) async throws -> PostbackReceipt {
        let now = services.clock.nowMilliseconds()
        let checked = framework == .skadnetwork
            ? SKAdNetworkPostback.verify(body, keys: keys) : AdAttributionKitPostback.verify(body, allowDevelopment: true, keys: keys)
        let hostname = host.map(Self.hostname)
        let domain = try await hostname.asyncFlatMap { try await services.links.domain(hostname: $0) }
        // Routed by what Apple signed only: the app that holds the verified App Store id, never one a Host header names.
        let app = checked.valid ? try await resolveApp(appStoreId: checked.fields.appStoreId, services: services) : nil
        let developmentRefused = checked.valid && checked.environment == "development" && app?.postbacks.acceptDevelopment != true
        let verdict = developmentRefused
            ? checked.refused("development_key", "signed with Apple's development key \(checked.kid ?? ""); the app does not accept development postbacks")
            : checked
        let fields = verdict.fields
        let window = fields.sequenceIndex + 1
        let id = Identifier.make("pb")
        let workspaceId = app?.workspaceId ?? domain?.workspaceId
        let identifier = fields.sourceIdentifier ?? fields.campaignId
        let campaign = app.flatMap { PostbackDecoding.campaignName(network: fields.adNetworkId, identifier: identifier, settings: $0.postbacks) }
        let tier = PostbackDecoding.tier(verdict)
        let forwardUrls = verdict.valid ? app?.postbacks.forwardUrls ?? [] : []
        let status: String = try await services.store.write { db in
            var status = verdict.valid ? "valid" : "invalid"
            var schemaVersion: Int?
            var decoded: String?
            if !verdict.valid {
                let scope = workspaceId ?? "-", day = now / 86_400_000
                let sampled = try PostbackQueries.invalidSampled(db, workspaceId: workspaceId, day: day, limit: invalidSamplePerDay)
                if sampled >= Int64(invalidSamplePerDay) {
                    try PostbackQueries.countRejection(db, scope: scope, day: day, framework: framework, reason: verdict.reason ?? "invalid")
                    return status
                }
            }
            if verdict.valid {
                let scope = workspaceId ?? "-"
                if try !PostbackQueries.claimKey(db, scope: scope, key: dedupKey(verdict), postbackId: id, now: now)
                    || PostbackQueries.hasKey(db, scope: scope, key: legacyDedupKey(verdict)) {
                    status = "duplicate"
                }
                if let app, let schema = try ConversionSchemas.inForce(db, appId: app.id, receivedAt: now) {
                    schemaVersion = schema.version
                    decoded = ConversionSchemas.decode(fine: fields.fineValue, coarse: fields.coarseValue, window: window, schema: schema)
                        .map(PostbackDecoding.encode)
                }
            }
            try PostbackQueries.insertPostback(db, id: id, now: now, framework: framework, hostname: hostname, workspaceId: workspaceId,
                                               appId: app?.id, body: body, status: status, verdict: verdict,
                                               environment: PostbackDecoding.environment(verdict), campaign: campaign, tier: tier,
                                               schemaVersion: schemaVersion, decoded: decoded)
            if status == "valid", let app {
                for url in forwardUrls {
                    try PostbackQueries.queueForward(db, postbackId: id, appId: app.id, url: url, body: body, now: now)
                }
            }
            return status
        }
        services.metrics.increment("linkrunway_postbacks_total", labels: [("framework", framework.rawValue), ("status", status)])
        return PostbackReceipt(id: id, status: status, reason: verdict.reason)
    }

    /// What makes a verified postback the same as another: its framework and the digest of exactly what Apple signed.
    /// Nothing unsigned takes part (before SKAdNetwork 4.0 that includes the window index), so a replay with other
    /// unsigned values, or a value that re-splits the signed string, is a duplicate.
    static func dedupKey(_ verdict: PostbackVerdict) -> String {
        "\(verdict.framework.rawValue)|sha256:\(verdict.signedDigest ?? "")"
    }

    /// The key stored before keys were digests (network, transaction and window; 0 before SKAdNetwork 4.0, as Apple
    /// sent them), looked up so that a postback received before the upgrade stays a duplicate until its key ages out of
    /// `postback_keys`.
    static func legacyDedupKey(_ verdict: PostbackVerdict) -> String {
        let fields = verdict.fields
        return [verdict.framework.rawValue, fields.adNetworkId ?? "", fields.transactionId ?? "", String(fields.sequenceIndex)].joined(separator: "|")
    }

    /// Unsigned or unverified text is kept, but never more than 200 characters of it.
    static func clip(_ text: String) -> String { String(text.prefix(200)) }

    /// The Host header without its port, lower case.
    static func hostname(_ host: String) -> String {
        var name = host.lowercased()
        if name.hasPrefix("[") { return String(name.prefix { $0 != "]" }.dropFirst()) }
        if let colon = name.lastIndex(of: ":") { name = String(name[..<colon]) }  // trap-safe: colon is an index of name
        return String(name.prefix(253))
    }

    /// The most postbacks one proof moves (the rest stay unrouted, and the next proof moves them).
    static let adoptionLimit: Int64 = 10_000

    /// Moves the verified postbacks of an App Store id that were kept unrouted (or routed to `previous`, an app that
    /// lost the id to a stronger proof) to `app`: decoded with its schema, named with its campaigns, their duplicate
    /// keys taken into its workspace (a copy received on two hosts becomes a duplicate), and the valid ones queued for
    /// its forwarding URLs, as they would have been on arrival. Returns how many moved.
    static func adopt(_ db: any SQLExecutor, app: App, appStoreId: String, from previous: String?, now: Int64) throws -> Int {
        let rows = try PostbackQueries.unrouted(db, appStoreId: appStoreId, ownedBy: previous, limit: adoptionLimit)
        for row in rows {
            var status = row.status
            if status == "valid", let key = try PostbackQueries.dedupKey(db, postbackId: row.id),
               try !PostbackQueries.claimKey(db, scope: app.workspaceId, key: key, postbackId: row.id, now: row.receivedAt) {
                status = "duplicate"
            }
            let schema = try ConversionSchemas.inForce(db, appId: app.id, receivedAt: row.receivedAt)
            let decoded = schema.flatMap { schema in
                ConversionSchemas.decode(fine: row.fineValue, coarse: row.coarseValue, window: row.sequenceIndex + 1, schema: schema)
                    .map(PostbackDecoding.encode)
            }
            let campaign = PostbackDecoding.campaignName(network: row.adNetworkId, identifier: row.sourceIdentifier ?? row.campaignId,
                                                         settings: app.postbacks)
            try PostbackQueries.route(db, postbackId: row.id, to: app, status: status, campaign: campaign,
                                      schemaVersion: schema.map { Int64($0.version) }, decoded: decoded)
            if status == "valid" {
                for url in app.postbacks.forwardUrls {
                    try PostbackQueries.queueForward(db, postbackId: row.id, appId: app.id, url: url, body: row.body, now: now)
                }
            }
        }
        return rows.count
    }

    /// The app a postback is for: the one app that proved its App Store id, in whichever workspace.
    static func resolveApp(appStoreId: String?, services: ServerServices) async throws -> App? {
        guard let appStoreId, !appStoreId.isEmpty, appStoreId.count <= 20 else { return nil }
        return try await services.apps.apps(appStoreId: appStoreId).first.asyncFlatMap { try await services.apps.app(id: $0.appId) }
    }

    /// Forwarded postbacks: the raw body, as Apple sent it.
    package static let forwardOutbox = OutboxQueue(table: "postback_forwards", metric: "linkrunway_postback_forwards_total") { db, now, limit, _ in
        try PostbackQueries.dueForwards(db, now: now, limit: limit).map { row in
            OutboxQueue.Item(id: row.id, url: row.url, body: row.body, headers: [
                "Content-Type": "application/json", "User-Agent": "LinkRunway-Postbacks/1", "LinkRunway-Postback": row.postbackId,
            ], attempts: row.attempts)
        }
    }
}

extension Optional {
    func asyncFlatMap<U>(_ transform: (Wrapped) async throws -> U?) async rethrows -> U? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
