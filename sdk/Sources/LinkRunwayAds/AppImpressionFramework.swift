import Foundation

/// AdAttributionKit's app impressions behind the calls LinkRunwayAds makes, so the library runs, and is tested, where
/// the framework does not exist. `.system` uses Apple's `AppImpression` on iOS 17.4 and later; tests pass fakes.
public protocol AppImpressionFramework: Sendable {
    /// Whether this device takes app impressions: `AppImpression.isSupported` on iOS 18 and later, true on 17.4–17.x.
    var isSupported: Bool { get }
    /// `AppImpression(compactJWS:)`: Apple checks the signed impression and throws when it refuses it.
    func impression(compactJWS: String) async throws -> any AppImpressionRecorder
}

/// The calls on one `AppImpression`, made in the order the app shows and taps the ad.
public protocol AppImpressionRecorder: Sendable {
    /// `beginView()`: the ad became visible.
    func beginView() async throws
    /// `endView()`: the ad went away (Apple records a view-through impression after two seconds visible).
    func endView() async throws
    /// `handleTap(reengagementURL:)` where the framework has it (iOS 18) and a URL is given, else `handleTap()`.
    func handleTap(reengagementURL: URL?) async throws
}

/// What LinkRunwayAds reaches outside itself. Apps use `.system`; tests pass a fake framework.
public struct LinkRunwayAdsDependencies: Sendable {
    /// Nil where AdAttributionKit's app impressions do not exist (before iOS 17.4, tvOS, macOS).
    public var appImpressions: (any AppImpressionFramework)?

    public init(appImpressions: (any AppImpressionFramework)? = nil) {
        self.appImpressions = appImpressions
    }

    /// Apple's AdAttributionKit on iOS 17.4 and later, nothing elsewhere. (`LINKRUNWAY_APPLE_STANDINS` is defined only
    /// by the build that type-checks the adapter on Linux against a stand-in of Apple's module.)
    public static var system: LinkRunwayAdsDependencies {
        #if (os(iOS) || LINKRUNWAY_APPLE_STANDINS) && canImport(AdAttributionKit)
        if #available(iOS 17.4, *) { return LinkRunwayAdsDependencies(appImpressions: SystemAppImpressions()) }
        #endif
        return LinkRunwayAdsDependencies()
    }
}
