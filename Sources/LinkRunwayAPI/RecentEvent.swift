/// One event in the list of recent events (`GET /v1/events`): what happened, to which install, attributed how, and
/// whether its install was only simulated.
public struct RecentEvent: Codable, Sendable, Equatable {
    public var eventId: String
    public var appId: String
    public var installId: String
    public var type: String
    public var name: String?
    public var amount: Int64?
    public var currency: String?
    /// The source its install was attributed to when the event was written.
    public var source: String
    public var campaign: String?
    public var simulated: Bool
    public var occurredAt: String
    public var receivedAt: String

    public init(eventId: String, appId: String, installId: String, type: String, name: String?, amount: Int64?, currency: String?,
                source: String, campaign: String?, simulated: Bool, occurredAt: String, receivedAt: String) {
        self.eventId = eventId
        self.appId = appId
        self.installId = installId
        self.type = type
        self.name = name
        self.amount = amount
        self.currency = currency
        self.source = source
        self.campaign = campaign
        self.simulated = simulated
        self.occurredAt = occurredAt
        self.receivedAt = receivedAt
    }
}

extension RecentEvent: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "eventId": FieldNote("The event's id."), "appId": .id("App."), "installId": FieldNote("Its install."),
        "type": FieldNote("INSTALL, OPEN, PURCHASE, …"), "name": FieldNote("Name."), "amount": FieldNote("Minor units."),
        "currency": FieldNote("ISO 4217."), "source": FieldNote("The source its install was attributed to when it was written."),
        "campaign": FieldNote("Campaign."), "simulated": FieldNote("Its install was made by POST /v1/simulate/installs."),
        "occurredAt": .timestamp, "receivedAt": .timestamp,
    ]
}
