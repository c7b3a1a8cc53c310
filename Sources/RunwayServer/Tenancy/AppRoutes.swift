import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayStore

/// `/v1/apps`: the apps of a workspace, with the Apple identifiers every other capability needs.
enum AppRoutes {
    static func routes(_ services: ServerServices) -> [Route] {
        [
            Route(method: .POST, pattern: "/v1/apps", operation: Operation(
                id: "createApp", summary: "Register an app", tag: "Apps", access: Access.management,
                requestSchema: "CreateAppRequest", responses: [.json(201, "App", "The new app.")],
                maxBodyBytes: 16 * 1024, errors: [409], idempotent: true)
            ) { request, context in
                let principal = try context.principal()
                let body = try request.decode(CreateAppRequest.self)
                guard let workspaceId = body.workspaceId ?? principal.workspaceId else {
                    throw HTTPError.badRequest(ErrorCode.missingField, "workspaceId is required with an admin key", field: "workspaceId")
                }
                try principal.requireWorkspace(workspaceId)
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
                    try insertUnique(db, app: app, now: now)
                    try claimIdentities(db, of: app, previous: nil, now: now)
                    return try HTTPResponse.json(app, status: 201)
                }
                if let appStoreId { services.links.forget(appStoreId: appStoreId) }
                return response
            },

            Route(method: .GET, pattern: "/v1/apps", operation: Operation(
                id: "listApps", summary: "List apps", tag: "Apps", access: Access.management,
                responses: [.json(200, "AppPage", "A page of apps, oldest first.")],
                query: [QueryParameterDoc("workspaceId", "Only this workspace's apps (a server key always sees only its own).")] + pageQuery)
            ) { request, context in
                let principal = try context.principal()
                let page = try PageRequest(request)
                let scope = try principal.workspaceFilter(request)
                return try .json(await readPage(services.store, table: "apps", columns: TenancyRows.appColumns, filter: scope,
                                                page: page, row: TenancyRows.app, id: \.id))
            },

            Route(method: .GET, pattern: "/v1/apps/{appId}", operation: Operation(
                id: "getApp", summary: "Show an app", tag: "Apps", access: Access.management,
                responses: [.json(200, "App", "The app.")])
            ) { _, context in
                let app = try await load(services, context)
                return try .json(app)
            },

            Route(method: .PATCH, pattern: "/v1/apps/{appId}", operation: Operation(
                id: "updateApp", summary: "Change an app's fields", tag: "Apps", access: Access.management,
                requestSchema: "UpdateAppRequest", responses: [.json(200, "App", "The app as changed.")],
                maxBodyBytes: 16 * 1024, errors: [409], idempotent: true)
            ) { request, context in
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
                        throw HTTPError.notFound(ErrorCode.notFound, "no app \(id)")
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
                        try db.execute("""
                            UPDATE apps SET name = \(app.name), team_id = \(app.teamId), bundle_id = \(app.bundleId),
                                app_store_id = \(app.appStoreId), platforms = \(app.platforms.map(\.rawValue).joined(separator: ",")),
                                android_package = \(app.android?.packageName),
                                android_fingerprints = \(app.android?.sha256CertFingerprints.joined(separator: ",")),
                                probabilistic_minutes = \(app.attribution.probabilisticMinutes),
                                view_through_hours = \(app.attribution.viewThroughHours),
                                click_window_days = \(app.attribution.clickWindowDays), attest_policy = \(app.attestation.policy),
                                attest_environments = \(app.attestation.environments.joined(separator: ",")),
                                postback_settings = \(storedSettings(app.postbacks)), updated_at = \(now)
                            WHERE id = \(app.id)
                            """)
                    } catch StoreError.conflict {
                        throw appExists(app)
                    }
                    try claimIdentities(db, of: app, previous: previous, now: now)
                    return (previousStoreId, app)
                }, answer: { try HTTPResponse.json($0.1) })
                services.links.forget(appId: updated.id)
                for storeId in [previousStoreId, updated.appStoreId].compactMap({ $0 }) { services.links.forget(appStoreId: storeId) }
                return response
            },
        ]
    }

    /// The app named by the path, if the caller may see it.
    static func load(_ services: ServerServices, _ context: RequestContext) async throws -> App {
        let principal = try context.principal()
        let id = try context.parameter("appId")
        guard let app = try await services.store.read({ db in try TenancyQueries.app(db, id: id) }) else {
            throw HTTPError.notFound(ErrorCode.notFound, "no app \(id)")
        }
        try principal.requireWorkspace(app.workspaceId)
        return app
    }

    static func insertUnique(_ db: any SQLExecutor, app: App, now: Int64) throws {
        do {
            try db.execute("""
                INSERT INTO apps (id, workspace_id, name, team_id, bundle_id, app_store_id, platforms, android_package,
                                  android_fingerprints, probabilistic_minutes, view_through_hours, click_window_days, attest_policy,
                                  attest_environments, postback_settings, created_at, updated_at)
                VALUES (\(app.id), \(app.workspaceId), \(app.name), \(app.teamId), \(app.bundleId), \(app.appStoreId),
                        \(app.platforms.map(\.rawValue).joined(separator: ",")), \(app.android?.packageName),
                        \(app.android?.sha256CertFingerprints.joined(separator: ",")), \(app.attribution.probabilisticMinutes),
                        \(app.attribution.viewThroughHours), \(app.attribution.clickWindowDays), \(app.attestation.policy),
                        \(app.attestation.environments.joined(separator: ",")), \(storedSettings(app.postbacks)), \(now), \(now))
                """)
        } catch StoreError.conflict {
            throw appExists(app)
        } catch StoreError.constraint {
            throw HTTPError.invalidField("workspaceId", "no workspace has this id")
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
            try db.execute("DELETE FROM app_identities WHERE identity = \(identity) AND app_id = \(app.id)")
        }
        for identity in wanted where !had.contains(identity) {
            let inserted = try db.execute("""
                INSERT INTO app_identities (identity, app_id, workspace_id, created_at) VALUES (\(identity), \(app.id), \(app.workspaceId), \(now))
                ON CONFLICT (identity) DO NOTHING
                """)
            guard inserted == 1 else {
                let what = identity.hasPrefix("store:") ? "App Store id \(app.appStoreId ?? "")" : "team \(app.teamId) with bundle \(app.bundleId)"
                throw HTTPError.conflict(ErrorCode.appIdentityTaken, "the \(what) is registered by another app; an app's identity belongs to one workspace")
            }
        }
    }

    static func appExists(_ app: App) -> HTTPError {
        HTTPError.conflict("app_exists", "the workspace already has an app with team \(app.teamId) and bundle \(app.bundleId)")
    }

    /// Postback settings as stored: JSON, or NULL while they are the defaults.
    static func storedSettings(_ settings: PostbackSettings) -> String? {
        guard settings != PostbackSettings() else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(settings)).map { String(decoding: $0, as: UTF8.self) }
    }
}
