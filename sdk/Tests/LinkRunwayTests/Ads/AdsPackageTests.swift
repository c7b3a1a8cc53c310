import Foundation
import LinkRunway
@testable import LinkRunwayAds
import Testing

/// What LinkRunwayAds ships: a privacy manifest declaring nothing, the package's version, and no dependency on the
/// attribution library or on storage.
@Suite("Publisher ads package")
struct AdsPackageTests {
    static let sources = PackageTests.packageRoot.appendingPathComponent("Sources/LinkRunwayAds")

    @Test("the privacy manifest declares no tracking, no collected data and no reasoned API")
    func privacyManifest() throws {
        let data = try Data(contentsOf: Self.sources.appendingPathComponent("Resources/PrivacyInfo.xcprivacy"))
        let manifest = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        #expect(manifest["NSPrivacyTracking"] as? Bool == false)
        for key in ["NSPrivacyTrackingDomains", "NSPrivacyCollectedDataTypes", "NSPrivacyAccessedAPITypes"] {
            #expect((manifest[key] as? [Any])?.isEmpty == true, "\(key) is empty")
        }
    }

    @Test("one package, one version: LinkRunwayAds.version is LinkRunway.version")
    func version() {
        #expect(LinkRunwayAds.version == LinkRunway.version)
        #expect(ImpressionTransport.userAgent == "LinkRunwayAds/\(LinkRunway.version)")
    }

    @Test("the sources import nothing of LinkRunway and store nothing on the device, which the empty manifest relies on")
    func storesNothing() throws {
        let files = try #require(FileManager.default.enumerator(atPath: Self.sources.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") })
        #expect(files.count >= 6)
        for file in files {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
            for word in ["import LinkRunway\n", "UserDefaults", "FileManager", "Keychain", "SecItem", "identifierForVendor", "advertisingIdentifier"] {
                #expect(!text.contains(word), "\(file) names \(word)")
            }
        }
    }
}
