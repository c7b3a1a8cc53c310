import RunwayJSON
/// Kinds of API key. Publishable keys ship inside apps; server keys stay on a backend; admin keys manage the instance.
public enum KeyKind: String, Codable, Sendable, CaseIterable {
    /// `lr_pk_…`: client calls for one app.
    case publishable
    /// `lr_sk_…`: backend calls for one workspace (management, revenue events, reports).
    case server
    /// `lr_ak_…`: everything, in every workspace.
    case admin

    /// The key text's prefix.
    public var prefix: String {
        switch self {
        case .publishable: return "lr_pk_"
        case .server: return "lr_sk_"
        case .admin: return "lr_ak_"
        }
    }
}

extension FieldNote {
    /// The kind of an API key.
    static let keyKind = FieldNote("publishable (lr_pk_, in apps), server (lr_sk_, backends) or admin (lr_ak_, everything).")
    /// A name people give something.
    static let name = FieldNote("A name for people, 1 to 100 characters.", minLength: 1, maxLength: 100)
}

/// Apple (and other) platforms an app ships on.
public enum Platform: String, Codable, Sendable, CaseIterable {
    case ios, tvos, macos, visionos
}

extension FieldNote {
    /// One of an app's platforms.
    static let platform = FieldNote("A platform the app ships on.")
}

/// A tenant: its apps, keys and data are invisible to other workspaces' keys.
public struct Workspace: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    /// ISO 8601, UTC.
    public var createdAt: String

    public init(id: String, name: String, createdAt: String) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
    }
}

extension Workspace: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "id": .id("Workspace id (ws_…)."), "name": FieldNote("Name."), "createdAt": .timestamp,
    ]
}

public struct CreateWorkspaceRequest: Codable, Sendable {
    public var name: String
    public init(name: String) { self.name = name }
}

extension CreateWorkspaceRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = ["name": .name]
}

/// The Android twin of an app, for `/.well-known/assetlinks.json` on its link domains.
public struct AndroidApp: Codable, Sendable, Equatable {
    /// `com.example.app`.
    public var packageName: String
    /// SHA-256 fingerprints of the signing certificates, `AB:CD:…` (32 pairs).
    public var sha256CertFingerprints: [String]

    public init(packageName: String, sha256CertFingerprints: [String]) {
        self.packageName = packageName
        self.sha256CertFingerprints = sha256CertFingerprints
    }
}

extension AndroidApp: DescribedWireType {
    public static let componentName: String? = nil
    public static let role = WireRole.request
    public static let summary: String? = "The Android twin of the app, for assetlinks.json."
    public static let notes: [String: FieldNote] = [
        "packageName": FieldNote("Java package name.", pattern: "^[A-Za-z][A-Za-z0-9_]*(\\.[A-Za-z][A-Za-z0-9_]*)+$", maxLength: 255),
        "sha256CertFingerprints": .list(of: FieldNote("AB:CD:… (32 pairs).", pattern: "^([0-9A-Fa-f]{2}:){31}[0-9A-Fa-f]{2}$"),
                                        "Signing certificate fingerprints.", minItems: 1),
    ]
}

/// How an app's installs are matched to clicks and impressions. Probabilistic and view-through matching are off
/// (0) until the owner turns them on.
public struct AttributionSettings: Codable, Sendable, Equatable {
    /// Minutes after a click within which an install from the same (hashed) network address matches it; 0 is off.
    public var probabilisticMinutes: Int
    /// Hours after an ad impression within which an install from the same (hashed) address matches it; 0 is off.
    public var viewThroughHours: Int
    /// Days a click token stays usable for a referrer match; older clicks are never inherited by a new install.
    public var clickWindowDays: Int

    public init(probabilisticMinutes: Int = 0, viewThroughHours: Int = 0, clickWindowDays: Int = 7) {
        self.probabilisticMinutes = probabilisticMinutes
        self.viewThroughHours = viewThroughHours
        self.clickWindowDays = clickWindowDays
    }
}

extension AttributionSettings: CompactJSONWritable {
    public func write(into writer: inout CompactJSONObjectWriter) {
        writer.member("clickWindowDays", clickWindowDays)
        writer.member("probabilisticMinutes", probabilisticMinutes)
        writer.member("viewThroughHours", viewThroughHours)
    }
}

extension AttributionSettings: DescribedWireType {
    public static let summary: String? = "How installs are matched."
    public static let notes: [String: FieldNote] = [
        "probabilisticMinutes": .between(0, 1440, "Minutes after a click for a match by hashed address; 0 is off."),
        "viewThroughHours": .between(0, 168, "Hours after an ad impression for a view-through match; 0 is off."),
        "clickWindowDays": .between(1, 30, "Days a click token can be matched."),
    ]
}

/// Changes to attribution settings; absent fields stay.
public struct AttributionSettingsUpdate: Codable, Sendable, Equatable {
    public var probabilisticMinutes: Int?
    public var viewThroughHours: Int?
    public var clickWindowDays: Int?

    public init(probabilisticMinutes: Int? = nil, viewThroughHours: Int? = nil, clickWindowDays: Int? = nil) {
        self.probabilisticMinutes = probabilisticMinutes
        self.viewThroughHours = viewThroughHours
        self.clickWindowDays = clickWindowDays
    }
}

extension AttributionSettingsUpdate: DescribedWireType {
    public static let componentName: String? = nil
    public static let role = WireRole.request
    public static let summary: String? = "Changes to how installs are matched; absent fields stay."
    public static let notes: [String: FieldNote] = [
        "probabilisticMinutes": .between(0, 1440, "0 (off) to 1440."),
        "viewThroughHours": .between(0, 168, "0 (off) to 168."),
        "clickWindowDays": .between(1, 30, "1 to 30."),
    ]
}

/// Whether an app's clients must prove with App Attest that they are the genuine app.
public struct AttestationSettings: Codable, Sendable, Equatable {
    /// `off` (tokens are ignored), `optional` (attested traffic is marked) or `required` (unattested traffic is kept
    /// out of attribution and counted as such).
    public var policy: String
    /// `development`, `production`, or both.
    public var environments: [String]
    /// Which builds may attest (`AttestationSettings.buildChoices`): `any`; `store`, App Store or TestFlight builds
    /// where the device says which (iOS 27), any build where it does not; `store_only`, App Store or TestFlight builds
    /// that say so. Absent in a request: unchanged (`any` for a new app).
    public var builds: String?

    public init(policy: String = "off", environments: [String] = ["production"], builds: String? = nil) {
        self.policy = policy
        self.environments = environments
        self.builds = builds
    }
}

extension AttestationSettings: DescribedWireType {
    public static let componentName: String? = nil
    public static let role = WireRole.request
    public static let summary: String? = "App Attest for this app's clients."
    public static let notes: [String: FieldNote] = [
        "policy": .oneOf(["off", "optional", "required"],
                         "off ignores tokens; optional marks attested traffic; required keeps unattested traffic out of attribution."),
        "environments": .list(of: .oneOf(["development", "production"], "An App Attest environment."),
                              "Environments whose keys are accepted; no repeats.", minItems: 1),
        "builds": .oneOf(buildChoices, "any; store: App Store or TestFlight builds where the device says which (iOS 27), any where it does not; store_only: only App Store or TestFlight builds that say so."),
    ]

    /// The values of `builds`.
    public static let buildChoices = ["any", "store", "store_only"]
}

/// An app registered in a workspace.
public struct App: Codable, Sendable, Equatable {
    public var id: String
    public var workspaceId: String
    public var name: String
    /// The 10-character Apple Developer Team ID.
    public var teamId: String
    public var bundleId: String
    /// The numeric App Store ID, once the app has one.
    public var appStoreId: String?
    public var platforms: [Platform]
    public var android: AndroidApp?
    public var attribution: AttributionSettings
    public var attestation: AttestationSettings
    public var postbacks: PostbackSettings
    /// Where Apple-signed postbacks for `appStoreId` go: `this_app`, `awaiting_proof` (kept unrouted until the app
    /// proves the id) or `another_app` (an app that proved the id receives them); nil without an App Store id.
    public var appStoreIdRouting: String?
    public var createdAt: String
    public var updatedAt: String

    public init(id: String, workspaceId: String, name: String, teamId: String, bundleId: String, appStoreId: String?,
                platforms: [Platform], android: AndroidApp? = nil, attribution: AttributionSettings = AttributionSettings(),
                attestation: AttestationSettings = AttestationSettings(), postbacks: PostbackSettings = PostbackSettings(),
                appStoreIdRouting: String? = nil, createdAt: String, updatedAt: String) {
        self.id = id
        self.workspaceId = workspaceId
        self.name = name
        self.teamId = teamId
        self.bundleId = bundleId
        self.appStoreId = appStoreId
        self.platforms = platforms
        self.android = android
        self.attribution = attribution
        self.attestation = attestation
        self.postbacks = postbacks
        self.appStoreIdRouting = appStoreIdRouting
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

extension App: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "id": .id("App id (app_…)."), "workspaceId": .id("Owning workspace."), "name": FieldNote("Name."),
        "teamId": FieldNote("Apple Developer Team ID.", pattern: WirePattern.teamId),
        "bundleId": FieldNote("Bundle ID.", pattern: WirePattern.bundleId),
        "appStoreId": FieldNote("Numeric App Store ID.", pattern: WirePattern.appStoreId),
        "platforms": .list(of: .platform, "Platforms.", minItems: 1), "attribution": FieldNote("How installs are matched."),
        "appStoreIdRouting": .oneOf(["this_app", "awaiting_proof", "another_app"],
                                    "Where Apple-signed postbacks for the App Store id go: to this app (it proved the id), kept unrouted until it proves it, or to another app that proved it (GET /v1/apps/{appId}/app-store-id). Absent without an App Store id."),
        "createdAt": .timestamp, "updatedAt": .timestamp,
    ]
}

public struct CreateAppRequest: Codable, Sendable {
    /// Required with an admin key; a server key's own workspace otherwise.
    public var workspaceId: String?
    public var name: String
    public var teamId: String
    public var bundleId: String
    public var appStoreId: String?
    /// Defaults to `["ios"]`.
    public var platforms: [Platform]?
    public var android: AndroidApp?
    public var attribution: AttributionSettingsUpdate?
    public var attestation: AttestationSettings?
    /// Replaces the postback settings as a whole.
    public var postbacks: PostbackSettings?

    public init(workspaceId: String? = nil, name: String, teamId: String, bundleId: String, appStoreId: String? = nil,
                platforms: [Platform]? = nil, android: AndroidApp? = nil, attribution: AttributionSettingsUpdate? = nil,
                attestation: AttestationSettings? = nil, postbacks: PostbackSettings? = nil) {
        self.workspaceId = workspaceId
        self.name = name
        self.teamId = teamId
        self.bundleId = bundleId
        self.appStoreId = appStoreId
        self.platforms = platforms
        self.android = android
        self.attribution = attribution
        self.attestation = attestation
        self.postbacks = postbacks
    }
}

extension CreateAppRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = FieldNote.appChanges.merging([
        "workspaceId": FieldNote("Required with an admin key; a server key's own workspace by default."),
        "platforms": .list(of: .platform, "Defaults to [\"ios\"]; no repeats.", minItems: 1),
    ]) { $1 }
}

extension FieldNote {
    /// The fields an app is created or changed with.
    static let appChanges: [String: FieldNote] = [
        "name": .name,
        "teamId": FieldNote("Apple Developer Team ID.", pattern: WirePattern.teamId),
        "bundleId": FieldNote("Bundle ID, reverse-DNS.", pattern: WirePattern.bundleId, maxLength: 155),
        "appStoreId": FieldNote("Numeric App Store ID.", pattern: WirePattern.appStoreId),
        "platforms": .list(of: .platform, "No repeats.", minItems: 1),
    ]
}

/// Whether an app's App Store id is proven: Apple-signed postbacks for the id follow only the app that proved it.
public struct AppStoreIdStatus: Codable, Sendable, Equatable {
    public var appId: String
    public var appStoreId: String?
    public var proven: Bool
    /// `notification`, `app_transaction`, `admin` or `held_before_proofs`.
    public var proof: String?
    public var provenAt: String?
    /// Postbacks kept unrouted for the id (or held by an app with a weaker proof) that moved to this app with this call.
    public var postbacksMoved: Int?

    public init(appId: String, appStoreId: String?, proven: Bool, proof: String? = nil, provenAt: String? = nil, postbacksMoved: Int? = nil) {
        self.appId = appId
        self.appStoreId = appStoreId
        self.proven = proven
        self.proof = proof
        self.provenAt = provenAt
        self.postbacksMoved = postbacksMoved
    }
}

extension AppStoreIdStatus: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "appId": .id("App."), "appStoreId": FieldNote("The App Store id the app names."),
        "proven": FieldNote("Whether postbacks for the id are routed to this app."),
        "proof": .oneOf(["notification", "app_transaction", "admin", "held_before_proofs"],
                        "How it was proven: a verified production App Store notification, a signed production app transaction from the SDK, an admin key, or held with a verified notification before proofs were asked for."),
        "provenAt": .timestamp, "postbacksMoved": FieldNote("Postbacks that moved to the app with this call."),
    ]
}

/// Fields to change; absent fields stay as they are.
public struct UpdateAppRequest: Codable, Sendable {
    public var name: String?
    public var teamId: String?
    public var bundleId: String?
    public var appStoreId: String?
    public var platforms: [Platform]?
    public var android: AndroidApp?
    public var attribution: AttributionSettingsUpdate?
    public var attestation: AttestationSettings?
    /// Replaces the postback settings as a whole.
    public var postbacks: PostbackSettings?

    public init(name: String? = nil, teamId: String? = nil, bundleId: String? = nil, appStoreId: String? = nil,
                platforms: [Platform]? = nil, android: AndroidApp? = nil, attribution: AttributionSettingsUpdate? = nil,
                attestation: AttestationSettings? = nil, postbacks: PostbackSettings? = nil) {
        self.name = name
        self.teamId = teamId
        self.bundleId = bundleId
        self.appStoreId = appStoreId
        self.platforms = platforms
        self.android = android
        self.attribution = attribution
        self.attestation = attestation
        self.postbacks = postbacks
    }
}

extension UpdateAppRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let summary: String? = "Fields to change; absent or null fields stay as they are."
    public static let notes = FieldNote.appChanges
}

/// An API key as listed: never its secret, which is shown once at creation.
public struct APIKey: Codable, Sendable, Equatable {
    public var id: String
    public var kind: KeyKind
    public var name: String
    /// Nil for admin keys, which reach every workspace.
    public var workspaceId: String?
    /// Set for publishable keys only.
    public var appId: String?
    /// The first characters of the secret, to recognise it (`lr_sk_AbCd…`).
    public var displayPrefix: String
    public var createdAt: String
    public var revokedAt: String?
    /// Who made it: the id of the key or console user that called, nil for the first admin key (and keys made before
    /// this was recorded). Removing a console user revokes the keys they made, and the keys those made.
    public var createdBy: String?

    public init(id: String, kind: KeyKind, name: String, workspaceId: String?, appId: String?, displayPrefix: String,
                createdAt: String, revokedAt: String?, createdBy: String? = nil) {
        self.id = id
        self.kind = kind
        self.name = name
        self.workspaceId = workspaceId
        self.appId = appId
        self.displayPrefix = displayPrefix
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.createdBy = createdBy
    }
}

extension APIKey: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "id": .id("Key id (key_…)."), "kind": .keyKind, "name": FieldNote("Name."),
        "workspaceId": .id("Absent for admin keys."), "appId": .id("Set for publishable keys."),
        "displayPrefix": FieldNote("The first characters of the secret."), "createdAt": .timestamp, "revokedAt": .timestamp,
        "createdBy": FieldNote("The key or console user that made it (absent for the first admin key)."),
    ]
}

public struct CreateKeyRequest: Codable, Sendable {
    public var kind: KeyKind
    public var name: String?
    /// For server keys (admin keys may name any workspace; server keys default to their own).
    public var workspaceId: String?
    /// Required for publishable keys.
    public var appId: String?

    public init(kind: KeyKind, name: String? = nil, workspaceId: String? = nil, appId: String? = nil) {
        self.kind = kind
        self.name = name
        self.workspaceId = workspaceId
        self.appId = appId
    }
}

extension CreateKeyRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "kind": .keyKind, "name": .name,
        "workspaceId": FieldNote("For server keys created with an admin key."), "appId": FieldNote("Required for publishable keys."),
    ]
}

/// A new key with its secret, which is not stored and cannot be shown again.
public struct CreatedKey: Codable, Sendable {
    public var key: APIKey
    public var secret: String

    public init(key: APIKey, secret: String) {
        self.key = key
        self.secret = secret
    }
}

extension CreatedKey: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "secret": FieldNote("The key itself. Shown only in this response; store it now.", pattern: "^lr_(pk|sk|ak)_[0-9A-Za-z]{48}$"),
    ]
}

/// What the presented key is.
public struct WhoAmI: Codable, Sendable, Equatable {
    public var keyId: String
    public var kind: KeyKind
    public var workspaceId: String?
    public var appId: String?

    public init(keyId: String, kind: KeyKind, workspaceId: String?, appId: String?) {
        self.keyId = keyId
        self.kind = kind
        self.workspaceId = workspaceId
        self.appId = appId
    }
}

extension WhoAmI: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "keyId": .id("The key's id."), "kind": .keyKind,
        "workspaceId": .id("Absent for admin keys."), "appId": .id("Set for publishable keys."),
    ]
}

/// One page of a list; pass `nextCursor` as `cursor` for the next one.
public struct Page<Item: Codable & Sendable>: Codable, Sendable {
    public var items: [Item]
    public var nextCursor: String?

    public init(items: [Item], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }
}

extension Page: BoundedNumbers where Item: DescribedWireType {}
extension Page: DescribedWireType where Item: DescribedWireType {
    public static var componentName: String? { Item.pageComponentName }
    public static var notes: [String: FieldNote] {
        ["items": .list(of: nil, "The items of this page."),
         "nextCursor": FieldNote("Pass as cursor to get the next page; absent on the last page.")]
    }
}
