/// One install in the list of recent installs (`GET /v1/installs`): how it was attributed, and whether it was only
/// simulated.
public struct InstallSummary: Codable, Sendable, Equatable {
    public var installId: String
    public var appId: String
    public var platform: String
    /// referrer, probabilistic, view_through, organic, …
    public var method: String
    /// link, ad:<network>, organic or returning.
    public var source: String
    public var linkId: String?
    public var campaign: String?
    public var channel: String?
    /// Set when an Apple Ads claim attributed the install.
    public var appleAdsCampaignId: String?
    /// Made by `POST /v1/simulate/installs`.
    public var simulated: Bool
    public var matchedAt: String

    public init(installId: String, appId: String, platform: String, method: String, source: String, linkId: String?, campaign: String?,
                channel: String?, appleAdsCampaignId: String?, simulated: Bool, matchedAt: String) {
        self.installId = installId
        self.appId = appId
        self.platform = platform
        self.method = method
        self.source = source
        self.linkId = linkId
        self.campaign = campaign
        self.channel = channel
        self.appleAdsCampaignId = appleAdsCampaignId
        self.simulated = simulated
        self.matchedAt = matchedAt
    }
}

extension InstallSummary: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "installId": FieldNote("The SDK's install id."), "appId": .id("App."), "platform": FieldNote("ios or tvos."),
        "method": .oneOf(["referrer", "probabilistic", "view_through", "unmatched"], "How the install was matched."),
        "source": FieldNote("link, apple_ads, ad:<network>, organic or returning."),
        "linkId": FieldNote("Link."), "campaign": FieldNote("Campaign."), "channel": FieldNote("Channel."),
        "appleAdsCampaignId": FieldNote("Apple Ads campaign."), "simulated": FieldNote("Made by POST /v1/simulate/installs."),
        "matchedAt": .timestamp,
    ]
}
