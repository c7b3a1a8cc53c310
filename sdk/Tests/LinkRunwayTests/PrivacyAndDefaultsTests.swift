import Foundation
@testable import LinkRunway
import Testing

/// The seed's privacy rule (no IDFA, IDFV or pasteboard, no tracking prompt), read from the SDK's own sources, and the
/// defaults an app gets without passing dependencies, as far as Linux has them.
@Suite("Privacy and defaults")
struct PrivacyAndDefaultsTests {
    /// Every Swift file of the library, with its text.
    static func sources() throws -> [(name: String, text: String)] {
        let root = PackageTests.packageRoot.appendingPathComponent("Sources/LinkRunway")
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return try files.filter { $0.pathExtension == "swift" }.map { ($0.lastPathComponent, try String(contentsOf: $0, encoding: .utf8)) }
    }

    /// The APIs that read the IDFA or IDFV, the pasteboard, or ask for App Tracking Transparency.
    static let forbidden = ["ASIdentifierManager", "advertisingIdentifier", "AdSupport", "identifierForVendor", "UIPasteboard", "NSPasteboard",
                            "ATTrackingManager", "requestTrackingAuthorization", "AppTrackingTransparency"]

    @Test("the SDK's sources name no API that reads the IDFA, the IDFV or the pasteboard, or asks for tracking permission")
    func noIdentifiersOrPrompt() throws {
        let sources = try Self.sources()
        #expect(sources.count >= 10 && sources.contains { $0.name == "SystemAppAttest.swift" }, "the scan reads the adapters too")
        for (name, text) in sources {
            for api in Self.forbidden {
                #expect(!text.contains(api), "\(name) names \(api)")
            }
        }
    }

    @Test(".system on Linux has none of Apple's frameworks: no conversion framework, AdServices, App Attest or app transaction")
    func systemOnLinux() {
        let system = LinkRunwayDependencies.system
        #if os(Linux)
        #expect(system.conversionFrameworks.isEmpty)
        #expect(system.adServices == nil && system.appAttest == nil && system.appTransaction == nil)
        #endif
        #expect(system.device.platform == DeviceInfo.current.platform)
        #expect(abs(system.now().timeIntervalSinceNow) < 5, "the clock is the device's")
    }

    @Test("DeviceInfo.current: ios (tvos only on Apple TV), major.minor of this OS, the first preferred language")
    func currentDevice() {
        let device = DeviceInfo.current
        let version = ProcessInfo.processInfo.operatingSystemVersion
        #if os(tvOS)
        #expect(device.platform == "tvos")
        #else
        #expect(device.platform == "ios")
        #endif
        #expect(device.osVersion == "\(version.majorVersion).\(version.minorVersion)")
        #expect(device.language == Locale.preferredLanguages.first)
    }

    @Test("the app's initializer uses .system: the match says this device's platform and OS version, and the user agent says iOS")
    func appInitializerUsesSystem() async throws {
        let server = StubServer(Fixture.standard)
        let runway = LinkRunway(endpoint: server.endpoint, publishableKey: Fixture.key, suiteName: Fixture.suite(), session: server.session)
        await runway.setConsent(true)
        _ = try await runway.matchInstall()
        let request = try #require(server.requests(to: "/v1/installs/match").first)
        #expect(request.body?["platform"] as? String == DeviceInfo.current.platform)
        #expect(request.body?["osVersion"] as? String == DeviceInfo.current.osVersion)
        #expect(request.body?["appTransactionId"] == nil, "no StoreKit here")
        #expect(request.headers["user-agent"] == "LinkRunwaySDK/\(LinkRunway.version) iOS")
    }

    @Test("LinkRunwayDependencies() defaults: this device, no frameworks or providers, the real clock and a real wait")
    func dependencyDefaults() async {
        let defaults = LinkRunwayDependencies()
        #expect(defaults.device.platform == DeviceInfo.current.platform && defaults.device.osVersion == DeviceInfo.current.osVersion)
        #expect(defaults.conversionFrameworks.isEmpty && defaults.adServices == nil && defaults.appAttest == nil && defaults.appTransaction == nil)
        #expect(abs(defaults.now().timeIntervalSinceNow) < 5)
        let start = Date()
        await defaults.sleep(0.05)
        #expect(Date().timeIntervalSince(start) >= 0.04, "sleep waits for real")
    }
}
