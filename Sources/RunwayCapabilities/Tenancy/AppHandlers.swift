import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// `/v1/apps`: the apps of a workspace, with the Apple identifiers every other capability needs.
struct AppHandlers: Sendable {
    let services: ServerServices

    func create(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let body = try request.decode(CreateAppRequest.self)
        let workspaceId = try principal.actingWorkspace(body.workspaceId)
        let name = try Validate.name(body.name)
        let teamId = try Validate.teamId(body.teamId)
        let bundleId = try Validate.bundleId(body.bundleId)
        let appStoreId = try Validate.appStoreId(body.appStoreId)
        let platforms = try Validate.platforms(body.platforms)
        let android = try Validate.android(body.android)
        let attribution = try Validate.attribution(body.attribution, onto: AttributionSettings())
        let attestation = try Validate.attestation(body.attestation) ?? AttestationSettings()
        let postbacks = try Validate.postbacks(body.postbacks, policy: services.outbound) ?? PostbackSettings()
        let now = services.clock.nowMilliseconds()
        let app = App(id: Identifier.make("app"), workspaceId: workspaceId, name: name, teamId: teamId,
                      bundleId: bundleId, appStoreId: appStoreId, platforms: platforms, android: android, attribution: attribution,
                      attestation: attestation, postbacks: postbacks,
                      createdAt: Timestamp.iso(now), updatedAt: Timestamp.iso(now))
        let response = try await IdempotencyClaim.write(services.store, context) { db in
            try Self.insertUnique(db, app: app, now: now)
            try Self.claimIdentities(db, of: app, previous: nil, now: now)
            return try HTTPResponse.json(app, status: 201)
        }
        if let appStoreId { services.links.forget(appStoreId: appStoreId) }
        return response
    }

    func list(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let page = try PageRequest(request)
        let scope = try await principal.workspaceFilter(request, in: services.store)
        return try .json(await readPage(services.store, table: "apps", columns: TenancyRows.appColumns, filter: scope,
                                        page: page, row: TenancyRows.app, id: \.id))
    }

    func get(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let app = try await TenancyQueries.managedApp(context, services, try context.principal())
        return try .json(app)
    }

    func update(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let id = try context.parameter("appId")
        let body = try request.decode(UpdateAppRequest.self)
        let name = try body.name.map { try Validate.name($0) }
        let teamId = try body.teamId.map(Validate.teamId)
        let bundleId = try body.bundleId.map(Validate.bundleId)
        let appStoreId = try Validate.appStoreId(body.appStoreId)
        let platforms = try body.platforms.map { try Validate.platforms($0) }
        let android = try Validate.android(body.android)
        let attestation = try Validate.attestation(body.attestation)
        let postbacks = try Validate.postbacks(body.postbacks, policy: services.outbound)
        let now = services.clock.nowMilliseconds()
        let ((previousStoreId, updated), response) = try await IdempotencyClaim.write(services.store, context, { db in
            guard var app = try TenancyQueries.app(db, id: id) else {
                throw RequestError.notFound("no app \(id)")
            }
            try principal.requireWorkspace(app.workspaceId)
            let previous = app
            let previousStoreId = app.appStoreId
            app.name = name ?? app.name
            app.teamId = teamId ?? app.teamId
            app.bundleId = bundleId ?? app.bundleId
            app.appStoreId = appStoreId ?? app.appStoreId
            app.platforms = platforms ?? app.platforms
            app.android = android ?? app.android
            app.attribution = try Validate.attribution(body.attribution, onto: app.attribution)
            app.attestation = attestation ?? app.attestation
            app.postbacks = postbacks ?? app.postbacks
            app.updatedAt = Timestamp.iso(now)
            do {
                try TenancyQueries.updateApp(db, app, now: now)
            } catch StoreError.conflict {
                throw Self.appExists(app)
            }
            try Self.claimIdentities(db, of: app, previous: previous, now: now)
            return (previousStoreId, app)
        }, answer: { try HTTPResponse.json($0.1) })
        services.links.forget(appId: updated.id)
        for storeId in [previousStoreId, updated.appStoreId].compactMap({ $0 }) { services.links.forget(appStoreId: storeId) }
        return response
    }

    /// Inserts a new app; a team and bundle its workspace already has is 409 `app_exists`.
    static func insertUnique(_ db: any SQLExecutor, app: App, now: Int64) throws {
        do {
            try TenancyQueries.insertApp(db, app, now: now)
        } catch StoreError.conflict {
            throw appExists(app)
        } catch StoreError.constraint {
            throw RequestError.invalidField("workspaceId", "no workspace has this id")
        }
    }

    /// What an app claims for itself across every workspace: its App Store id and its team and bundle id.
    static func identities(_ app: App) -> [String] {
        (app.appStoreId.map { ["store:" + $0] } ?? []) + ["bundle:\(app.teamId).\(app.bundleId)"]
    }

    /// Claims the identities the app has and `previous` did not (all of them for a new app) and gives up the ones it no
    /// longer has, so postbacks for an App Store id go to one app only. An identity another app holds is 409
    /// `app_identity_taken`, whichever workspace that app is in (which is not said). One unchanged is left as it is, so an
    /// app that lost an identity to an older app before claims existed can still be edited.
    static func claimIdentities(_ db: any SQLExecutor, of app: App, previous: App?, now: Int64) throws {
        let wanted = identities(app), had = previous.map(identities) ?? []
        for identity in had where !wanted.contains(identity) {
            try TenancyQueries.releaseIdentity(db, identity, appId: app.id)
        }
        for identity in wanted where !had.contains(identity) {
            guard try TenancyQueries.claimIdentity(db, identity, for: app, now: now) else {
                let what = identity.hasPrefix("store:") ? "App Store id \(app.appStoreId ?? "")" : "team \(app.teamId) with bundle \(app.bundleId)"
                throw TenancyError.appIdentityTaken(what)
            }
        }
    }

    static func appExists(_ app: App) -> TenancyError {
        TenancyError.appExists(teamId: app.teamId, bundleId: app.bundleId)
    }
}
