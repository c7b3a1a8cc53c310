import LinkRunwayAPI
import RunwayJSON

/// The component schemas of the OpenAPI document, one per wire type of `LinkRunwayAPI`.
enum Schemas {
    private typealias S = JSONSchema

    static let idPattern = "^[a-z]+_[0-9A-Za-z]{8,64}$"
    static let teamIdPattern = "^[A-Z0-9]{10}$"
    static let bundleIdPattern = "^[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+$"
    static let appStoreIdPattern = "^[1-9][0-9]{0,11}$"

    static var all: [(String, JSONValue)] {
        let platform = S.enumeration(Platform.allCases.map(\.rawValue), "A platform the app ships on.")
        let kind = S.enumeration(KeyKind.allCases.map(\.rawValue), "publishable (lr_pk_, in apps), server (lr_sk_, backends) or admin (lr_ak_, everything).")
        let name = S.string("A name for people, 1 to 100 characters.", minLength: 1, maxLength: 100)
        return [
            ("Error", S.object([
                ("error", S.object([
                    ("code", S.string("Stable machine-readable code, e.g. invalid_field.")),
                    ("message", S.string("What went wrong, for people.")),
                    ("field", S.string("The request field at fault, as a path.")),
                ], required: ["code", "message"])),
            ], required: ["error"])),
            ("HealthStatus", S.object([
                ("status", S.enumeration(["ok"], "Always ok while the process runs.")),
                ("version", S.string("The server's version.")),
            ], required: ["status", "version"])),
            ("ReadinessStatus", S.object([
                ("status", S.enumeration(["ready", "unavailable"], "Whether requests can be served.")),
                ("store", S.string("ok, or why the database cannot be reached.")),
            ], required: ["status", "store"])),
            ("Workspace", S.object([
                ("id", S.string("Workspace id (ws_…).", pattern: idPattern)),
                ("name", S.string("Name.")),
                ("createdAt", S.timestamp),
            ], required: ["id", "name", "createdAt"])),
            ("CreateWorkspaceRequest", S.object([("name", name)], required: ["name"])),
            ("WorkspacePage", S.page(of: "Workspace")),
            ("App", S.object([
                ("id", S.string("App id (app_…).", pattern: idPattern)),
                ("workspaceId", S.string("Owning workspace.", pattern: idPattern)),
                ("name", S.string("Name.")),
                ("teamId", S.string("Apple Developer Team ID.", pattern: teamIdPattern)),
                ("bundleId", S.string("Bundle ID.", pattern: bundleIdPattern)),
                ("appStoreId", S.string("Numeric App Store ID.", pattern: appStoreIdPattern)),
                ("platforms", S.array(platform, "Platforms.", minItems: 1)),
                ("createdAt", S.timestamp),
                ("updatedAt", S.timestamp),
            ], required: ["id", "workspaceId", "name", "teamId", "bundleId", "platforms", "createdAt", "updatedAt"])),
            ("CreateAppRequest", S.object([
                ("workspaceId", S.string("Required with an admin key; a server key's own workspace by default.", nullable: true)),
                ("name", name),
                ("teamId", S.string("Apple Developer Team ID.", pattern: teamIdPattern)),
                ("bundleId", S.string("Bundle ID, reverse-DNS.", pattern: bundleIdPattern, maxLength: 155)),
                ("appStoreId", S.string("Numeric App Store ID.", pattern: appStoreIdPattern, nullable: true)),
                ("platforms", S.array(platform, "Defaults to [\"ios\"]; no repeats.", minItems: 1, nullable: true)),
            ], required: ["name", "teamId", "bundleId"])),
            ("UpdateAppRequest", S.object([
                ("name", S.string("A name for people, 1 to 100 characters.", minLength: 1, maxLength: 100, nullable: true)),
                ("teamId", S.string("Apple Developer Team ID.", pattern: teamIdPattern, nullable: true)),
                ("bundleId", S.string("Bundle ID, reverse-DNS.", pattern: bundleIdPattern, maxLength: 155, nullable: true)),
                ("appStoreId", S.string("Numeric App Store ID.", pattern: appStoreIdPattern, nullable: true)),
                ("platforms", S.array(platform, "No repeats.", minItems: 1, nullable: true)),
            ], required: [], description: "Fields to change; absent or null fields stay as they are.")),
            ("AppPage", S.page(of: "App")),
            ("APIKey", S.object([
                ("id", S.string("Key id (key_…).", pattern: idPattern)),
                ("kind", kind),
                ("name", S.string("Name.")),
                ("workspaceId", S.string("Absent for admin keys.", pattern: idPattern)),
                ("appId", S.string("Set for publishable keys.", pattern: idPattern)),
                ("displayPrefix", S.string("The first characters of the secret.")),
                ("createdAt", S.timestamp),
                ("revokedAt", S.timestamp),
            ], required: ["id", "kind", "name", "displayPrefix", "createdAt"])),
            ("CreateKeyRequest", S.object([
                ("kind", kind),
                ("name", S.string("A name for people, 1 to 100 characters.", minLength: 1, maxLength: 100, nullable: true)),
                ("workspaceId", S.string("For server keys created with an admin key.", nullable: true)),
                ("appId", S.string("Required for publishable keys.", nullable: true)),
            ], required: ["kind"])),
            ("CreatedKey", S.object([
                ("key", S.ref("APIKey")),
                ("secret", S.string("The key itself. Shown only in this response; store it now.", pattern: "^lr_(pk|sk|ak)_[0-9A-Za-z]{48}$")),
            ], required: ["key", "secret"])),
            ("APIKeyPage", S.page(of: "APIKey")),
            ("WhoAmI", S.object([
                ("keyId", S.string("The key's id.", pattern: idPattern)),
                ("kind", kind),
                ("workspaceId", S.string("Absent for admin keys.", pattern: idPattern)),
                ("appId", S.string("Set for publishable keys.", pattern: idPattern)),
            ], required: ["keyId", "kind"])),
        ]
    }
}
