import AppleFormats
import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
import Testing

/// The Info.plist check against the XML Apple's pages show, and against each mistake those pages warn about.
@Suite("Info.plist check")
struct InfoPlistCheckTests {
    static let server = ["example.com"]

    /// An XML property list document around `body` (the top-level dictionary's contents).
    static func plist(_ body: String) -> [UInt8] {
        Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
                <key>CFBundleIdentifier</key>
                <string>com.example.app</string>
                \(body)
            </dict>
            </plist>
            """.utf8)
    }

    static func check(_ body: String, hosts: [String] = server) -> [AttributionPlistCheck.Finding] {
        AttributionPlistCheck.check(plist(body), serverHosts: hosts)
    }

    static func errors(_ body: String) -> [String] {
        check(body).filter { $0.level == .error }.map(\.key)
    }

    @Test("Apple's examples pass: the global and per-network windows, ignoreInteractionType, the cooldown, the publisher's ids, the copy endpoint")
    func applesExamples() {
        // https://developer.apple.com/documentation/adattributionkit/configuring-attribution-rules-for-your-app
        let rules = """
            <key>AdAttributionKitConfigurations</key>
            <dict>
                <key>AttributionWindows</key>
                <dict>
                    <key>global</key>
                    <dict><key>install</key><dict><key>view</key><integer>3</integer></dict></dict>
                    <key>com.apple.test.itms11.2</key>
                    <dict><key>install</key><dict>
                        <key>ignoreInteractionType</key><string>view</string>
                        <key>click</key><integer>5</integer>
                    </dict></dict>
                    <key>test.adattributionkit</key>
                    <dict><key>install</key><dict><key>click</key><integer>23</integer></dict></dict>
                </dict>
                <key>AttributionCooldown</key>
                <dict><key>install-cooldown-hours</key><integer>24</integer></dict>
            </dict>
            """
        // https://developer.apple.com/documentation/adattributionkit/configuring-a-publisher-app
        let publisher = """
            <key>AdNetworkIdentifiers</key>
            <array><string>f2d92a.adattributionkit</string><string>2jida.adattributionkit</string></array>
            <key>SKAdNetworkItems</key>
            <array><dict><key>SKAdNetworkIdentifier</key><string>example123.skadnetwork</string></dict></array>
            """
        // https://developer.apple.com/documentation/adattributionkit/configuring-an-advertised-app
        let advertised = """
            <key>AdAttributionKit</key>
            <dict>
                <key>AttributionCopyEndpoint</key><string>https://example.com</string>
                <key>EligibleForAdAttributionKitReengagementPostbackCopies</key><true/>
            </dict>
            <key>NSAdvertisingAttributionReportEndpoint</key><string>https://example.com</string>
            """
        #expect(Self.check(rules + publisher + advertised) == [])
    }

    @Test("upper-case ad network ids are errors wherever Apple matches them")
    func upperCaseIds() {
        let found = Self.errors("""
            <key>AdNetworkIdentifiers</key><array><string>F2D92A.adattributionkit</string><string>ok.adattributionkit</string></array>
            <key>SKAdNetworkItems</key><array><dict><key>SKAdNetworkIdentifier</key><string>Example123.SKAdNetwork</string></dict></array>
            <key>AdAttributionKitConfigurations</key><dict><key>AttributionWindows</key><dict>
                <key>Test.AdAttributionKit</key><dict><key>install</key><dict><key>click</key><integer>2</integer></dict></dict>
            </dict></dict>
            """)
        #expect(found == ["AdAttributionKitConfigurations.AttributionWindows.Test.AdAttributionKit", "AdNetworkIdentifiers.0",
                          "SKAdNetworkItems.0.SKAdNetworkIdentifier"])
    }

    @Test("the copy endpoint must be https and one of this server's domains; a subdomain or a path is a warning")
    func endpoints() {
        func endpoint(_ url: String, hosts: [String] = Self.server) -> [AttributionPlistCheck.Finding] {
            Self.check("<key>AdAttributionKit</key><dict><key>AttributionCopyEndpoint</key><string>\(url)</string></dict>", hosts: hosts)
        }
        #expect(endpoint("https://example.com") == [])
        #expect(endpoint("https://example.com/") == [])
        #expect(endpoint("http://example.com").map(\.level) == [.error])
        #expect(endpoint("https://elsewhere.net").first?.message.contains("not one of this server's https domains") == true)
        #expect(endpoint("https://example.com", hosts: []).first?.message.contains("no verified link domain") == true)
        let path = endpoint("https://example.com/postbacks")
        #expect(path.map(\.level) == [.warning] && path[0].message.contains("/.well-known/appattribution/report-attribution/"))
        // Apple ignores subdomains: go.example.com's copies go to example.com.
        let sub = endpoint("https://go.example.com", hosts: ["go.example.com"])
        #expect(sub.map(\.level) == [.warning] && sub[0].message.contains("example.com"))
        #expect(endpoint("https://go.example.com", hosts: ["example.com"]) == [], "the registrable domain is the server's")
        #expect(AttributionPlistKeys.registrableDomain("links.shop.example.co.uk") == "example.co.uk")
        let skan = Self.check("<key>NSAdvertisingAttributionReportEndpoint</key><integer>1</integer>")
        #expect(skan.map(\.key) == ["NSAdvertisingAttributionReportEndpoint"])
    }

    @Test("windows and cooldowns outside Apple's ranges, or of the wrong type, are errors", arguments: [
        ("<key>click</key><integer>31</integer>", "click"), ("<key>click</key><integer>0</integer>", "click"),
        ("<key>view</key><integer>8</integer>", "view"), ("<key>view</key><string>3</string>", "view"),
        ("<key>view</key><real>2.5</real>", "view"),
    ])
    func windowRanges(_ entry: String, _ key: String) {
        let found = Self.errors("""
            <key>AdAttributionKitConfigurations</key><dict><key>AttributionWindows</key><dict>
                <key>global</key><dict><key>install</key><dict>\(entry)</dict></dict>
            </dict></dict>
            """)
        #expect(found == ["AdAttributionKitConfigurations.AttributionWindows.global.install.\(key)"])
    }

    @Test("cooldowns are 0–720 hours")
    func cooldowns() {
        func cooldown(_ hours: Int) -> [String] {
            Self.errors("""
                <key>AdAttributionKitConfigurations</key><dict><key>AttributionCooldown</key><dict>
                    <key>re-engagement-cooldown-hours</key><integer>\(hours)</integer>
                </dict></dict>
                """)
        }
        #expect(cooldown(0) == [] && cooldown(720) == [])
        #expect(cooldown(721) == ["AdAttributionKitConfigurations.AttributionCooldown.re-engagement-cooldown-hours"])
        #expect(cooldown(-1).count == 1)
    }

    @Test("ignoring both interaction types, or ignoring one in global, is an error; a window for the ignored type a warning")
    func ignoredInteractionTypes() {
        func install(_ network: String, _ entries: String) -> [AttributionPlistCheck.Finding] {
            Self.check("""
                <key>AdAttributionKitConfigurations</key><dict><key>AttributionWindows</key><dict>
                    <key>\(network)</key><dict><key>install</key><dict>\(entries)</dict></dict>
                </dict></dict>
                """)
        }
        let both = install("example.adattributionkit", "<key>ignoreInteractionType</key><array><string>click</string><string>view</string></array>")
        #expect(both.contains { $0.level == .error && $0.message.contains("ignores both interaction types") })
        #expect(install("example.adattributionkit", "<key>ignoreInteractionType</key><string>both</string>")
            .contains { $0.message.contains("ignores both") })
        #expect(install("global", "<key>ignoreInteractionType</key><string>view</string>")
            .contains { $0.level == .error && $0.message.contains("never in global") })
        #expect(install("example.adattributionkit", "<key>ignoreInteractionType</key><string>tap</string>").map(\.level) == [.error])
        let unused = install("example.adattributionkit", "<key>ignoreInteractionType</key><string>view</string><key>view</key><integer>2</integer>")
        #expect(unused.map(\.level) == [.warning] && unused[0].key.hasSuffix("install.view"))
    }

    @Test("keys Apple does not define are errors, with Apple's spelling when it is close; other frameworks' keys are left alone")
    func unknownKeys() {
        let found = Self.check("""
            <key>NSCameraUsageDescription</key><string>For scanning.</string>
            <key>AdNetworkIdentifier</key><array/>
            <key>AdAttributionKit</key><dict><key>AttributionCopyURL</key><string>https://example.com</string></dict>
            <key>AdAttributionKitConfigurations</key><dict>
                <key>AttributionWindow</key><dict/>
                <key>AttributionCooldown</key><dict><key>reengagement-cooldown-hours</key><integer>4</integer></dict>
            </dict>
            """)
        #expect(found.map(\.key) == ["AdAttributionKit.AttributionCopyURL", "AdAttributionKitConfigurations.AttributionCooldown.reengagement-cooldown-hours",
                                     "AdAttributionKitConfigurations.AttributionWindow", "AdNetworkIdentifier"])
        #expect(found[1].message.hasSuffix("did you mean re-engagement-cooldown-hours?"))
        #expect(found[2].message.hasSuffix("did you mean AttributionWindows?"))
        #expect(found[3].message.hasSuffix("did you mean AdNetworkIdentifiers?"))
    }

    @Test("the opt-ins are Booleans inside AdAttributionKit; not a property list is one error")
    func typesAndDocuments() {
        #expect(Self.errors("<key>AdAttributionKit</key><dict><key>EligibleForAdAttributionKitOverlappingConversions</key><string>YES</string></dict>")
            == ["AdAttributionKit.EligibleForAdAttributionKitOverlappingConversions"])
        #expect(Self.check("<key>EligibleForAdAttributionKitOverlappingConversions</key><true/>").map(\.level) == [.warning])
        let optIn = Self.check("<key>AdAttributionKit</key><dict><key>OptInForReengagementPostbackCopies</key><true/></dict>")
        #expect(optIn.map(\.message) == ["Apple defines no key OptInForReengagementPostbackCopies here; did you mean EligibleForAdAttributionKitReengagementPostbackCopies?"])
        #expect(AttributionPlistCheck.check(Array("not a plist".utf8), serverHosts: []).map(\.message) == ["not an XML property list"])
        #expect(AttributionPlistCheck.check(Array("<plist version=\"1.0\"><array/></plist>".utf8), serverHosts: []).count == 1)
    }

    @Test("what the server writes reads back the same and passes the check: every key, in lower case")
    func renderedFragmentPasses() throws {
        let settings = AdAttributionSettings(reengagementPostbackCopies: true, overlappingConversions: true, attributionWindows: [
            AttributionWindowSetting(adNetworkId: "example.adattributionkit", clickDays: 5, ignoreInteractionType: "view"),
            AttributionWindowSetting(viewDays: 3),
        ], installCooldownHours: 24, reengagementCooldownHours: 0)
        let entries = InfoPlistRendering.advertised(settings, endpointHost: "example.com")
            + InfoPlistRendering.publisher(adNetworkIds: ["Example123.SKAdNetwork", "example123.skadnetwork", "f2d92a.adattributionkit"])
        let document = PropertyList.dictionary(entries).xmlDocument
        let read = try #require(PropertyList.read(Array(document.utf8)))
        #expect(read[AttributionPlistKeys.adNetworkIdentifiers] == .array([.string("example123.skadnetwork"), .string("f2d92a.adattributionkit")]))
        #expect(read["AdAttributionKitConfigurations"]?["AttributionWindows"]?["global"]?["install"]?["view"] == .integer(3))
        #expect(read["AdAttributionKit"]?["EligibleForAdAttributionKitOverlappingConversions"] == .boolean(true))
        #expect(read["AdAttributionKitConfigurations"]?["AttributionCooldown"]?["re-engagement-cooldown-hours"] == .integer(0))
        #expect(AttributionPlistCheck.check(read, serverHosts: ["example.com"]) == [])
        #expect(document.contains("<key>global</key>") && document.range(of: "global")!.lowerBound < document.range(of: "example.adattributionkit")!.lowerBound,
                "global first")
    }
}
