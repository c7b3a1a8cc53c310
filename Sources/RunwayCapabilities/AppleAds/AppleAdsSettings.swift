import Foundation
import RunwayKit

/// What an operator sets for Apple Ads claims: where AdServices is.
package struct AppleAdsSettings: CapabilitySettings {
    /// Apple's AdServices API, or a stand-in (`linkrunway dev fake-adservices`).
    package var url = "https://api-adservices.apple.com"
    /// How long one request to AdServices may wait (never under two seconds): not a setting; tests shorten it.
    package var timeoutSeconds: Double = 10
    /// The longest an app waits for Apple inside its request; a slower Apple is answered 202 and asked again in the
    /// background with the full timeout. Not a setting: tests whose stand-in answers at once lengthen it, since a
    /// loaded machine can take longer than this to run the stand-in.
    package var inlineSeconds: Double = 3

    package init() {}

    package static let definitions: [SettingDefinition<AppleAdsSettings>] = [
        SettingDefinition(environment: "LINKRUNWAY_APPLE_ADS_URL", flag: "--apple-ads-url", defaultValue: "https://api-adservices.apple.com",
                          summary: "Apple's AdServices API (point it at `linkrunway dev fake-adservices` to try claims).") { s, v in
            guard let url = URL(string: v), url.scheme == "https" || url.scheme == "http", url.host != nil else { return false }
            s.url = v
            return true
        },
    ]
}
