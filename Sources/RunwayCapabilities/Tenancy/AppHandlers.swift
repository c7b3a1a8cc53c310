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
        var attestation = try Validate.attestation(body.attestation) ?? AttestationSettings()
        attestation.builds = attestation.builds ?? "any"
        let postbacks = try Validate.postbacks(body.postbacks, policy: services.outbound) ?? PostbackSettings()
        let now = services.clock.nowMilliseconds()
        let app = App(id: Identifier.make("app"), workspaceId: workspaceId, name: name, teamId: teamId,
                      bundleId: bundleId, appStoreId: appStoreId, platforms: platforms, android: android, attribution: attribution,
                      attestation: attestation, postbacks: postbacks,
                      createdAt: Timestamp.iso(now), updatedAt: Timestamp.iso(now))
        let response = try await IdempotencyClaim.write(services.store, context) { db in
            try Self.insertUnique(db, app: app, now: now)
            try Self.claimIdentities(db, of: app, previous: nil, principal: principal, now: now)
            return try HTTPResponse.json(try TenancyQueries.app(db, id: app.id) ?? app, status: 201)
        }
        if let appStoreId { services.apps.forget(appStoreId: appStoreId) }
        return response
    }

    func list(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let page = try PageRequest(request)
        let scope = try await principal.workspaceFilter(request, in: services.store)
        return try .json(await readPage(services.store, table: "apps", columns: TenancyRows.appColumns, filter: scope,
                                        page: page, as: TenancyRows.AppRow.self, wire: { try $0.wire() }, id: \.id))
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
            if var attestation {
                attestation.builds = attestation.builds ?? app.attestation.builds
                app.attestation = attestation
            }
            app.postbacks = postbacks ?? app.postbacks
            app.updatedAt = Timestamp.iso(now)
            do {
                try TenancyQueries.updateApp(db, app, now: now)
            } catch StoreError.conflict {
                throw Self.appExists(app)
            }
            try Self.claimIdentities(db, of: app, previous: previous, principal: principal, now: now)
            return (previousStoreId, try TenancyQueries.app(db, id: app.id) ?? app)
        }, answer: { try HTTPResponse.json($0.1) })
        services.apps.forget(appId: updated.id)
        for storeId in [previousStoreId, updated.appStoreId].compactMap({ $0 }) { services.apps.forget(appStoreId: storeId) }
        return response
    }

    func appStoreId(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let app = try await TenancyQueries.managedApp(context, services, try context.principal())
        return try .json(try await services.store.read { db in try Self.status(db, app) })
    }

    /// An admin's word proves the App Store id; another app proven by an admin keeps it (409).
    func proveAppStoreId(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let app = try await TenancyQueries.managedApp(context, services, try context.principal())
        guard let appStoreId = app.appStoreId else { throw RequestError.invalidField("appStoreId", "the app names no App Store id") }
        let now = services.clock.nowMilliseconds()
        let status = try await services.store.write { db in
            let outcome = try AppStoreIdentity.prove(db, app: app, proof: .admin, now: now)
            guard outcome.holds else { throw TenancyError.appIdentityTaken("App Store id \(appStoreId)") }
            var status = try Self.status(db, app)
            status.postbacksMoved = outcome.postbacksMoved
            return status
        }
        services.apps.forget(appStoreId: appStoreId)
        return try .json(status)
    }

    static func status(_ db: any SQLExecutor, _ app: App) throws -> AppStoreIdStatus {
        let holder = try app.appStoreId.flatMap { try AppStoreIdentityQueries.holder(db, appStoreId: $0) }
        guard let holder, holder.appId == app.id else { return AppStoreIdStatus(appId: app.id, appStoreId: app.appStoreId, proven: false) }
        return AppStoreIdStatus(appId: app.id, appStoreId: app.appStoreId, proven: true, proof: holder.proof.rawValue,
                                provenAt: Timestamp.iso(holder.provenAt))
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

    /// What an app claims for itself alone across every workspace: its team and bundle id.
    static func identities(_ app: App) -> [String] {
        ["bundle:\(app.teamId).\(app.bundleId)"]
    }

    /// Claims the identities the app has and `previous` did not (all of them for a new app) and gives up the ones it no
    /// longer has. A team and bundle id another app holds is 409 `app_identity_taken`, whichever workspace that app is
    /// in (which is not said); one unchanged is left as it is, so an app that lost an identity to an older app before
    /// claims existed can still be edited. An App Store id is claimed unproven (`AppStoreIdentity`), so naming one takes
    /// nothing from the app that proved it; an admin key's word proves it, and is 409 only against another admin's.
    static func claimIdentities(_ db: any SQLExecutor, of app: App, previous: App?, principal: Principal, now: Int64) throws {
        let wanted = identities(app), had = previous.map(identities) ?? []
        for identity in had where !wanted.contains(identity) {
            try TenancyQueries.releaseIdentity(db, identity, appId: app.id)
        }
        for identity in wanted where !had.contains(identity) {
            guard try TenancyQueries.claimIdentity(db, identity, for: app, now: now) else {
                throw TenancyError.appIdentityTaken("team \(app.teamId) with bundle \(app.bundleId)")
            }
        }
        if let old = previous?.appStoreId, old != app.appStoreId { try AppStoreIdentityQueries.release(db, appStoreId: old, appId: app.id) }
        guard let appStoreId = app.appStoreId, appStoreId != previous?.appStoreId else { return }
        try AppStoreIdentityQueries.claim(db, appStoreId: appStoreId, app: app, now: now)
        if principal.kind == .admin, try !AppStoreIdentity.prove(db, app: app, proof: .admin, now: now).holds {
            throw TenancyError.appIdentityTaken("App Store id \(appStoreId)")
        }
    }

    static func appExists(_ app: App) -> TenancyError {
        TenancyError.appExists(teamId: app.teamId, bundleId: app.bundleId)
    }
}
