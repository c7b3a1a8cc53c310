import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayStore

/// App Store surfaces (where an app's notifications arrive) and the binds that mint `appAccountToken`s: the server,
/// never the app, makes the token and ties it to an affiliate, a program, the click and the install.
enum AppStoreBinding {
    static func routes(_ services: ServerServices) -> [Route] {
        [
            Route(method: .POST, pattern: "/v1/apps/{appId}/app-store-surfaces", operation: Operation(
                id: "createAppStoreSurface", summary: "Where an app's App Store Server Notifications arrive; the forwarding secret is in this response only",
                tag: "Affiliates", access: Access.management, requestSchema: "CreateSurfaceRequest",
                responses: [.json(201, "CreatedSurface", "The surface and its forwarding secret.")], maxBodyBytes: 1024)
            ) { request, context in
                let principal = try context.principal()
                let app = try await TenancyQueries.managedApp(context, services, principal)
                let body = try request.decode(CreateSurfaceRequest.self)
                guard ["production", "sandbox"].contains(body.environment) else {
                    throw HTTPError.invalidField("environment", "must be production or sandbox")
                }
                if body.environment == "production", app.appStoreId == nil {
                    throw HTTPError.invalidField("environment", "a production surface needs the app's appStoreId, which notifications are checked against")
                }
                let now = services.clock.nowMilliseconds()
                let id = Identifier.make("sfc")
                try await services.store.write { db in
                    try db.execute("""
                        INSERT INTO app_store_surfaces (id, workspace_id, app_id, environment, created_at)
                        VALUES (\(id), \(app.workspaceId), \(app.id), \(body.environment), \(now))
                        """)
                }
                return try .json(CreatedSurface(surface: surface(id: id, appId: app.id, environment: body.environment, createdAt: now),
                                                forwardingSecret: forwardingSecret(surfaceId: id, services.secrets)), status: 201)
            },

            Route(method: .GET, pattern: "/v1/apps/{appId}/app-store-surfaces", operation: Operation(
                id: "listAppStoreSurfaces", summary: "An app's App Store surfaces (never their secrets)", tag: "Affiliates",
                access: Access.management, responses: [.json(200, "AppStoreSurfaceList", "The surfaces.")])
            ) { _, context in
                let principal = try context.principal()
                let app = try await TenancyQueries.managedApp(context, services, principal)
                let surfaces = try await services.store.read { db in
                    try db.query("SELECT id, app_id, environment, created_at FROM app_store_surfaces WHERE app_id = \(app.id) ORDER BY created_at, id").map {
                        surface(id: try $0.string("id"), appId: try $0.string("app_id"), environment: try $0.string("environment"),
                                createdAt: try $0.int("created_at"))
                    }
                }
                return try .json(AppStoreSurfaceList(items: surfaces))
            },

            Route(method: .POST, pattern: "/v1/app-store/bind", operation: Operation(
                id: "bindAppAccountToken", summary: "Mint the appAccountToken for a purchase referred by an affiliate link (signedClickId) or code (refCode)",
                tag: "Affiliates", access: Access.client, requestSchema: "BindRequest",
                responses: [.json(200, "BindResponse", "The token to set on the StoreKit 2 purchase.")], maxBodyBytes: 4 * 1024, errors: [404], rateLimited: true)
            ) { request, context in
                let principal = try context.principal()
                let body = try request.decode(BindRequest.self)
                guard let appId = principal.appId, let app = try await services.links.app(id: appId) else {
                    throw HTTPError.forbidden(ErrorCode.keyKindForbidden, "needs an app's publishable key")
                }
                let installId = try Validate.installID(body.installId, field: "installId")
                let attested = try attestation(body.attestation, app: app, installId: installId, services: services)
                let now = services.clock.nowMilliseconds()
                switch (body.signedClickId, body.refCode) {
                case (let signed?, nil):
                    let click: SignedClickId
                    switch SignedClickId.verify(signed, key: services.secrets.clickSigningKey, now: services.clock.now()) {
                    case .success(let value): click = value
                    case .failure(.expired): throw HTTPError.badRequest(ErrorCode.invalidClick, "the signedClickId has expired", field: "signedClickId")
                    case .failure: throw HTTPError.badRequest(ErrorCode.invalidClick, "the signedClickId is not one this server signed", field: "signedClickId")
                    }
                    let binding = try await services.store.write { db -> BindResponse in
                        guard let row = try db.first("""
                            SELECT a.affiliate_id, a.program_id, p.offer_code, p.app_id FROM affiliate_links a JOIN affiliate_programs p ON p.id = a.program_id
                            WHERE a.link_id = \(click.linkId)
                            """), try row.string("app_id") == app.id else {
                            throw HTTPError.notFound(ErrorCode.noMatch, "the click is not on an affiliate link of this app")
                        }
                        return try mint(db, app: app, affiliateId: try row.string("affiliate_id"), programId: try row.string("program_id"),
                                        offerCode: try row.optionalString("offer_code"), method: "click", clickToken: click.clickToken,
                                        installId: installId, attested: attested, now: now)
                    }
                    return try .json(binding)
                case (nil, let text?):
                    let code = try AffiliateRoutes.normalizedCode(text)
                    let binding = try await services.store.write { db -> BindResponse in
                        guard let row = try db.first("""
                            SELECT c.affiliate_id, c.program_id, p.offer_code, p.app_id FROM affiliate_codes c JOIN affiliate_programs p ON p.id = c.program_id
                            WHERE c.workspace_id = \(app.workspaceId) AND c.code = \(code)
                            """), try row.string("app_id") == app.id else {
                            throw HTTPError.notFound(ErrorCode.unknownCode, "no affiliate program of this app has the code \(code)")
                        }
                        return try mint(db, app: app, affiliateId: try row.string("affiliate_id"), programId: try row.string("program_id"),
                                        offerCode: try row.optionalString("offer_code"), method: "code", clickToken: nil, installId: installId,
                                        attested: attested, now: now)
                    }
                    return try .json(binding)
                default:
                    throw HTTPError.badRequest(ErrorCode.missingField, "send signedClickId or refCode, not both", field: "signedClickId")
                }
            },

            Route(method: .POST, pattern: "/v1/app-store/bind/deferred", operation: Operation(
                id: "bindDeferred", summary: "Mint the appAccountToken for the newest affiliate click from this network address, if recent enough",
                tag: "Affiliates", access: Access.client, requestSchema: "DeferredBindRequest",
                responses: [.json(200, "BindResponse", "The token to set on the StoreKit 2 purchase.")], maxBodyBytes: 1024, errors: [404], rateLimited: true)
            ) { request, context in
                let principal = try context.principal()
                let body = try request.decode(DeferredBindRequest.self)
                guard let appId = principal.appId, let app = try await services.links.app(id: appId) else {
                    throw HTTPError.forbidden(ErrorCode.keyKindForbidden, "needs an app's publishable key")
                }
                guard try await services.store.read({ db in
                    try db.first("SELECT app_id FROM app_store_surfaces WHERE id = \(body.surfaceId)")?.string("app_id")
                }) == app.id else {
                    throw HTTPError.notFound(ErrorCode.notFound, "no App Store surface \(body.surfaceId) of this app")
                }
                let installId = try Validate.installID(body.installId, field: "installId")
                let attested = try attestation(body.attestation, app: app, installId: installId, services: services)
                let now = services.clock.nowMilliseconds()
                guard let address = request.remoteAddress else { throw HTTPError.notFound(ErrorCode.noMatch, "no recent affiliate click matches") }
                // The longest window any program of the app allows, over the day keys it reaches into.
                let reach: Int64 = try await services.store.read { db in
                    try db.first("SELECT MAX(deferred_minutes) AS m FROM affiliate_programs WHERE app_id = \(app.id)")?.optionalInt("m") ?? 0
                } * Matcher.minute
                guard reach > 0 else { throw HTTPError.notFound(ErrorCode.noMatch, "no recent affiliate click matches") }
                var reached = [try await services.addresses.hash(address, at: now)]
                if AddressHasher.day(now - reach) != AddressHasher.day(now) { reached.append(try await services.addresses.hash(address, at: now - reach)) }
                let hashes = reached
                let binding = try await services.store.write { db -> BindResponse in
                    for hash in hashes {
                        if let row = try db.first("""
                            SELECT c.token, c.created_at, a.affiliate_id, a.program_id, p.offer_code, p.deferred_minutes
                            FROM clicks c JOIN affiliate_links a ON a.link_id = c.link_id JOIN affiliate_programs p ON p.id = a.program_id
                            WHERE c.workspace_id = \(app.workspaceId) AND c.address_hash = \(hash) AND c.kind = 'click' AND p.app_id = \(app.id)
                              AND c.created_at >= \(now - reach)
                            ORDER BY c.created_at DESC LIMIT 1
                            """), try row.int("created_at") >= now - (try row.int("deferred_minutes")) * Matcher.minute {
                            return try mint(db, app: app, affiliateId: try row.string("affiliate_id"), programId: try row.string("program_id"),
                                            offerCode: try row.optionalString("offer_code"), method: "deferred", clickToken: try row.string("token"),
                                            installId: installId, attested: attested, now: now)
                        }
                    }
                    throw HTTPError.notFound(ErrorCode.noMatch, "no recent affiliate click matches")
                }
                return try .json(binding)
            },
        ]
    }

    /// Whether the bind carries a valid App Attest token; an app that requires one refuses binds without it (403), so
    /// unattested traffic earns no commission.
    static func attestation(_ token: String?, app: App, installId: String?, services: ServerServices) throws -> Bool {
        let attested = app.attestation.policy != "off"
            && AttestationToken.attests(token, appId: app.id, installId: installId, secrets: services.secrets, now: services.clock.now())
        if app.attestation.policy == "required", !attested {
            services.metrics.increment("linkrunway_unattested_total", labels: [("kind", "bind")])
            throw HTTPError.forbidden(ErrorCode.attestationRequired, "this app requires App Attest: attest, then send the token as attestation")
        }
        return attested
    }

    /// A new random UUID, tied to the affiliate and program.
    static func mint(_ db: any SQLExecutor, app: App, affiliateId: String, programId: String, offerCode: String?, method: String,
                     clickToken: String?, installId: String?, attested: Bool, now: Int64) throws -> BindResponse {
        let token = UUID().uuidString.lowercased()
        try db.execute("""
            INSERT INTO app_account_tokens (token, workspace_id, app_id, affiliate_id, program_id, method, click_token, install_id, attested, created_at)
            VALUES (\(token), \(app.workspaceId), \(app.id), \(affiliateId), \(programId), \(method), \(clickToken), \(installId), \(attested), \(now))
            """)
        return BindResponse(appAccountToken: token, offerCode: offerCode)
    }

    static func surface(id: String, appId: String, environment: String, createdAt: Int64) -> AppStoreSurface {
        AppStoreSurface(id: id, appId: appId, environment: environment, notificationPath: "/v1/app-store/notifications/\(id)",
                        forwardingPath: "/v1/app-store/assn/\(id)", createdAt: Timestamp.iso(createdAt))
    }

    /// Derived from the instance secret, so nothing secret is stored per surface.
    static func forwardingSecret(surfaceId: String, _ secrets: InstanceSecrets) -> String {
        "lrfs_" + ByteEncoding.hex(Digest.hmacSHA256(key: secrets.derivedKey("app store forwarding"), message: Array(surfaceId.utf8)))
    }
}
