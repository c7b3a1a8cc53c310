import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// Tenancy statements, written once for every backend: the SQL the tenancy routes run, and the lookups other
/// capabilities share.
enum TenancyQueries {
    /// Marks the database bootstrapped at `now`: false when it was before (another server may be starting with it).
    static func claimBootstrap(_ db: any SQLExecutor, now: Int64) throws -> Bool {
        try db.execute("""
            INSERT INTO instance_meta (name, value) VALUES ('bootstrap', \(String(now))) ON CONFLICT (name) DO NOTHING
            """) == 1
    }

    /// The first workspace's link domain, verified at once, unless another workspace has that hostname.
    static func insertFirstDomain(_ db: any SQLExecutor, workspaceId: String, hostname: String, now: Int64) throws {
        try db.execute("""
            INSERT INTO link_domains (id, workspace_id, hostname, created_at, verified_at)
            VALUES (\(Identifier.make("dom")), \(workspaceId), \(hostname), \(now), \(now)) ON CONFLICT (hostname) DO NOTHING
            """)
    }

    static func insertWorkspace(_ db: any SQLExecutor, id: String, name: String, now: Int64) throws {
        try db.execute("INSERT INTO workspaces (id, name, created_at) VALUES (\(id), \(name), \(now))")
    }

    static func workspace(_ db: any SQLExecutor, id: String) throws -> Workspace? {
        try db.first("SELECT id, name, created_at FROM workspaces WHERE id = \(id)", as: TenancyRows.WorkspaceRow.self)?.wire
    }

    /// The page filter of `/v1/workspaces`: every workspace for an admin key, its own for any other.
    static func workspacesVisible(to principal: Principal) -> SQL {
        principal.kind == .admin ? "" : " AND id = \(principal.workspaceId ?? "")"
    }

    static func app(_ db: any SQLExecutor, id: String) throws -> App? {
        try db.first("SELECT \(raw: TenancyRows.appColumns) FROM apps WHERE id = \(id)", as: TenancyRows.AppRow.self)?.wire()
    }

    static func insertApp(_ db: any SQLExecutor, _ app: App, now: Int64) throws {
        try db.execute("""
            INSERT INTO apps (id, workspace_id, name, team_id, bundle_id, app_store_id, platforms, android_package,
                              android_fingerprints, probabilistic_minutes, view_through_hours, click_window_days, attest_policy,
                              attest_environments, attest_builds, postback_settings, created_at, updated_at)
            VALUES (\(app.id), \(app.workspaceId), \(app.name), \(app.teamId), \(app.bundleId), \(app.appStoreId),
                    \(app.platforms.map(\.rawValue).joined(separator: ",")), \(app.android?.packageName),
                    \(app.android?.sha256CertFingerprints.joined(separator: ",")), \(app.attribution.probabilisticMinutes),
                    \(app.attribution.viewThroughHours), \(app.attribution.clickWindowDays), \(app.attestation.policy),
                    \(app.attestation.environments.joined(separator: ",")), \(app.attestation.builds ?? "any"), \(storedSettings(app.postbacks)),
                    \(now), \(now))
            """)
    }

    /// Writes every field of `app` over its row.
    static func updateApp(_ db: any SQLExecutor, _ app: App, now: Int64) throws {
        try db.execute("""
            UPDATE apps SET name = \(app.name), team_id = \(app.teamId), bundle_id = \(app.bundleId),
                app_store_id = \(app.appStoreId), platforms = \(app.platforms.map(\.rawValue).joined(separator: ",")),
                android_package = \(app.android?.packageName),
                android_fingerprints = \(app.android?.sha256CertFingerprints.joined(separator: ",")),
                probabilistic_minutes = \(app.attribution.probabilisticMinutes),
                view_through_hours = \(app.attribution.viewThroughHours),
                click_window_days = \(app.attribution.clickWindowDays), attest_policy = \(app.attestation.policy),
                attest_environments = \(app.attestation.environments.joined(separator: ",")), attest_builds = \(app.attestation.builds ?? "any"),
                postback_settings = \(storedSettings(app.postbacks)), updated_at = \(now)
            WHERE id = \(app.id)
            """)
    }

    /// Postback settings as stored: JSON, or NULL while they are the defaults.
    static func storedSettings(_ settings: PostbackSettings) -> String? {
        guard settings != PostbackSettings() else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(settings)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Gives up an identity the app no longer has (see `AppHandlers.claimIdentities`).
    static func releaseIdentity(_ db: any SQLExecutor, _ identity: String, appId: String) throws {
        try db.execute("DELETE FROM app_identities WHERE identity = \(identity) AND app_id = \(appId)")
    }

    /// Claims an identity for the app; false when another app holds it.
    static func claimIdentity(_ db: any SQLExecutor, _ identity: String, for app: App, now: Int64) throws -> Bool {
        let inserted = try db.execute("""
            INSERT INTO app_identities (identity, app_id, workspace_id, created_at) VALUES (\(identity), \(app.id), \(app.workspaceId), \(now))
            ON CONFLICT (identity) DO NOTHING
            """)
        return inserted == 1
    }

    static func key(_ db: any SQLExecutor, id: String) throws -> APIKey? {
        try db.first("SELECT \(raw: TenancyRows.keyColumns) FROM api_keys WHERE id = \(id)", as: TenancyRows.KeyRow.self)?.wire
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

    /// The page filter of `/v1/keys?appId=`: only that app's keys, or no filter without one.
    static func keysOfApp(_ appId: String?) -> SQL {
        guard let appId else { return "" }
        return " AND app_id = \(appId)"
    }

    /// Locks the live admin keys' rows, so that revocations of admin keys wait for each other.
    static func lockAdminKeys(_ db: any SQLExecutor) throws {
        try db.execute("UPDATE api_keys SET name = name WHERE kind = 'admin' AND revoked_at IS NULL")
    }

    /// How many live admin keys there are besides key `id`.
    static func activeAdminKeys(_ db: any SQLExecutor, besides id: String) throws -> Int64 {
        try db.count("SELECT COUNT(*) AS n FROM api_keys WHERE kind = 'admin' AND revoked_at IS NULL AND id <> \(id)")
    }

    static func revokeKey(_ db: any SQLExecutor, id: String, now: Int64) throws {
        try db.execute("UPDATE api_keys SET revoked_at = \(now) WHERE id = \(id)")
    }

    /// What an offboarding took with it: the keys revoked and the console users removed.
    struct Offboarded {
        var keys: [String] = []
        var users: [String] = []
    }

    /// Revokes the keys and removes the console users that `maker` (a console user or a key) made, and what those
    /// made, in turn, except `sparing` (the caller doing it) and what it made: a key made with the old one revokes the
    /// old one and stays. Refused with `lastAdminKey` when no admin key would be left.
    static func offboard(madeBy maker: String, sparing: String? = nil, _ db: any SQLExecutor, now: Int64) throws -> Offboarded {
        let spared = sparing ?? ""
        try lockAdminKeys(db)
        var gone = Offboarded()
        var makers = [maker]
        while !makers.isEmpty, gone.keys.count + gone.users.count < 100_000 {
            var next: [String] = []
            for maker in makers {
                let keys = try db.query("SELECT id FROM api_keys WHERE created_by = \(maker) AND revoked_at IS NULL AND id <> \(spared)",
                                        as: TenancyRows.Id.self).map(\.id)
                try db.execute("UPDATE api_keys SET revoked_at = \(now) WHERE created_by = \(maker) AND revoked_at IS NULL AND id <> \(spared)")
                let users = try db.query("SELECT id FROM console_users WHERE created_by = \(maker) AND id <> \(spared)", as: TenancyRows.Id.self)
                    .map(\.id)
                for user in users { try deleteUser(db, id: user) }
                gone.keys += keys
                gone.users += users
                next += keys + users
            }
            makers = next
        }
        if try db.count("SELECT COUNT(*) AS n FROM api_keys WHERE kind = 'admin' AND revoked_at IS NULL") == 0 {
            throw TenancyError.lastAdminKey
        }
        return gone
    }

    /// Stores a console user with the PBKDF2 hash of their password, and who made them.
    static func insertUser(_ db: any SQLExecutor, _ user: ConsoleUser, passwordHash hash: String, createdBy: String?, now: Int64) throws {
        try db.execute("""
            INSERT INTO console_users (id, workspace_id, email, password_hash, created_at, created_by)
            VALUES (\(user.id), \(user.workspaceId), \(user.email), \(hash), \(now), \(createdBy))
            """)
    }

    /// The workspace of console user `id`, or nil when there is none.
    static func userWorkspace(_ db: any SQLExecutor, id: String) throws -> String? {
        try db.first("SELECT workspace_id FROM console_users WHERE id = \(id)", as: TenancyRows.WorkspaceOf.self)?.workspaceId
    }

    /// Deletes console user `id` and ends their sessions.
    static func deleteUser(_ db: any SQLExecutor, id: String) throws {
        try db.execute("DELETE FROM console_sessions WHERE user_id = \(id)")
        try db.execute("DELETE FROM console_users WHERE id = \(id)")
    }

    /// The path's app, which the key must manage.
    static func managedApp(_ context: RequestContext, _ services: ServerServices, _ principal: Principal) async throws -> App {
        let appId = try context.parameter("appId")
        guard let app = try await services.store.read({ db in try TenancyQueries.app(db, id: appId) }) else {
            throw RequestError.notFound("no app \(appId)")
        }
        try principal.requireWorkspace(app.workspaceId)
        return app
    }
}
