import Foundation

/// What can go wrong in a call to LinkRunway.
public enum LinkRunwayError: Error, Sendable, Equatable {
    /// The server answered with an error: its status and body.
    case server(status: Int, body: String)
    /// The call needs consent (`setConsent(true)`), and it was not given.
    case consentRequired
    /// The SDK was set up with a key that is not a publishable key (`lr_pk_…`), or an endpoint that is neither HTTPS
    /// nor on this machine.
    case invalidConfiguration(String)
    /// Revenue events (PURCHASE, SUBSCRIPTION, REFUND) come from your backend, with a server key.
    case revenueNeedsServerKey(String)
    /// The server answered something this SDK cannot read.
    case unreadableResponse
    /// An argument the server would refuse (an `eventId` longer than 128 characters, …); nothing was sent.
    case invalidArgument(String)
}

/// How an install was matched to a click.
public enum MatchMethod: Sendable, Equatable {
    case referrer, probabilistic, viewThrough, unmatched
    /// A method newer than this SDK.
    case unknown(String)

    init(_ text: String) {
        switch text {
        case "referrer": self = .referrer
        case "probabilistic": self = .probabilistic
        case "view_through": self = .viewThrough
        case "unmatched": self = .unmatched
        default: self = .unknown(text)
        }
    }
}

/// The server's answer to the first launch: which link, if any, brought the install.
public struct InstallMatch: Sendable, Equatable {
    public let matched: Bool
    public let method: MatchMethod
    /// The click's token.
    public let clickId: String?
    /// The place in the app the link points to.
    public let path: String?
    public let url: String?
    /// The link's metadata, as JSON text.
    public let metadata: String?
    /// The variant drawn for the matched click, when its link or rule has variants: show what that variant promised.
    public let variant: String?
}

/// A link the app was opened with, resolved by the server.
public struct ResolvedLink: Sendable, Equatable {
    public let linkId: String
    public let url: String
    public let path: String?
    /// The link's metadata, as JSON text.
    public let metadata: String?
    public let clickToken: String
}

/// A link a user shares.
public struct Share: Sendable, Equatable {
    public let linkId: String
    public let url: String
}

/// A code a user hands to friends.
public struct ReferralCode: Sendable, Equatable {
    public let code: String
}

/// What an event became on the server.
public struct EventReceipt: Sendable, Equatable {
    public let eventId: String
    /// `stored` or `duplicate`.
    public let status: String
}

/// The Apple Ads claim's state: `pending` while Apple has not processed the token, then `attributed`,
/// `not_attributed`, `invalid` or `expired`.
public struct AppleAdsClaim: Sendable, Equatable {
    public let status: String
    public let campaignId: String?
    public let adGroupId: String?
    public let keywordId: String?
}

/// The token to set on a StoreKit 2 purchase (`.appAccountToken(binding.appAccountToken)`), minted by the server.
public struct AffiliateBinding: Sendable, Equatable {
    public let appAccountToken: UUID
    /// A subscription offer code to show the referred customer.
    public let offerCode: String?
}

/// One conversion-value update handed to Apple's frameworks: the install's postbacks, and for two days after a
/// re-engagement open, that re-engagement's postback too.
public struct ConversionUpdate: Sendable, Equatable {
    /// The values for the install's postbacks.
    public let fine: Int
    public let coarse: CoarseValue?
    public let lockWindow: Bool
    /// The frameworks that accepted the install update, in the order they were called (`skadnetwork`,
    /// `adattributionkit`); empty when it was below the highest value already sent and so not made.
    public let frameworks: [String]
    /// The update of the re-engagement the app was last opened from, when one is active.
    public let reengagement: ReengagementUpdate?

    public init(fine: Int, coarse: CoarseValue?, lockWindow: Bool, frameworks: [String], reengagement: ReengagementUpdate? = nil) {
        self.fine = fine
        self.coarse = coarse
        self.lockWindow = lockWindow
        self.frameworks = frameworks
        self.reengagement = reengagement
    }
}

/// An update of one AdAttributionKit re-engagement postback, named by its conversion tag.
public struct ReengagementUpdate: Sendable, Equatable {
    /// The value of the `AdAttributionKitReengagementOpen` query item of the URL the app was opened with; empty when
    /// the open named the key without a tag (iOS 18.0–18.3), the update then going to re-engagement postbacks.
    public let conversionTag: String
    public let fine: Int
    public let coarse: CoarseValue?
    public let lockWindow: Bool
    /// The frameworks that accepted it (`adattributionkit` on iOS 18 and later).
    public let frameworks: [String]
}

/// Apple's coarse conversion values.
public enum CoarseValue: String, Sendable, Codable, Equatable {
    case low, medium, high
}
