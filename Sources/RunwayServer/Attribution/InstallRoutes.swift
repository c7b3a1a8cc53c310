import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayStore

/// `POST /v1/installs/match`, the explanation of an answer, and ad impressions for view-through matching.
enum InstallRoutes {
    static func routes(_ services: ServerServices) -> [Route] {
        services.metrics.declareCounter("linkrunway_installs_matched_total", help: "Installs given their first answer, by method.")
        return [
            Route(method: .POST, pattern: "/v1/installs/match", operation: Operation(
                id: "matchInstall", summary: "First launch: the install's attribution and deep link, decided once and kept",
                tag: "Installs", access: Access.client, requestSchema: "MatchInstallRequest",
                responses: [.json(200, "InstallMatch", "The stored answer (the same for every later call).")], maxBodyBytes: 8 * 1024, rateLimited: true)
            ) { request, context in
                let principal = try context.principal()
                let body = try request.decode(MatchInstallRequest.self)
                guard body.consent else {
                    throw HTTPError.badRequest(ErrorCode.consentRequired, "consent must be true; nothing is stored without it", field: "consent")
                }
                guard let appId = principal.appId, let app = try await services.links.app(id: appId) else {
                    throw HTTPError.forbidden(ErrorCode.keyKindForbidden, "matching needs an app's publishable key")
                }
                var input = try await Self.input(app: app, installId: body.installId, platform: body.platform, osVersion: body.osVersion,
                                                 language: body.language, clickToken: body.clickToken, address: request.remoteAddress,
                                                 simulated: false, returning: body.returning ?? false, services: services)
                input.returning = body.returning ?? false
                input.appTransactionId = try Self.appTransactionId(body.appTransactionId)
                input.secretHash = try InstallSecrets.hash(body.installSecret)
                input.attested = app.attestation.policy != "off" && AttestationToken.attests(body.attestation, appId: app.id, installId: input.installId, secrets: services.secrets,
                                                          now: services.clock.now())
                if app.attestation.policy == "required", !input.attested {
                    services.metrics.increment("linkrunway_unattested_total", labels: [("kind", "match")])
                    throw HTTPError.forbidden(ErrorCode.attestationRequired, "this app requires App Attest: attest, then send the token as attestation")
                }
                return try .json(try await match(input, services: services))
            },

            Route(method: .GET, pattern: "/v1/installs/{installId}/attribution", operation: Operation(
                id: "explainInstall", summary: "Why an install was attributed (or not): candidates, rules, settings, winner",
                tag: "Installs", access: Access.management, responses: [.json(200, "AttributionExplanation", "The explanation.")],
                query: [QueryParameterDoc("appId", "The app, when the install id is known in more than one of the workspace's apps.")])
            ) { request, context in
                let install = try await load(request, context, services)
                let link = try await install.linkId.asyncMap { id in try await services.store.read { try LinkRecord.find($0, id: id) } } ?? nil
                let explanation = Explanation.decode(install.explanation)
                return try .json(AttributionExplanation(match: install.wire(link: link), settings: explanation?.settings ?? AttributionSettings(),
                                                        rules: explanation?.rules ?? [], candidates: explanation?.candidates ?? [],
                                                        winner: explanation?.winner, simulated: install.simulated))
            },

            Route(method: .POST, pattern: "/v1/impressions", operation: Operation(
                id: "recordImpression", summary: "An ad was shown to a device (for view-through matching); only a keyed hash of its address is kept",
                tag: "Installs", access: Access.management, requestSchema: "ImpressionRequest",
                responses: [.json(201, "Impression", "Recorded.")], maxBodyBytes: 8 * 1024, idempotent: true)
            ) { request, context in
                let principal = try context.principal()
                let body = try request.decode(ImpressionRequest.self)
                guard let app = try await services.links.app(id: body.appId) else { throw HTTPError.invalidField("appId", "no app has this id") }
                try principal.requireWorkspace(app.workspaceId)
                guard IPAddress.isValid(body.ip) else { throw HTTPError.invalidField("ip", "must be a numeric IPv4 or IPv6 address") }
                let now = services.clock.nowMilliseconds()
                let at = try LinkValidate.timestamp(body.timestamp, field: "timestamp") ?? now
                guard at <= now + 5 * Matcher.minute else { throw HTTPError.invalidField("timestamp", "must not be in the future") }
                let network = try LinkValidate.tag(body.network, field: "network")
                let campaign = try LinkValidate.tag(body.campaign, field: "campaign")
                let hash = try await services.addresses.hash(body.ip, at: at)
                let id = Identifier.make("imp")
                return try await IdempotencyClaim.write(services.store, context) { db in
                    try db.execute("""
                        INSERT INTO impressions (id, app_id, workspace_id, address_hash, network, campaign, created_at)
                        VALUES (\(id), \(app.id), \(app.workspaceId), \(hash), \(network), \(campaign), \(at))
                        """)
                    return try HTTPResponse.json(Impression(id: id, appId: app.id, network: network, campaign: campaign, createdAt: Timestamp.iso(at)), status: 201)
                }
            },
        ]
    }

    /// Validates the request and hashes the address under the keys of every day the app's windows reach into.
    static func input(app: App, installId: String, platform: String, osVersion: String?, language: String?, clickToken: String?,
                      address: String?, simulated: Bool, returning: Bool = false, services: ServerServices) async throws -> Matcher.Input {
        guard let installId = try Validate.installID(installId, field: "installId") else {
            throw HTTPError.badRequest(ErrorCode.missingField, "installId is required", field: "installId")
        }
        guard ["ios", "tvos"].contains(platform) else { throw HTTPError.invalidField("platform", "must be ios or tvos") }
        if let osVersion, osVersion.utf8.count > 16 || !osVersion.allSatisfy({ $0.isNumber || $0 == "." }) {
            throw HTTPError.invalidField("osVersion", "must look like 17.4")
        }
        if let language, language.utf8.count > 35 || !language.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) {
            throw HTTPError.invalidField("language", "must be a language tag such as en-GB")
        }
        if let clickToken, clickToken.utf8.count > 64 {
            throw HTTPError.invalidField("clickToken", "is not a click token")
        }
        let now = services.clock.nowMilliseconds()
        var hashes: [String] = []
        // A returning device is not matched, so its address is not even hashed.
        if let address, !returning, app.attribution.probabilisticMinutes > 0 || app.attribution.viewThroughHours > 0 {
            let reach = Int64(max(app.attribution.probabilisticMinutes, app.attribution.viewThroughHours * 60)) * Matcher.minute
            hashes.append(try await services.addresses.hash(address, at: now))
            if AddressHasher.day(now - reach) != AddressHasher.day(now) {
                hashes.append(try await services.addresses.hash(address, at: now - reach))
            }
        }
        return Matcher.Input(app: app, installId: installId, platform: platform, osVersion: osVersion, language: language,
                             clickToken: clickToken, addressHashes: hashes, simulated: simulated, now: now)
    }

    /// Decides (or finds) the answer and returns it with the link's current path and metadata.
    static func match(_ input: Matcher.Input, services: ServerServices) async throws -> InstallMatch {
        var planned = try await services.store.read { db in try Matcher.plan(input, db: db) }
        if let existing = planned.existing {
            // An install made before its SDK sent secrets takes the first one sent.
            if let hash = input.secretHash {
                try await services.store.write { db in try InstallSecrets.keep(db, appId: input.app.id, installId: input.installId, hash: hash, now: input.now) }
            }
            let link = try await existing.linkId.asyncMap { id in try await services.store.read { try LinkRecord.find($0, id: id) } } ?? nil
            return existing.wire(link: link)
        }
        planned.expectedExplanation = Matcher.explain(input, plan: planned, winner: planned.options.first, lostRaces: []).json
        let plan = planned
        let (install, link, created): (InstallRecord, LinkRecord?, Bool) = try await services.store.write { db in
            let (install, created) = try Matcher.commit(input, plan: plan, db: db)
            if let hash = input.secretHash { try InstallSecrets.keep(db, appId: input.app.id, installId: input.installId, hash: hash, now: input.now) }
            let link = try install.linkId.map { try LinkRecord.find(db, id: $0) } ?? nil
            if created, !input.simulated, !input.returning {
                try Webhooks.enqueue(db, workspaceId: install.workspaceId, topic: "install", payload: install.wire(link: link), now: input.now)
            }
            return (install, link, created)
        }
        if created, !input.returning { services.metrics.increment("linkrunway_installs_matched_total", labels: [("method", install.method)]) }
        return install.wire(link: link)
    }

    /// StoreKit 2's app transaction id: Apple documents it as a string; up to 64 letters, digits and dashes are kept.
    static func appTransactionId(_ text: String?) throws -> String? {
        guard let text else { return nil }
        guard (1...64).contains(text.utf8.count), text.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
            throw HTTPError.invalidField("appTransactionId", "must be 1 to 64 letters, digits or dashes")
        }
        return text
    }

    /// The install named by the path, in the caller's workspace (`appId` decides between apps).
    static func load(_ request: HTTPRequest, _ context: RequestContext, _ services: ServerServices) async throws -> InstallRecord {
        let principal = try context.principal()
        let installId = try context.parameter("installId").lowercased()
        let appId = request.queryValue("appId") ?? principal.appId
        let rows = try await services.store.read { db in
            if let appId {
                return try db.query("SELECT \(raw: InstallRecord.columns) FROM installs WHERE app_id = \(appId) AND install_id = \(installId)")
                    .map(InstallRecord.init(row:))
            }
            let scope: SQL = principal.kind == .admin ? "" : " AND workspace_id = \(principal.workspaceId ?? "")"
            return try db.query("SELECT \(raw: InstallRecord.columns) FROM installs WHERE install_id = \(installId)\(scope)")
                .map(InstallRecord.init(row:))
        }
        guard let install = rows.first, principal.kind == .admin || install.workspaceId == principal.workspaceId else {
            throw HTTPError.notFound(ErrorCode.unknownInstall, "no install \(installId)")
        }
        if rows.count > 1 {
            throw HTTPError.badRequest(ErrorCode.invalidQuery, "the install id is known in several apps; add ?appId=", field: "appId")
        }
        return install
    }
}

/// Numeric addresses only: what the transport reports, or what an ad server sends.
enum IPAddress {
    static func isValid(_ text: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}
