import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayStore

/// Consent withdrawal and deletion of an installation, and the export of everything stored about one.
enum PrivacyRoutes {
    static func routes(_ services: ServerServices) -> [Route] {
        [
            Route(method: .POST, pattern: "/v1/installs/{installId}/forget", operation: Operation(
                id: "forgetInstall", summary: "Consent withdrawn: delete everything stored about this installation of the key's app",
                tag: "Installs", access: Access.client, responses: [.json(200, "DeletionReceipt", "What was deleted.")], errors: [403])
            ) { request, context in
                let principal = try context.principal()
                guard let appId = principal.appId else { throw HTTPError.forbidden(ErrorCode.keyKindForbidden, "needs a publishable key") }
                let installId = try installIdentifier(context)
                // A publishable key is public: the device proves the install is its own with the secret it sent first.
                try await InstallSecrets.check(request.headers["LinkRunway-Install-Secret"], appId: appId, installId: installId, services: services)
                return try .json(try await delete(appId: appId, installId: installId, services: services))
            },

            Route(method: .DELETE, pattern: "/v1/installs/{installId}", operation: Operation(
                id: "deleteInstall", summary: "Delete everything stored about an installation", tag: "Installs", access: Access.management,
                responses: [.json(200, "DeletionReceipt", "What was deleted.")],
                query: [QueryParameterDoc("appId", "The app (required when the id is known in several of the workspace's apps).")])
            ) { request, context in
                let principal = try context.principal()
                let installId = try installIdentifier(context)
                let appId = try await appOf(installId: installId, request: request, principal: principal, services: services)
                return try .json(try await delete(appId: appId, installId: installId, services: services))
            },

            Route(method: .GET, pattern: "/v1/installs/{installId}/export", operation: Operation(
                id: "exportInstall", summary: "Everything stored about an installation", tag: "Installs", access: Access.management,
                responses: [.json(200, "InstallExport", "The installation's data.")],
                query: [QueryParameterDoc("appId", "The app (required when the id is known in several of the workspace's apps).")])
            ) { request, context in
                let principal = try context.principal()
                let installId = try installIdentifier(context)
                let appId = try await appOf(installId: installId, request: request, principal: principal, services: services)
                return try .json(try await export(appId: appId, installId: installId, services: services))
            },
        ]
    }

    static func installIdentifier(_ context: RequestContext) throws -> String {
        guard let id = try ClientLinkRoutes.installID(try context.parameter("installId"), field: "installId") else {
            throw HTTPError.notFound(ErrorCode.unknownInstall, "no install")
        }
        return id
    }

    /// The app an install id belongs to within the caller's workspace (`appId` picks one when there are several).
    static func appOf(installId: String, request: HTTPRequest, principal: Principal, services: ServerServices) async throws -> String {
        if let appId = request.queryValue("appId") {
            guard let app = try await services.links.app(id: appId) else { throw HTTPError.badRequest(ErrorCode.invalidQuery, "no app \(appId)", field: "appId") }
            try principal.requireWorkspace(app.workspaceId)
            return app.id
        }
        let apps = try await services.store.read { db in
            try db.query("""
                SELECT DISTINCT app_id FROM installs WHERE install_id = \(installId) AND (\(principal.kind == .admin) = 1 OR workspace_id = \(principal.workspaceId ?? ""))
                UNION SELECT DISTINCT app_id FROM events WHERE install_id = \(installId) AND (\(principal.kind == .admin) = 1 OR workspace_id = \(principal.workspaceId ?? ""))
                """).map { try $0.string("app_id") }
        }
        guard let first = apps.first else { throw HTTPError.notFound(ErrorCode.unknownInstall, "no install \(installId)") }
        guard apps.count == 1 else { throw HTTPError.badRequest(ErrorCode.invalidQuery, "the install id is known in several apps; add ?appId=", field: "appId") }
        return first
    }

    /// Deletes the install, its events, clicks and opens, click claims, referral codes and webhook payloads; unlinks its
    /// shares and affiliate binds.
    static func delete(appId: String, installId: String, services: ServerServices) async throws -> DeletionReceipt {
        let now = services.clock.nowMilliseconds()
        let counts: [String: Int] = try await services.store.write { db in
            guard let app = try TenancyQueries.app(db, id: appId) else { throw HTTPError.notFound(ErrorCode.unknownInstall, "no app \(appId)") }
            let install = try InstallRecord.find(db, appId: appId, installId: installId)
            var counts: [String: Int] = [:]
            counts["eventIds"] = try db.execute("""
                DELETE FROM event_ids WHERE app_id = \(appId) AND event_id IN (SELECT event_id FROM events WHERE app_id = \(appId) AND install_id = \(installId))
                """)
            counts["events"] = try db.execute("DELETE FROM events WHERE app_id = \(appId) AND install_id = \(installId)")
            var clicks = try db.execute("DELETE FROM clicks WHERE install_id = \(installId) AND workspace_id = \(app.workspaceId)")
            if let token = install?.clickToken { clicks += try db.execute("DELETE FROM clicks WHERE token = \(token)") }
            counts["clicks"] = clicks
            counts["clickClaims"] = try db.execute("DELETE FROM click_claims WHERE app_id = \(appId) AND install_id = \(installId)")
            counts["referralCodes"] = try db.execute("DELETE FROM referral_codes WHERE app_id = \(appId) AND install_id = \(installId)")
            counts["sharesUnlinked"] = try db.execute("""
                UPDATE links SET referrer_install_id = NULL WHERE workspace_id = \(app.workspaceId) AND referrer_install_id = \(installId)
                """)
            counts["webhookDeliveries"] = try db.execute("DELETE FROM webhook_deliveries WHERE \(webhookDeliveries(of: installId, clickToken: install?.clickToken, workspaceId: app.workspaceId))")
            counts["attestKeys"] = try db.execute("DELETE FROM attest_keys WHERE app_id = \(appId) AND install_id = \(installId)")
            counts["appleAdsClaims"] = try db.execute("DELETE FROM apple_ads_claims WHERE app_id = \(appId) AND install_id = \(installId)")
            // The appAccountToken and its commissions are the affiliate's financial record and stay; the install goes.
            counts["affiliateBindsUnlinked"] = try db.execute("""
                UPDATE app_account_tokens SET install_id = NULL, click_token = NULL WHERE app_id = \(appId) AND install_id = \(installId)
                """)
            counts["installs"] = try db.execute("DELETE FROM installs WHERE app_id = \(appId) AND install_id = \(installId)")
            try db.execute("DELETE FROM install_secrets WHERE app_id = \(appId) AND install_id = \(installId)")
            return counts
        }
        return DeletionReceipt(installId: installId, appId: appId, deletedAt: Timestamp.iso(now), deleted: counts)
    }

    /// The webhook deliveries whose payload names the installation or its click token.
    static func webhookDeliveries(of installId: String, clickToken: String?, workspaceId: String) -> SQL {
        let byInstall = "%\"installId\":\"\(installId)\"%"
        let byToken: SQL = clickToken.map { " OR payload LIKE \("%\($0)%")" } ?? ""
        return "workspace_id = \(workspaceId) AND (payload LIKE \(byInstall)\(byToken))"
    }

    static func export(appId: String, installId: String, services: ServerServices) async throws -> InstallExport {
        try await services.store.read { db in
            let install = try InstallRecord.find(db, appId: appId, installId: installId)
            let attribution: AttributionExplanation? = try install.map { install in
                let link = try install.linkId.flatMap { try LinkRecord.find(db, id: $0) }
                let explanation = Explanation.decode(install.explanation)
                return AttributionExplanation(match: install.wire(link: link), settings: explanation?.settings ?? AttributionSettings(),
                                              rules: explanation?.rules ?? [], candidates: explanation?.candidates ?? [],
                                              winner: explanation?.winner, simulated: install.simulated)
            }
            let events = try db.query("SELECT * FROM events WHERE app_id = \(appId) AND install_id = \(installId) ORDER BY occurred_at, event_id").map { row in
                StoredEvent(eventId: try row.string("event_id"), type: try row.string("type"), name: try row.optionalString("name"),
                            userId: try row.optionalString("user_id"), occurredAt: Timestamp.iso(try row.int("occurred_at")),
                            receivedAt: Timestamp.iso(try row.int("received_at")), amount: try row.optionalInt("amount"),
                            currency: try row.optionalString("currency"),
                            properties: try row.optionalString("properties").flatMap { try? JSONDecoder().decode([String: JSONLiteral].self, from: Data($0.utf8)) },
                            attested: try row.bool("attested"),
                            attribution: EventAttribution(method: try row.string("method"), source: try row.string("source"), linkId: try row.optionalString("link_id"),
                                                          campaign: try row.optionalString("campaign"), channel: try row.optionalString("channel"),
                                                          feature: try row.optionalString("feature"),
                                                          appleAdsCampaignId: try row.optionalString("apple_ads_campaign_id"),
                                                          appleAdsAdGroupId: try row.optionalString("apple_ads_ad_group_id"),
                                                          appleAdsKeywordId: try row.optionalString("apple_ads_keyword_id")))
            }
            let workspace = try install?.workspaceId ?? TenancyQueries.app(db, id: appId)?.workspaceId ?? ""
            var visits = try db.query("SELECT * FROM clicks WHERE install_id = \(installId) AND workspace_id = \(workspace) ORDER BY created_at")
            if let token = install?.clickToken, let matched = try db.first("SELECT * FROM clicks WHERE token = \(token)") { visits.insert(matched, at: 0) }
            let referralCodes = try db.query("SELECT * FROM referral_codes WHERE app_id = \(appId) AND install_id = \(installId)").map(ClientLinkRoutes.referralCode)
            let shared = try db.query("SELECT id FROM links WHERE workspace_id = \(workspace) AND referrer_install_id = \(installId) ORDER BY created_at").map { try $0.string("id") }
            let appleAds = try db.first("SELECT \(raw: AppleAdsClaims.columns) FROM apple_ads_claims WHERE app_id = \(appId) AND install_id = \(installId)")
                .map { try AppleAdsClaims.wire($0, now: Int64(Date().timeIntervalSince1970 * 1000)) }
            return InstallExport(attribution: attribution, appleAds: appleAds, events: events, visits: try visits.map { row in
                StoredVisit(token: try row.string("token"), kind: try row.string("kind"), linkId: try row.string("link_id"), platform: try row.string("platform"),
                            osVersion: try row.optionalString("os_version"), referrerHost: try row.optionalString("referrer_host"),
                            createdAt: Timestamp.iso(try row.int("created_at")))
            }, referralCodes: referralCodes, sharedLinkIds: shared, affiliateBinds: try db.query("""
                SELECT token, affiliate_id, program_id, method, created_at FROM app_account_tokens WHERE app_id = \(appId) AND install_id = \(installId)
                ORDER BY created_at
                """).map {
                ExportedBind(appAccountToken: try $0.string("token"), affiliateId: try $0.string("affiliate_id"), programId: try $0.string("program_id"),
                             method: try $0.string("method"), createdAt: Timestamp.iso(try $0.int("created_at")))
            }, webhookDeliveries: try db.query("""
                SELECT id, webhook_id, topic, status, payload, created_at FROM webhook_deliveries
                WHERE \(webhookDeliveries(of: installId, clickToken: install?.clickToken, workspaceId: workspace)) ORDER BY created_at, id
                """).map {
                ExportedWebhookDelivery(id: try $0.string("id"), webhookId: try $0.string("webhook_id"), topic: try $0.string("topic"),
                                        status: try $0.string("status"), payload: try $0.string("payload"), createdAt: Timestamp.iso(try $0.int("created_at")))
            })
        }
    }
}
