import LinkRunwayAPI
import RunwayJSON
import RunwayKit
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
                                                    environments: try row.string("attest_environments").split(separator: ",").map(String.init),
                                                    builds: try row.string("attest_builds")),
                   postbacks: try row.optionalString("postback_settings").map { text in
                       do { return try StrictJSONDecoder().decode(PostbackSettings.self, from: Array(text.utf8)) } catch {
                           throw StoreError.corrupt("an app's postback settings are unreadable")
                       }
                   } ?? PostbackSettings(),
                   appStoreIdRouting: try row.optionalString("app_store_id_routing"),
                   createdAt: Timestamp.iso(try row.int("created_at")), updatedAt: Timestamp.iso(try row.int("updated_at")))
    }

    static func key(_ row: SQLRow) throws -> APIKey {
        guard let kind = KeyKind(rawValue: try row.string("kind")) else { throw StoreError.corrupt("unknown key kind") }
        return APIKey(id: try row.string("id"), kind: kind, name: try row.string("name"),
                      workspaceId: try row.optionalString("workspace_id"), appId: try row.optionalString("app_id"),
                      displayPrefix: try row.string("display_prefix"), createdAt: Timestamp.iso(try row.int("created_at")),
                      revokedAt: try row.optionalInt("revoked_at").map(Timestamp.iso), createdBy: try row.optionalString("created_by"))
    }

    static func user(_ row: SQLRow) throws -> ConsoleUser {
        ConsoleUser(id: try row.string("id"), workspaceId: try row.string("workspace_id"), email: try row.string("email"),
                    createdAt: Timestamp.iso(try row.int("created_at")))
    }

    static let workspaceColumns = "id, name, created_at"
    static let appColumns = "id, workspace_id, name, team_id, bundle_id, app_store_id, platforms, android_package, android_fingerprints, probabilistic_minutes, view_through_hours, click_window_days, attest_policy, attest_environments, attest_builds, postback_settings, created_at, updated_at, " + appStoreIdRouting

    /// `App.appStoreIdRouting`, from the App Store id's claims (AppStoreIdentity).
    static let appStoreIdRouting = """
        CASE WHEN apps.app_store_id IS NULL THEN NULL
             WHEN EXISTS (SELECT 1 FROM app_store_id_claims c WHERE c.app_store_id = apps.app_store_id AND c.app_id = apps.id AND c.proven_at IS NOT NULL) THEN 'this_app'
             WHEN EXISTS (SELECT 1 FROM app_store_id_claims c WHERE c.app_store_id = apps.app_store_id AND c.proven_at IS NOT NULL) THEN 'another_app'
             ELSE 'awaiting_proof' END AS app_store_id_routing
        """
    static let keyColumns = "id, kind, name, workspace_id, app_id, display_prefix, created_at, revoked_at, created_by"
    static let userColumns = "id, workspace_id, email, created_at"
}
