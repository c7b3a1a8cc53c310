import RunwayKit
import RunwayStore

/// Workspaces, apps with the identities only one app may hold, and API keys with who made them. Append only: a released
/// step never changes.
enum TenancySchema {
    static let migrations: [Migration] = [
        Migration(id: "0001_tenancy", sql: """
            CREATE TABLE instance_meta (
                name TEXT PRIMARY KEY,
                value TEXT NOT NULL
            );
            CREATE TABLE workspaces (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                created_at BIGINT NOT NULL
            );
            CREATE INDEX workspaces_by_creation ON workspaces (created_at, id);
            CREATE TABLE apps (
                id TEXT PRIMARY KEY,
                workspace_id TEXT NOT NULL REFERENCES workspaces (id),
                name TEXT NOT NULL,
                team_id TEXT NOT NULL,
                bundle_id TEXT NOT NULL,
                app_store_id TEXT,
                platforms TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL,
                UNIQUE (workspace_id, team_id, bundle_id)
            );
            CREATE INDEX apps_by_workspace ON apps (workspace_id, created_at, id);
            CREATE TABLE api_keys (
                id TEXT PRIMARY KEY,
                kind TEXT NOT NULL CHECK (kind IN ('publishable', 'server', 'admin')),
                name TEXT NOT NULL,
                workspace_id TEXT REFERENCES workspaces (id),
                app_id TEXT REFERENCES apps (id),
                secret_hash TEXT NOT NULL,
                display_prefix TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                revoked_at BIGINT
            );
            CREATE INDEX api_keys_by_workspace ON api_keys (workspace_id, created_at, id);
            """),
        // Who made each key (a key id or a console user id), so removing a user revokes what they made.
        Migration(id: "0016_key_makers", sql: """
            ALTER TABLE api_keys ADD COLUMN created_by TEXT;
            CREATE INDEX api_keys_by_maker ON api_keys (created_by) WHERE created_by IS NOT NULL;
            """),
        // An App Store id (`store:<id>`) and a team and bundle id (`bundle:<team>.<bundle>`) belong to one app of one
        // workspace. Where several apps already share one, the oldest keeps it; the others are reported.
        Migration(id: "0017_app_identities", sql: """
            CREATE TABLE app_identities (
                identity TEXT PRIMARY KEY,
                app_id TEXT NOT NULL REFERENCES apps (id),
                workspace_id TEXT NOT NULL,
                created_at BIGINT NOT NULL
            );
            CREATE INDEX app_identities_by_app ON app_identities (app_id);
            INSERT INTO app_identities (identity, app_id, workspace_id, created_at)
                SELECT 'store:' || app_store_id, id, workspace_id, created_at FROM apps WHERE app_store_id IS NOT NULL ORDER BY created_at, id
                ON CONFLICT (identity) DO NOTHING;
            INSERT INTO app_identities (identity, app_id, workspace_id, created_at)
                SELECT 'bundle:' || team_id || '.' || bundle_id, id, workspace_id, created_at FROM apps WHERE team_id IS NOT NULL ORDER BY created_at, id
                ON CONFLICT (identity) DO NOTHING;
            """),
        // Any app may name an App Store id; postbacks follow the one that proved it (AppStoreIdentity). A holder from
        // before keeps its proof when a production surface of it received a verified notification naming the app.
        // (The old `store:` rows of app_identities are left as they were and no longer read.)
        Migration(id: "0045_app_store_id_claims", sql: """
            CREATE TABLE app_store_id_claims (
                app_store_id TEXT NOT NULL,
                app_id TEXT NOT NULL REFERENCES apps (id),
                workspace_id TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                proven_at BIGINT,
                proof TEXT,
                PRIMARY KEY (app_store_id, app_id)
            );
            CREATE UNIQUE INDEX app_store_id_claims_proven ON app_store_id_claims (app_store_id) WHERE proven_at IS NOT NULL;
            CREATE INDEX app_store_id_claims_by_app ON app_store_id_claims (app_id);
            INSERT INTO app_store_id_claims (app_store_id, app_id, workspace_id, created_at)
                SELECT app_store_id, id, workspace_id, created_at FROM apps WHERE app_store_id IS NOT NULL;
            UPDATE app_store_id_claims SET proven_at = created_at, proof = 'held_before_proofs'
                WHERE EXISTS (SELECT 1 FROM app_identities i WHERE i.identity = 'store:' || app_store_id_claims.app_store_id
                                AND i.app_id = app_store_id_claims.app_id)
                  AND EXISTS (SELECT 1 FROM app_store_surfaces s JOIN app_store_notifications n ON n.surface_id = s.id
                              WHERE s.app_id = app_store_id_claims.app_id AND s.environment = 'production'
                                AND n.status NOT IN ('ignored', 'ignored_non_production'));
            """),
    ]

    /// After step 0017: the apps that lost an identity to an older app and must change theirs.
    static let notes: [String: @Sendable (any Store) async throws -> String?] = [
        "0017_app_identities": { store in
            let losers = try await store.read { db in
                try db.query("""
                    SELECT id FROM apps a WHERE (a.app_store_id IS NOT NULL AND NOT EXISTS (
                        SELECT 1 FROM app_identities i WHERE i.identity = 'store:' || a.app_store_id AND i.app_id = a.id))
                    OR NOT EXISTS (SELECT 1 FROM app_identities i WHERE i.identity = 'bundle:' || a.team_id || '.' || a.bundle_id AND i.app_id = a.id)
                    """, as: TenancyRows.Id.self).map(\.id)
            }
            guard !losers.isEmpty else { return nil }
            return "\(losers.count) apps share an App Store id or a team and bundle id with an older app: the older one keeps it " +
                "(postbacks go to it alone), and these must change theirs: \(losers.prefix(20).joined(separator: ", "))"
        },
    ]
}
