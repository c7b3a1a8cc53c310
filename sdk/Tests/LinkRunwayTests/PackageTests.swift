import Foundation
@testable import LinkRunway
import Testing

/// What ships with the package: the privacy manifest and the changelog.
@Suite("Package")
struct PackageTests {
    /// sdk/, from this file.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func manifest() throws -> [String: Any] {
        let data = try Data(contentsOf: packageRoot.appendingPathComponent("Sources/LinkRunway/Resources/PrivacyInfo.xcprivacy"))
        return try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
    }

    @Test("the privacy manifest declares no tracking and no tracking domains")
    func noTracking() throws {
        let manifest = try Self.manifest()
        #expect(manifest["NSPrivacyTracking"] as? Bool == false)
        #expect((manifest["NSPrivacyTrackingDomains"] as? [Any])?.isEmpty ?? true)
        let types = try #require(manifest["NSPrivacyCollectedDataTypes"] as? [[String: Any]])
        #expect(types.allSatisfy { $0["NSPrivacyCollectedDataTypeTracking"] as? Bool == false })
    }

    @Test("the privacy manifest declares the user id, and every collected data type as linked")
    func collectedTypes() throws {
        let types = try #require(try Self.manifest()["NSPrivacyCollectedDataTypes"] as? [[String: Any]])
        let names = types.compactMap { $0["NSPrivacyCollectedDataType"] as? String }
        #expect(names.count == types.count)
        #expect(names.contains("NSPrivacyCollectedDataTypeUserID"))
        #expect(types.allSatisfy { $0["NSPrivacyCollectedDataTypeLinked"] as? Bool == true })
    }

    @Test("the privacy manifest gives CA92.1 and 1C8F.1 as the reasons for UserDefaults")
    func userDefaultsReasons() throws {
        let apis = try #require(try Self.manifest()["NSPrivacyAccessedAPITypes"] as? [[String: Any]])
        let defaults = try #require(apis.first { $0["NSPrivacyAccessedAPIType"] as? String == "NSPrivacyAccessedAPICategoryUserDefaults" })
        #expect(Set(defaults["NSPrivacyAccessedAPITypeReasons"] as? [String] ?? []) == ["CA92.1", "1C8F.1"])
    }

    @Test("the changelog's newest version heading names LinkRunway.version")
    func changelogVersion() throws {
        let text = try String(contentsOf: Self.packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let heading = try #require(text.split(separator: "\n").first { line in
            line.hasPrefix("## ") && line.dropFirst(3).first?.isNumber == true
        })
        let version = heading.dropFirst(3).prefix { $0.isNumber || $0 == "." }
        #expect(version.split(separator: ".").count == 3)
        #expect(String(version) == LinkRunway.version)
    }

    @Test("the SDK's guides give the User-Agent of this version", arguments: ["docs/sdk.md", "docs/sdk-with-curl.md"])
    func guideVersion(_ path: String) throws {
        let text = try String(contentsOf: Self.packageRoot.deletingLastPathComponent().appendingPathComponent(path), encoding: .utf8)
        let agents = text.components(separatedBy: "LinkRunwaySDK/").dropFirst().map { $0.prefix { $0.isNumber || $0 == "." } }
        #expect(!agents.isEmpty && agents.allSatisfy { String($0) == LinkRunway.version }, "\(path): \(agents)")
    }
}
