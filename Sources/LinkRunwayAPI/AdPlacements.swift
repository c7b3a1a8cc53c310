/// `POST /v1/ad-networks/{networkId}/placements`: what one publisher app may ask this ad network to sign. The ad network
/// (a server key) decides every field of the impression here; the publisher app, which ships a publishable key anyone
/// can read, only names the placement and gets a fresh impression id and timestamp with each signature.
public struct CreateAdPlacementRequest: Codable, Sendable {
    /// The publisher app: an app of the ad network's workspace, whose publishable keys may ask for impressions.
    public var appId: String
    /// For people: where the ad shows, or the campaign.
    public var name: String?
    /// The advertised app's App Store id.
    public var advertisedItemId: Int64
    /// The hierarchical source identifier (up to four digits) AdAttributionKit reports back.
    public var sourceIdentifier: Int
    /// The publisher app's App Store id; the app's own by default, 0 while testing a development build.
    public var publisherItemId: Int64?
    /// Whether the impression may drive re-engagement postbacks (AdAttributionKit, iOS 18 and later).
    public var eligibleForReengagement: Bool?
    /// A universal link into the advertised app that a tap opens when the app is installed (`handleTap(reengagementURL:)`).
    public var reengagementUrl: String?

    public init(appId: String, name: String? = nil, advertisedItemId: Int64, sourceIdentifier: Int, publisherItemId: Int64? = nil,
                eligibleForReengagement: Bool? = nil, reengagementUrl: String? = nil) {
        self.appId = appId
        self.name = name
        self.advertisedItemId = advertisedItemId
        self.sourceIdentifier = sourceIdentifier
        self.publisherItemId = publisherItemId
        self.eligibleForReengagement = eligibleForReengagement
        self.reengagementUrl = reengagementUrl
    }
}

extension CreateAdPlacementRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "appId": FieldNote("The publisher app (of the ad network's workspace); its publishable keys may ask.", minLength: 1, maxLength: 100),
        "name": FieldNote("For people.", minLength: 1, maxLength: 100),
        "advertisedItemId": .between(1, 999_999_999_999, "The advertised app's App Store id."),
        "sourceIdentifier": .between(0, 9999, "Up to four digits."),
        "publisherItemId": .between(0, 999_999_999_999, "The publisher app's App Store id (the app's own by default; 0 while testing)."),
        "eligibleForReengagement": FieldNote("Whether the impression may drive re-engagement (default false)."),
        "reengagementUrl": FieldNote("A universal link into the advertised app that a tap opens when it is installed.", pattern: WirePattern.https,
                                     maxLength: 2048),
    ]
}

/// A placement: the impression one publisher app may ask an ad network for.
public struct AdPlacement: Codable, Sendable, Equatable {
    public var id: String
    public var workspaceId: String
    /// The ad network identity that signs (`adn_…`).
    public var networkId: String
    /// Its id as registered with Apple, the JWS's `kid`.
    public var adNetworkId: String
    /// The publisher app whose publishable keys may ask.
    public var appId: String
    public var name: String?
    public var advertisedItemId: Int64
    public var sourceIdentifier: Int
    public var publisherItemId: Int64
    public var eligibleForReengagement: Bool
    public var reengagementUrl: String?
    public var createdAt: String

    public init(id: String, workspaceId: String, networkId: String, adNetworkId: String, appId: String, name: String?, advertisedItemId: Int64,
                sourceIdentifier: Int, publisherItemId: Int64, eligibleForReengagement: Bool, reengagementUrl: String?, createdAt: String) {
        self.id = id
        self.workspaceId = workspaceId
        self.networkId = networkId
        self.adNetworkId = adNetworkId
        self.appId = appId
        self.name = name
        self.advertisedItemId = advertisedItemId
        self.sourceIdentifier = sourceIdentifier
        self.publisherItemId = publisherItemId
        self.eligibleForReengagement = eligibleForReengagement
        self.reengagementUrl = reengagementUrl
        self.createdAt = createdAt
    }
}

extension AdPlacement: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "id": .id("Id (plc_…)."), "workspaceId": .id("Workspace."), "networkId": .id("The ad network identity that signs."),
        "adNetworkId": FieldNote("Its id as registered with Apple (the JWS's kid)."), "appId": .id("The publisher app."),
        "name": FieldNote("For people."), "advertisedItemId": .between(1, nil, "The advertised app's App Store id."),
        "sourceIdentifier": .between(0, 9999, "The source identifier."),
        "publisherItemId": .between(0, nil, "The publisher app's App Store id (0 while testing)."),
        "eligibleForReengagement": FieldNote("Whether impressions may drive re-engagement."),
        "reengagementUrl": FieldNote("The universal link a tap opens in the installed advertised app."), "createdAt": .timestamp,
    ]
}

/// `POST /v1/ad-placements/{placementId}/impressions`: a fresh AdAttributionKit impression of a placement, signed for
/// the publisher app (`AppImpression(compactJWS:)` takes `jws`).
public struct PlacementImpression: Codable, Sendable, Equatable {
    public var placementId: String
    public var adNetworkId: String
    /// A new UUID for this impression.
    public var impressionId: String
    /// When it was signed, in milliseconds since 1970.
    public var timestamp: Int64
    public var sourceIdentifier: Int
    public var advertisedItemId: Int64
    public var publisherItemId: Int64
    public var eligibleForReengagement: Bool
    /// The universal link a tap opens when the advertised app is installed.
    public var reengagementUrl: String?
    /// The compact JWS (ES256, `kid` the ad network id).
    public var jws: String

    public init(placementId: String, adNetworkId: String, impressionId: String, timestamp: Int64, sourceIdentifier: Int, advertisedItemId: Int64,
                publisherItemId: Int64, eligibleForReengagement: Bool, reengagementUrl: String?, jws: String) {
        self.placementId = placementId
        self.adNetworkId = adNetworkId
        self.impressionId = impressionId
        self.timestamp = timestamp
        self.sourceIdentifier = sourceIdentifier
        self.advertisedItemId = advertisedItemId
        self.publisherItemId = publisherItemId
        self.eligibleForReengagement = eligibleForReengagement
        self.reengagementUrl = reengagementUrl
        self.jws = jws
    }
}

extension PlacementImpression: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "placementId": .id("The placement."), "adNetworkId": FieldNote("The ad network (the JWS's kid)."),
        "impressionId": FieldNote("A new UUID for this impression."), "timestamp": FieldNote("When it was signed, milliseconds since 1970."),
        "sourceIdentifier": .between(0, 9999, "The source identifier."),
        "advertisedItemId": .between(1, nil, "The advertised app's App Store id."),
        "publisherItemId": .between(0, nil, "The publisher app's App Store id (0 while testing)."),
        "eligibleForReengagement": FieldNote("Whether it may drive re-engagement."),
        "reengagementUrl": FieldNote("The universal link a tap opens in the installed advertised app."),
        "jws": FieldNote("The compact JWS for AppImpression(compactJWS:)."),
    ]
}
