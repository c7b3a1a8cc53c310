import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayKit
import RunwayStore

/// App Store surfaces (where an app's notifications arrive) and the binds that mint `appAccountToken`s: the server,
/// never the app, makes the token and ties it to an affiliate, a program, the click and the install.
struct BindHandlers: Sendable {
    let services: ServerServices

    func createSurface(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let app = try await TenancyQueries.managedApp(context, services, principal)
        let body = try request.decode(CreateSurfaceRequest.self)
        guard let environment = AppStoreVerifier.Environment(surfaceName: body.environment) else {
            throw RequestError.invalidField("environment", "must be production or sandbox")
        }
        if environment == .production, app.appStoreId == nil {
            throw RequestError.invalidField("environment", "a production surface needs the app's appStoreId, which notifications are checked against")
        }
        let now = services.clock.nowMilliseconds()
        let id = SurfaceId(Identifier.make("sfc"))
        try await services.store.write { db in
            try AffiliateQueries.insertSurface(db, id: id, workspaceId: WorkspaceId(app.workspaceId), appId: AppId(app.id), environment: environment, now: now)
        }
        return try .json(CreatedSurface(surface: Self.surface(id: id, appId: AppId(app.id), environment: environment.surfaceName, createdAt: now),
                                        forwardingSecret: Self.forwardingSecret(surfaceId: id, services.secrets)), status: 201)
    }

    func listSurfaces(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let app = try await TenancyQueries.managedApp(context, services, principal)
        let surfaces = try await services.store.read { db in
            try AffiliateQueries.surfaces(db, appId: AppId(app.id)).map {
                Self.surface(id: $0.id, appId: $0.appId, environment: $0.environment, createdAt: $0.createdAt)
            }
        }
        return try .json(AppStoreSurfaceList(items: surfaces))
    }

    func bind(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let body = try request.decode(BindRequest.self)
        let app = try await bindingApp(principal)
        let installId = try Validate.installID(body.installId, field: "installId").map(InstallId.init)
        let attested = try attestation(body.attestation, app: app, installId: installId)
        let now = services.clock.nowMilliseconds()
        switch (body.signedClickId, body.refCode) {
        case (let signed?, nil):
            let click: SignedClickId
            switch SignedClickId.verify(signed, key: services.secrets.clickSigningKey, now: services.clock.now()) {
            case .success(let value): click = value
            case .failure(.expired): throw AffiliatesError.invalidClick(expired: true)
            case .failure: throw AffiliatesError.invalidClick(expired: false)
            }
            let binding = try await services.store.write { db -> BindResponse in
                guard let referral = try AffiliateQueries.linkReferral(db, linkId: click.linkId), referral.appId == AppId(app.id) else {
                    throw AffiliatesError.clickNotAffiliate
                }
                return try Self.mint(db, app: app, affiliateId: referral.affiliateId, programId: referral.programId, offerCode: referral.offerCode,
                                     method: "click", clickToken: click.clickToken, installId: installId,
                                     attested: attested, now: now)
            }
            return try .json(binding)
        case (nil, let text?):
            let code = try AffiliateHandlers.normalizedCode(text)
            let binding = try await services.store.write { db -> BindResponse in
                guard let referral = try AffiliateQueries.codeReferral(db, workspaceId: WorkspaceId(app.workspaceId), code: code),
                      referral.appId == AppId(app.id) else {
                    throw AffiliatesError.unknownCode(code)
                }
                return try Self.mint(db, app: app, affiliateId: referral.affiliateId, programId: referral.programId, offerCode: referral.offerCode,
                                     method: "code", clickToken: nil, installId: installId, attested: attested, now: now)
            }
            return try .json(binding)
        default:
            throw RequestError.missingField("send signedClickId or refCode, not both", field: "signedClickId")
        }
    }

    func bindDeferred(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let body = try request.decode(DeferredBindRequest.self)
        let app = try await bindingApp(principal)
        let appId = AppId(app.id), workspaceId = WorkspaceId(app.workspaceId)
        guard try await services.store.read({ db in try AffiliateQueries.surfaceApp(db, id: SurfaceId(body.surfaceId)) }) == appId else {
            throw RequestError.notFound("no App Store surface \(body.surfaceId) of this app")
        }
        let installId = try Validate.installID(body.installId, field: "installId").map(InstallId.init)
        let attested = try attestation(body.attestation, app: app, installId: installId)
        let now = services.clock.nowMilliseconds()
        guard let address = request.remoteAddress else { throw AffiliatesError.noMatch }
        // The longest window any program of the app allows, over the day keys it reaches into.
        let reach: Int64 = try await services.store.read { db in try AffiliateQueries.maxDeferredMinutes(db, appId: appId) } * Matcher.minute
        guard reach > 0 else { throw AffiliatesError.noMatch }
        var reached = [try await services.addresses.hash(address, at: now)]
        if AddressHasher.day(now - reach) != AddressHasher.day(now) { reached.append(try await services.addresses.hash(address, at: now - reach)) }
        let hashes = reached
        // A bind without an install id claims its click for itself alone.
        let claimant = installId.map { "install:" + $0.rawValue } ?? "bind:" + Identifier.make("dbd")
        let binding = try await services.store.write { db -> BindResponse in
            func within(_ click: AffiliateRows.AffiliateClick) -> Bool { click.createdAt >= now - click.deferredMinutes * Matcher.minute }
            // The install's own matched click first: it is this device's, whoever else shares the address.
            var candidates: [AffiliateRows.AffiliateClick] = []
            if let installId, let matched = try AffiliateQueries.matchedAffiliateClick(db, appId: appId, installId: installId) {
                candidates.append(matched)
            }
            for hash in hashes {
                candidates += try AffiliateQueries.affiliateClicks(db, workspaceId: workspaceId, appId: appId, addressHash: hash,
                                                                   since: now - reach, installId: installId, claimant: claimant)
            }
            guard let click = try Self.claimFirst(db, candidates.filter(within), appId: appId, claimant: claimant, now: now) else {
                throw AffiliatesError.noMatch
            }
            return try Self.mint(db, app: app, affiliateId: click.affiliateId, programId: click.programId, offerCode: click.offerCode,
                                 method: "deferred", clickToken: click.token, installId: installId, attested: attested, now: now)
        }
        return try .json(binding)
    }

    /// The first of `candidates` this claimant takes, or nil. Each click serves one install: the first bind to take it
    /// keeps it, so a click another bind took after the candidates were read is passed over.
    static func claimFirst(_ db: any SQLExecutor, _ candidates: [AffiliateRows.AffiliateClick], appId: AppId, claimant: String,
                           now: Int64) throws -> AffiliateRows.AffiliateClick? {
        for click in candidates {
            guard try AffiliateQueries.claimDeferredClick(db, token: click.token, appId: appId, claimant: claimant, now: now) else { continue }
            return click
        }
        return nil
    }

    /// The publishable key's app.
    func bindingApp(_ principal: Principal) async throws -> App {
        guard let appId = principal.appId, let app = try await services.apps.app(id: appId) else {
            throw AccessError.keyKindForbidden("needs an app's publishable key")
        }
        return app
    }

    /// Whether the bind carries a valid App Attest token; an app that requires one refuses binds without it (403), so
    /// unattested traffic earns no commission.
    func attestation(_ token: String?, app: App, installId: InstallId?) throws -> Bool {
        let attested = app.attestation.policy != "off"
            && AttestationToken.attests(token, appId: app.id, installId: installId?.rawValue, secrets: services.secrets, now: services.clock.now())
        if app.attestation.policy == "required", !attested {
            services.metrics.increment("linkrunway_unattested_total", labels: [("kind", "bind")])
            throw AttestError.required
        }
        return attested
    }

    /// A new random UUID, tied to the affiliate and program, with the program's offer code.
    static func mint(_ db: any SQLExecutor, app: App, affiliateId: AffiliateId, programId: ProgramId, offerCode: String?, method: String,
                     clickToken: String?, installId: InstallId?, attested: Bool, now: Int64) throws -> BindResponse {
        let token = BindToken(UUID().uuidString.lowercased())
        try AffiliateQueries.insertToken(db, token: token, app: app, affiliateId: affiliateId, programId: programId, method: method,
                                         clickToken: clickToken, installId: installId, attested: attested, now: now)
        return BindResponse(appAccountToken: token.rawValue, offerCode: offerCode)
    }

    static func surface(id: SurfaceId, appId: AppId, environment: String, createdAt: Int64) -> AppStoreSurface {
        AppStoreSurface(id: id.rawValue, appId: appId.rawValue, environment: environment, notificationPath: "/v1/app-store/notifications/\(id)",
                        forwardingPath: "/v1/app-store/assn/\(id)", retentionPath: RetentionMessagingCapability.path(surfaceId: id),
                        createdAt: Timestamp.iso(createdAt))
    }

    /// Derived from the instance secret, so nothing secret is stored per surface.
    static func forwardingSecret(surfaceId: SurfaceId, _ secrets: InstanceSecrets) -> String {
        "lrfs_" + ByteEncoding.hex(Digest.hmacSHA256(key: secrets.derivedKey("app store forwarding"), message: Array(surfaceId.rawValue.utf8)))
    }
}
