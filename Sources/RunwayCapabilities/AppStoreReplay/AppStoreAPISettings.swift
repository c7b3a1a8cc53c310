import Foundation
import RunwayKit

/// Where App Store Server API requests go: Apple's hosts, or a stand-in. Replays ask it, and so does retention
/// messaging.
package struct AppStoreAPISettings: CapabilitySettings {
    /// The API for both environments instead of Apple's hosts; nil for Apple's.
    package var url: String?

    package init() {}

    package static let definitions: [SettingDefinition<AppStoreAPISettings>] = [
        SettingDefinition(environment: "LINKRUNWAY_APP_STORE_API_URL", flag: "--app-store-api-url",
                          defaultValue: "Apple's (api.storekit.itunes.apple.com; api.storekit-sandbox.itunes.apple.com for sandbox)",
                          summary: "The App Store Server API that replaying notifications asks, for both environments (point it at `linkrunway dev fake-app-store-api` to try replays).") { s, v in
            guard let url = URL(string: v), url.scheme == "https" || url.scheme == "http", url.host != nil else { return false }
            s.url = v
            return true
        },
    ]
}
