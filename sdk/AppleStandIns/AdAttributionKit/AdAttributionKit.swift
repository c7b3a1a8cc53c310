// A stand-in for Apple's AdAttributionKit (iOS 17.4 and later), for type-checking only: exactly the symbols
// LinkRunway's and LinkRunwayAds' adapters use, as documented on the page named above each. Bodies never run.
import Foundation

/// https://developer.apple.com/documentation/adattributionkit/coarseconversionvalue
@available(iOS 17.4, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
public enum CoarseConversionValue: String, Codable, Hashable, Sendable {
    /// https://developer.apple.com/documentation/adattributionkit/coarseconversionvalue/high
    case high
    /// https://developer.apple.com/documentation/adattributionkit/coarseconversionvalue/low
    case low
    /// https://developer.apple.com/documentation/adattributionkit/coarseconversionvalue/medium
    case medium
}

/// https://developer.apple.com/documentation/adattributionkit/postback
@available(iOS 17.4, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
public struct Postback {
    /// https://developer.apple.com/documentation/adattributionkit/postback/updateconversionvalue(_:lockpostback:)
    public static func updateConversionValue(_ fineConversionValue: Int, lockPostback: Bool) async throws {}

    /// https://developer.apple.com/documentation/adattributionkit/postback/updateconversionvalue(_:coarseconversionvalue:lockpostback:)
    public static func updateConversionValue(_ fineConversionValue: Int, coarseConversionValue: CoarseConversionValue, lockPostback: Bool) async throws {}

    /// https://developer.apple.com/documentation/adattributionkit/postback/updateconversionvalue(_:)
    @available(iOS 18.0, *)
    public static func updateConversionValue(_ postbackUpdate: PostbackUpdate) async throws {}
}

/// https://developer.apple.com/documentation/adattributionkit/postbackupdate
@available(iOS 18.0, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
public struct PostbackUpdate: Sendable {
    /// https://developer.apple.com/documentation/adattributionkit/postbackupdate/conversiontype
    public enum ConversionType: String, Hashable, Sendable {
        /// https://developer.apple.com/documentation/adattributionkit/postbackupdate/conversiontype/install
        case install
        /// https://developer.apple.com/documentation/adattributionkit/postbackupdate/conversiontype/reengagement
        case reengagement
    }

    // What the stand-in keeps; Apple's properties are not used by the adapter, so they are not declared.
    private let fine: Int
    private let lock: Bool
    private let coarse: CoarseConversionValue?
    /// Nil updates every postback type.
    private let types: [PostbackUpdate.ConversionType]?
    private let tag: String?

    /// https://developer.apple.com/documentation/adattributionkit/postbackupdate/init(fineconversionvalue:lockpostback:coarseconversionvalue:conversiontypes:)
    public init(fineConversionValue: Int, lockPostback: Bool, coarseConversionValue: CoarseConversionValue? = nil,
                conversionTypes: [PostbackUpdate.ConversionType]? = nil) {
        fine = fineConversionValue
        lock = lockPostback
        coarse = coarseConversionValue
        types = conversionTypes
        tag = nil
    }

    /// https://developer.apple.com/documentation/adattributionkit/postbackupdate/init(fineconversionvalue:lockpostback:conversiontag:coarseconversionvalue:conversiontypes:)
    /// (no defaults are declared here: Apple's page does not confirm them, so the adapter passes every argument).
    @available(iOS 18.4, *)
    public init(fineConversionValue: Int, lockPostback: Bool, conversionTag: String, coarseConversionValue: CoarseConversionValue?,
                conversionTypes: [PostbackUpdate.ConversionType]?) {
        fine = fineConversionValue
        lock = lockPostback
        coarse = coarseConversionValue
        types = conversionTypes
        tag = conversionTag
    }
}

/// https://developer.apple.com/documentation/adattributionkit/appimpression
/// (Apple documents `==` and `hash(into:)` but not `Sendable`, so none of them is declared: the adapter uses none.)
@available(iOS 17.4, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
public struct AppImpression {
    /// https://developer.apple.com/documentation/adattributionkit/appimpression/init(compactjws:)
    public init(compactJWS: String) async throws {}

    /// https://developer.apple.com/documentation/adattributionkit/appimpression/issupported
    @available(iOS 18.0, *)
    public static var isSupported: Bool { false }

    /// https://developer.apple.com/documentation/adattributionkit/appimpression/beginview()
    public func beginView() async throws {}

    /// https://developer.apple.com/documentation/adattributionkit/appimpression/endview()
    public func endView() async throws {}

    /// https://developer.apple.com/documentation/adattributionkit/appimpression/handleview()
    @available(iOS 26.2, *)
    public func handleView() async throws {}

    /// https://developer.apple.com/documentation/adattributionkit/appimpression/handletap()
    public func handleTap() async throws {}

    /// https://developer.apple.com/documentation/adattributionkit/appimpression/handletap(reengagementurl:)
    @available(iOS 18.0, *)
    public func handleTap(reengagementURL: URL) async throws {}
}
