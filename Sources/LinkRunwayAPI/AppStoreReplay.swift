/// `PUT /v1/apps/{appId}/app-store-key`: the app's In-App Purchase key for the App Store Server API, from App Store
/// Connect (Users and Access → Integrations → In-App Purchase). Stored sealed; never returned.
public struct SetAppStoreKeyRequest: Codable, Sendable {
    /// The issuer id App Store Connect shows above the keys (a UUID).
    public var issuerId: String
    /// The key's id (ten characters).
    public var keyId: String
    /// The `.p8` file's text: a P-256 private key in PEM (`-----BEGIN PRIVATE KEY-----`).
    public var privateKey: String

    public init(issuerId: String, keyId: String, privateKey: String) {
        self.issuerId = issuerId
        self.keyId = keyId
        self.privateKey = privateKey
    }
}

extension SetAppStoreKeyRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "issuerId": FieldNote("Issuer id from App Store Connect (a UUID).", pattern: WirePattern.uuid),
        "keyId": FieldNote("The In-App Purchase key's id.", pattern: WirePattern.appStoreKeyId),
        "privateKey": FieldNote("The .p8 file's PEM text (P-256); stored sealed and never returned.", maxLength: 4096),
    ]
}

/// Whether an app has an In-App Purchase key, and which; the private key itself is never returned.
public struct AppStoreKeyStatus: Codable, Sendable, Equatable {
    public var configured: Bool
    public var issuerId: String?
    public var keyId: String?
    public var updatedAt: String?

    public init(configured: Bool, issuerId: String? = nil, keyId: String? = nil, updatedAt: String? = nil) {
        self.configured = configured
        self.issuerId = issuerId
        self.keyId = keyId
        self.updatedAt = updatedAt
    }
}

extension AppStoreKeyStatus: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "configured": FieldNote("Whether the app has a key."), "issuerId": FieldNote("Its issuer id."), "keyId": FieldNote("Its key id."),
        "updatedAt": .timestamp,
    ]
}

/// `POST /v1/apps/{appId}/app-store/replay`: one page (up to 20) of the notifications Apple sent in a time span,
/// fetched from the App Store Server API's notification history and processed as if they had just arrived.
public struct ReplayNotificationsRequest: Codable, Sendable {
    /// `production` (default) or `sandbox`: Apple's environment, and the app's surface of that environment that
    /// receives them.
    public var environment: String?
    /// The start of the span (ISO 8601); Apple keeps 180 days of production history and 30 days of sandbox.
    public var since: String
    /// The end of the span (ISO 8601; default now). Send the `until` of the first page with every later page.
    public var until: String?
    /// The `paginationToken` of the previous page, for the next one.
    public var paginationToken: String?

    public init(environment: String? = nil, since: String, until: String? = nil, paginationToken: String? = nil) {
        self.environment = environment
        self.since = since
        self.until = until
        self.paginationToken = paginationToken
    }
}

extension ReplayNotificationsRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "environment": .oneOf(["production", "sandbox"], "Apple's environment (default production)."),
        "since": FieldNote("Start of the span, ISO 8601.", format: "date-time"),
        "until": FieldNote("End of the span, ISO 8601 (default now); repeat the first page's with later pages.", format: "date-time"),
        "paginationToken": FieldNote("The previous page's token.", maxLength: 1024),
    ]
}

/// What `POST /v1/apps/{appId}/app-store/test-notification` did: Apple's `TEST` notification, fetched with the app's
/// In-App Purchase key and processed at its production surface, proves its App Store id.
public struct AppStoreTestNotificationResult: Codable, Sendable, Equatable {
    public var testNotificationToken: String
    /// What processing the notification gave (`ignored` for a TEST, `duplicate` when Apple's delivery came first).
    public var notificationStatus: AppStoreNotificationStatus
    public var appStoreId: AppStoreIdStatus

    public init(testNotificationToken: String, notificationStatus: AppStoreNotificationStatus, appStoreId: AppStoreIdStatus) {
        self.testNotificationToken = testNotificationToken
        self.notificationStatus = notificationStatus
        self.appStoreId = appStoreId
    }
}

extension AppStoreTestNotificationResult: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "testNotificationToken": FieldNote("Apple's token for the test."),
        "notificationStatus": FieldNote("What processing the TEST notification gave."),
        "appStoreId": FieldNote("The app's App Store id and its proof after the test."),
    ]
}

/// What one page of a replay did.
public struct NotificationReplayPage: Codable, Sendable, Equatable {
    public var environment: String
    /// The surface the notifications were processed as arriving at.
    public var surfaceId: String
    public var since: String
    public var until: String
    /// Notifications on this page.
    public var fetched: Int
    /// Processed now for the first time (whatever their status).
    public var new: Int
    /// Already processed before (`duplicate`).
    public var duplicate: Int
    /// Refused by the notification path (they do not verify, or do not belong to the app).
    public var refused: Int
    /// Why each refused one was refused.
    public var refusals: [ReplayRefusal]
    /// Whether Apple has more pages.
    public var hasMore: Bool
    /// Send it back for the next page (with the same `since` and `until`); absent on the last page.
    public var paginationToken: String?

    public init(environment: String, surfaceId: String, since: String, until: String, fetched: Int, new: Int, duplicate: Int, refused: Int,
                refusals: [ReplayRefusal], hasMore: Bool, paginationToken: String?) {
        self.environment = environment
        self.surfaceId = surfaceId
        self.since = since
        self.until = until
        self.fetched = fetched
        self.new = new
        self.duplicate = duplicate
        self.refused = refused
        self.refusals = refusals
        self.hasMore = hasMore
        self.paginationToken = paginationToken
    }
}

extension NotificationReplayPage: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "environment": .oneOf(["production", "sandbox"], "Apple's environment."), "surfaceId": .id("The surface."),
        "since": .timestamp, "until": .timestamp,
        "fetched": .between(0, nil, "Notifications on the page."), "new": .between(0, nil, "Processed for the first time."),
        "duplicate": .between(0, nil, "Processed before."), "refused": .between(0, nil, "Refused by the notification path."),
        "refusals": .list(of: nil, "Why each was refused."), "hasMore": FieldNote("Whether Apple has more pages."),
        "paginationToken": FieldNote("For the next page."),
    ]
}

/// The pages of one replay added up: what `linkrunway app-store replay --json` prints and the console's Replay button
/// shows. Not a wire type of its own; clients make it from the pages they fetched.
public struct NotificationReplayTotals: Encodable, Sendable {
    public var environment = "", surfaceId = "", since = "", until = ""
    public var pages = 0, fetched = 0, new = 0, duplicate = 0, refused = 0
    public var refusals: [ReplayRefusal] = []
    /// The last page's token: Apple has more while it is set.
    public var paginationToken: String?

    public init() {}

    public mutating func add(_ page: NotificationReplayPage) {
        (environment, surfaceId, since, until) = (page.environment, page.surfaceId, page.since, page.until)
        pages += 1
        fetched += page.fetched
        new += page.new
        duplicate += page.duplicate
        refused += page.refused
        refusals += page.refusals
        paginationToken = page.paginationToken
    }

    public var counts: String { "\(fetched) notifications: \(new) new, \(duplicate) duplicate, \(refused) refused" }
}

/// A replayed notification the notification path refused.
public struct ReplayRefusal: Codable, Sendable, Equatable {
    /// Its UUID, when its payload could be read.
    public var notificationUUID: String?
    public var code: String
    public var message: String

    public init(notificationUUID: String?, code: String, message: String) {
        self.notificationUUID = notificationUUID
        self.code = code
        self.message = message
    }
}

extension ReplayRefusal: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "notificationUUID": FieldNote("The notification's UUID."), "code": FieldNote("The error code it got."),
        "message": FieldNote("Why."),
    ]
}

extension WirePattern {
    /// A UUID in any case.
    public static let uuid = "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$"
    /// An App Store Connect API key id.
    public static let appStoreKeyId = "^[A-Z0-9]{10}$"
}
