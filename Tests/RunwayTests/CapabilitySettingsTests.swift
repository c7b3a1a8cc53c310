import Foundation
@testable import RunwayCapabilities
@testable import RunwayKit
@testable import RunwayServer
import Testing

@Suite("Capability settings")
struct CapabilitySettingsTests {
    @Test("every capability's settings are the server's too: one name and one flag each, read into the capability's own value, flags first")
    func capabilitySettingsLoad() throws {
        let settings = ServerConfiguration.settings
        #expect(Set(settings.map(\.environment)).count == settings.count && Set(settings.map(\.flag)).count == settings.count)
        for type in ServerApplication.capabilities.compactMap(\.settings) {
            for definition in type.definitionsInSet {
                #expect(settings.contains { $0.environment == definition.environment && $0.flag == definition.flag }, "\(definition.environment)")
            }
        }

        let untouched = try ServerConfiguration.load(environment: [:], flags: [:])
        #expect(untouched.capabilities[AppleAdsSettings.self].url == "https://api-adservices.apple.com")
        #expect(untouched.capabilities[OperationsSettings.self].metricsToken == nil)

        let loaded = try ServerConfiguration.load(
            environment: ["LINKRUNWAY_APPLE_ADS_URL": "http://127.0.0.1:9/env", "LINKRUNWAY_METRICS_TOKEN": "token-from-the-environment",
                          "LINKRUNWAY_APP_STORE_API_URL": "http://127.0.0.1:9/store"],
            flags: ["--apple-ads-url": "http://127.0.0.1:9/flag"])
        #expect(loaded.capabilities[AppleAdsSettings.self].url == "http://127.0.0.1:9/flag")
        #expect(loaded.capabilities[AppleAdsSettings.self].timeoutSeconds == 10, "a field that is not a setting keeps its default")
        #expect(loaded.capabilities[OperationsSettings.self].metricsToken == "token-from-the-environment")
        #expect(loaded.capabilities[AppStoreAPISettings.self].url == "http://127.0.0.1:9/store")

        #expect(throws: ServerConfiguration.InvalidSetting.self) {
            try ServerConfiguration.load(environment: ["LINKRUNWAY_METRICS_TOKEN": "short"], flags: [:])
        }
        do {
            _ = try ServerConfiguration.load(environment: [:], flags: ["--apple-ads-url": "ftp://example.com"])
            Issue.record("a URL that is not http or https is refused")
        } catch let invalid as ServerConfiguration.InvalidSetting {
            #expect(invalid.name == "--apple-ads-url")
        }
    }
}
