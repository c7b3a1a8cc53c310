/// The type of an App Store Server Notification v2
/// (https://developer.apple.com/documentation/appstoreservernotifications/notificationtype). Apple adds types over
/// time, so any value is kept as sent; the ones the server acts on are named here.
public struct AppStoreNotificationType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    public static let subscribed = Self(rawValue: "SUBSCRIBED")
    public static let didRenew = Self(rawValue: "DID_RENEW")
    public static let offerRedeemed = Self(rawValue: "OFFER_REDEEMED")
    public static let oneTimeCharge = Self(rawValue: "ONE_TIME_CHARGE")
    public static let refund = Self(rawValue: "REFUND")
    public static let revoke = Self(rawValue: "REVOKE")
    public static let refundReversed = Self(rawValue: "REFUND_REVERSED")
    /// A parent withdrew consent for a child's use of the app.
    public static let rescindConsent = Self(rawValue: "RESCIND_CONSENT")
    public static let didChangeRenewalStatus = Self(rawValue: "DID_CHANGE_RENEWAL_STATUS")
    public static let expired = Self(rawValue: "EXPIRED")

    /// Payments: a commission may accrue.
    public static let payments: Set<Self> = [.subscribed, .didRenew, .offerRedeemed, .oneTimeCharge]
    /// Money given back: commissions are clawed back.
    public static let reversals: Set<Self> = [.refund, .revoke]
}

extension AppStoreVerifier.Environment {
    /// The environments an App Store surface serves, by the name the API and the stored rows give them.
    public static let surfaceEnvironments: [Self] = [.production, .sandbox]

    /// The environment a surface, the API and the stored rows name `production` or `sandbox`; nil for any other.
    public init?(surfaceName: String) {
        guard let environment = Self.surfaceEnvironments.first(where: { $0.surfaceName == surfaceName }) else { return nil }
        self = environment
    }

    /// This environment as the API and the stored rows name it (Apple's name in lower case: `production`).
    public var surfaceName: String { rawValue.lowercased() }
}
