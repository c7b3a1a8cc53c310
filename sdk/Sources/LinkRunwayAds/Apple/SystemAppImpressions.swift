// AdAttributionKit: iOS 17.4 and later. Weak-linked (`@_weakLinked`), so every reference to it is weak and the
// framework is loaded optionally: a publisher app still launches on iOS 15 and 16, where it does not exist. The
// stand-in build checks that the references are weak (AppleStandIns/check.sh).
#if (os(iOS) || LINKRUNWAY_APPLE_STANDINS) && canImport(AdAttributionKit)
@_weakLinked import AdAttributionKit
import Foundation

/// Apple's `AppImpression`, made from the JWS the server signed
/// (https://developer.apple.com/documentation/adattributionkit/appimpression/init(compactjws:)).
@available(iOS 17.4, *)
struct SystemAppImpressions: AppImpressionFramework {
    /// https://developer.apple.com/documentation/adattributionkit/appimpression/issupported (iOS 18.0); before it,
    /// every device with the framework takes app impressions.
    var isSupported: Bool {
        if #available(iOS 18.0, *) { return AppImpression.isSupported }
        return true
    }

    func impression(compactJWS: String) async throws -> any AppImpressionRecorder {
        SystemAppImpression(try await AppImpression(compactJWS: compactJWS))
    }
}

/// The calls on one impression, as Apple's publisher documentation makes them
/// (https://developer.apple.com/documentation/adattributionkit/presenting-ads-in-your-app). Apple does not declare
/// `AppImpression` `Sendable`; it is a value whose documented members are getters and these async calls, and
/// `AttributableAd` makes the calls one at a time, in order, so the box is unchecked.
@available(iOS 17.4, *)
final class SystemAppImpression: AppImpressionRecorder, @unchecked Sendable {
    private let impression: AppImpression

    init(_ impression: AppImpression) { self.impression = impression }

    /// https://developer.apple.com/documentation/adattributionkit/appimpression/beginview() before iOS 26.2; from 26.2
    /// the view is recorded once it has been shown, at `endView()`.
    func beginView() async throws {
        guard #unavailable(iOS 26.2) else { return }
        try await impression.beginView()
    }

    /// From iOS 26.2, https://developer.apple.com/documentation/adattributionkit/appimpression/handleview() once the ad
    /// content has been displayed (Apple's publisher guide records it as the ad disappears); before,
    /// https://developer.apple.com/documentation/adattributionkit/appimpression/endview().
    func endView() async throws {
        if #available(iOS 26.2, *) {
            try await impression.handleView()
        } else {
            try await impression.endView()
        }
    }

    /// https://developer.apple.com/documentation/adattributionkit/appimpression/handletap(reengagementurl:) (iOS 18.0:
    /// opens the installed advertised app at the universal link), else
    /// https://developer.apple.com/documentation/adattributionkit/appimpression/handletap(). Both need a
    /// `UIEventAttributionView` over the ad, and throw without a tap in it.
    func handleTap(reengagementURL: URL?) async throws {
        if #available(iOS 18.0, *), let reengagementURL {
            try await impression.handleTap(reengagementURL: reengagementURL)
        } else {
            try await impression.handleTap()
        }
    }
}
#endif
