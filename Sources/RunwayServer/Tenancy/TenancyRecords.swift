import LinkRunwayAPI
import RunwayHTTP
import RunwayJSON
import RunwayStore

/// Reading tenancy rows into wire types.
enum TenancyRows {
    static func workspace(_ row: SQLRow) throws -> Workspace {
        Workspace(id: try row.string("id"), name: try row.string("name"), createdAt: Timestamp.iso(try row.int("created_at")))
    }

    static func app(_ row: SQLRow) throws -> App {
        let platforms = try row.string("platforms").split(separator: ",").map { raw -> Platform in
            guard let platform = Platform(rawValue: String(raw)) else { throw StoreError.corrupt("unknown platform \(raw)") }
            return platform
        }
        let android = try row.optionalString("android_package").map { package in
            AndroidApp(packageName: package, sha256CertFingerprints: (try row.optionalString("android_fingerprints") ?? "")
                .split(separator: ",").map(String.init))
        }
        return App(id: try row.string("id"), workspaceId: try row.string("workspace_id"), name: try row.string("name"),
                   teamId: try row.string("team_id"), bundleId: try row.string("bundle_id"),
                   appStoreId: try row.optionalString("app_store_id"), platforms: platforms, android: android,
                   attribution: AttributionSettings(probabilisticMinutes: Int(try row.int("probabilistic_minutes")),
                                                    viewThroughHours: Int(try row.int("view_through_hours")),
                                                    clickWindowDays: Int(try row.int("click_window_days"))),
                   attestation: AttestationSettings(policy: try row.string("attest_policy"),
                                                    environments: try row.string("attest_environments").split(separator: ",").map(String.init)),
                   postbacks: try row.optionalString("postback_settings").map { text in
                       do { return try StrictJSONDecoder().decode(PostbackSettings.self, from: Array(text.utf8)) } catch {
                           throw StoreError.corrupt("an app's postback settings are unreadable")
                       }
                   } ?? PostbackSettings(),
                   createdAt: Timestamp.iso(try row.int("created_at")), updatedAt: Timestamp.iso(try row.int("updated_at")))
    }

    static func key(_ row: SQLRow) throws -> APIKey {
        guard let kind = KeyKind(rawValue: try row.string("kind")) else { throw StoreError.corrupt("unknown key kind") }
        return APIKey(id: try row.string("id"), kind: kind, name: try row.string("name"),
                      workspaceId: try row.optionalString("workspace_id"), appId: try row.optionalString("app_id"),
                      displayPrefix: try row.string("display_prefix"), createdAt: Timestamp.iso(try row.int("created_at")),
                      revokedAt: try row.optionalInt("revoked_at").map(Timestamp.iso), createdBy: try row.optionalString("created_by"))
    }

    static let appColumns = "id, workspace_id, name, team_id, bundle_id, app_store_id, platforms, android_package, android_fingerprints, probabilistic_minutes, view_through_hours, click_window_days, attest_policy, attest_environments, postback_settings, created_at, updated_at"
    static let keyColumns = "id, kind, name, workspace_id, app_id, display_prefix, created_at, revoked_at, created_by"
}

/// Tenancy statements, written once for every backend.
enum TenancyQueries {
    static func insertWorkspace(_ db: any SQLExecutor, id: String, name: String, now: Int64) throws {
        try db.execute("INSERT INTO workspaces (id, name, created_at) VALUES (\(id), \(name), \(now))")
    }

    static func workspace(_ db: any SQLExecutor, id: String) throws -> Workspace? {
        try db.first("SELECT id, name, created_at FROM workspaces WHERE id = \(id)").map(TenancyRows.workspace)
    }

    static func app(_ db: any SQLExecutor, id: String) throws -> App? {
        try db.first("SELECT \(raw: TenancyRows.appColumns) FROM apps WHERE id = \(id)").map(TenancyRows.app)
    }

    static func key(_ db: any SQLExecutor, id: String) throws -> APIKey? {
        try db.first("SELECT \(raw: TenancyRows.keyColumns) FROM api_keys WHERE id = \(id)").map(TenancyRows.key)
    }

    /// Stores a key's hash (never its text) and returns the listed form.
    @discardableResult
    static func insertKey(_ db: any SQLExecutor, secret: APIKeySecret, name: String, workspaceId: String?, appId: String?,
                          createdBy: String?, now: Int64) throws -> APIKey {
        try db.execute("""
            INSERT INTO api_keys (id, kind, name, workspace_id, app_id, secret_hash, display_prefix, created_at, created_by)
            VALUES (\(secret.keyId), \(secret.kind.rawValue), \(name), \(workspaceId), \(appId), \(secret.hash),
                    \(secret.displayPrefix), \(now), \(createdBy))
            """)
        return APIKey(id: secret.keyId, kind: secret.kind, name: name, workspaceId: workspaceId, appId: appId,
                      displayPrefix: secret.displayPrefix, createdAt: Timestamp.iso(now), revokedAt: nil, createdBy: createdBy)
    }

    /// Revokes the keys `maker` (a console user or a key) made, and the keys those made, in turn; returns their ids.
    static func revokeKeys(madeBy maker: String, _ db: any SQLExecutor, now: Int64) throws -> [String] {
        var revoked: [String] = []
        var makers = [maker]
        while !makers.isEmpty, revoked.count < 100_000 {
            var next: [String] = []
            for maker in makers {
                next += try db.query("SELECT id FROM api_keys WHERE created_by = \(maker) AND revoked_at IS NULL").map { try $0.string("id") }
                try db.execute("UPDATE api_keys SET revoked_at = \(now) WHERE created_by = \(maker) AND revoked_at IS NULL")
            }
            revoked += next
            makers = next
        }
        return revoked
    }

    /// The path's app, which the key must manage.
    static func managedApp(_ context: RequestContext, _ services: ServerServices, _ principal: Principal) async throws -> App {
        let appId = try context.parameter("appId")
        guard let app = try await services.store.read({ db in try TenancyQueries.app(db, id: appId) }) else {
            throw HTTPError.notFound(ErrorCode.notFound, "no app \(appId)")
        }
        try principal.requireWorkspace(app.workspaceId)
        return app
    }
}
