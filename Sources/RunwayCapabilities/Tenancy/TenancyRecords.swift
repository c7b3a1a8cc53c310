import LinkRunwayAPI
import RunwayJSON
import RunwayKit
import RunwayStore

/// Tenancy's rows as `Decodable` records (`RowDecoder`: each property names its column), and the wire types made
/// from them.
enum TenancyRows {
    /// A row's id alone.
    struct Id: Decodable {
        let id: String
    }

    /// A row's workspace alone.
    struct WorkspaceOf: Decodable {
        let workspaceId: String
    }

    /// `COUNT(*) AS n`.

    struct WorkspaceRow: Decodable {
        let id: String
        let name: String
        let createdAt: Int64

        var wire: Workspace { Workspace(id: id, name: name, createdAt: Timestamp.iso(createdAt)) }
    }

    struct AppRow: Decodable {
        let id: String
        let workspaceId: String
        let name: String
        let teamId: String
        let bundleId: String
        let appStoreId: String?
        /// Comma-separated `Platform` values.
        let platforms: String
        let androidPackage: String?
        /// Comma-separated.
        let androidFingerprints: String?
        let probabilisticMinutes: Int
        let viewThroughHours: Int
        let clickWindowDays: Int
        let attestPolicy: String
        /// Comma-separated.
        let attestEnvironments: String
        let attestBuilds: String
        /// `PostbackSettings` as JSON, read strictly.
        let postbackSettings: String?
        let appStoreIdRouting: String?
        let createdAt: Int64
        let updatedAt: Int64

        func wire() throws -> App {
            let platforms = try self.platforms.split(separator: ",").map { raw -> Platform in
                guard let platform = Platform(rawValue: String(raw)) else { throw StoreError.corrupt("unknown platform \(raw)") }
                return platform
            }
            let android = androidPackage.map { package in
                AndroidApp(packageName: package, sha256CertFingerprints: (androidFingerprints ?? "").split(separator: ",").map(String.init))
            }
            let postbacks = try postbackSettings.map { text in
                do { return try StrictJSONDecoder().decode(PostbackSettings.self, from: Array(text.utf8)) } catch {
                    throw StoreError.corrupt("an app's postback settings are unreadable")
                }
            } ?? PostbackSettings()
            return App(id: id, workspaceId: workspaceId, name: name, teamId: teamId, bundleId: bundleId, appStoreId: appStoreId,
                       platforms: platforms, android: android,
                       attribution: AttributionSettings(probabilisticMinutes: probabilisticMinutes, viewThroughHours: viewThroughHours,
                                                        clickWindowDays: clickWindowDays),
                       attestation: AttestationSettings(policy: attestPolicy, environments: attestEnvironments.split(separator: ",").map(String.init),
                                                        builds: attestBuilds),
                       postbacks: postbacks, appStoreIdRouting: appStoreIdRouting, createdAt: Timestamp.iso(createdAt),
                       updatedAt: Timestamp.iso(updatedAt))
        }
    }

    struct KeyRow: Decodable {
        let id: String
        let kind: KeyKind
        let name: String
        let workspaceId: String?
        let appId: String?
        let displayPrefix: String
        let createdAt: Int64
        let revokedAt: Int64?
        let createdBy: String?

        var wire: APIKey {
            APIKey(id: id, kind: kind, name: name, workspaceId: workspaceId, appId: appId, displayPrefix: displayPrefix,
                   createdAt: Timestamp.iso(createdAt), revokedAt: revokedAt.map(Timestamp.iso), createdBy: createdBy)
        }
    }

    struct UserRow: Decodable {
        let id: String
        let workspaceId: String
        let email: String
        let createdAt: Int64

        var wire: ConsoleUser { ConsoleUser(id: id, workspaceId: workspaceId, email: email, createdAt: Timestamp.iso(createdAt)) }
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
