import Foundation
import LinkRunwayAPI
@testable import RunwayImport
import Testing

/// Small export files in the shapes the services document, written for these tests.
enum SampleExports {
    /// Our own columns: a full row, a row with a bad flag, a row whose metadata is not JSON.
    static let linkrunway = """
        path,app_path,web,ios_url,android_url,campaign,channel,feature,title,description,image,expires,interstitial,metadata,utm_source
        summer,/promo/summer,https://example.com/summer,,https://play.google.com/store/apps/details?id=com.example,summer,email,promo,"Summer, at last","Big ""summer"" sale",https://example.com/s.png,2026-12-31,on,"{""sku"":42}",newsletter
        winter,,https://example.com/winter,,,,,,,,,,maybe,,
        spring,,https://example.com/spring,,,,,,,,,,,not json,

        """

    /// The Dynamic Links export: one file per domain, its columns as Google's guide lists them.
    static let firebase = """
        Short link,Deep link (link),Android package name (apn),Android fallback link (afl),Android minimum package version code (amv),iOS bundle ID (ibi),iOS fallback link (ifl),iOS custom scheme (ius),iOS iPad fallback link (ipfl),iOS iPad bundle ID (ipbi),iOS app store ID (isi),iOS minimum version (imv),Enable forced redirect? (efr),Desktop fallback link (ofl),Social title (st),Social description (sd),Social image link (si),UTM source (utm_source),UTM medium (utm_medium),UTM campaign (utm_campaign),UTM term (utm_term),UTM content (utm_content),iTunes Connect at,iTunes Connect ct,iTunes Connect mt,iTunes Connect pt,Archived?,Link name,Creation timestamp
        https://example.page.link/summer,https://example.com/promo/summer?ref=fdl,com.example.android,,,com.example.app,,,,,1234567890,,,https://example.com/summer,Summer sale,Everything half price,https://example.com/summer.png,newsletter,email,summer24,,,,,,,false,Summer campaign,2024-05-01T10:00:00Z
        https://example.page.link/app,https://example.com/open,,https://example.com/android,21,com.example.app,https://example.com/ios,examplescheme,,,,,1,,,,,,,,,,,,,,no,,2024-05-02T10:00:00Z
        https://example.page.link/old,https://example.com/old,,,,,,,,,,,,,,,,,,,,,,,,,true,Old one,2023-01-01T00:00:00Z

        """

    /// A Branch links export: columns named by Branch's link keys, and one `data` object as Branch's API answers it.
    static let branch = """
        url,alias,~campaign,~channel,~feature,~stage,~tags,$desktop_url,$ios_url,$android_url,$fallback_url,$og_title,$og_description,$og_image_url,$deeplink_path,$canonical_identifier,$marketing_title,$ipad_url,~creation_source,product_id,data
        https://example.app.link/summer,summer,summer24,email,promo,launch,"a,b",https://example.com/summer,,,,Summer sale,Half price,https://example.com/summer.png,promo/summer,,Summer link,,3,sku42,
        https://example.app.link/AbC123xyz,,,,,,,,,,https://example.com/everywhere,,,,,content/123,,https://example.com/ipad,2,,"{""color"":""red"",""$og_title"":""From data"",""count"":3}"
        ,,,,,,,,,,,,,,,,,,,,

        """
}

@Suite("Import files")
struct ImportFileTests {
    @Test("CSV: quotes, doubled quotes, commas and line ends inside quotes, CRLF, a byte-order mark, blank lines, the line each record starts on")
    func csv() throws {
        let table = try CSVTable("\u{FEFF}a,b\r\n1,\"x, \"\"y\"\"\nz\"\r\n\r\n2,\n")
        #expect(table.header == ["a", "b"])
        #expect(table.records.map(\.cells) == [["1", "x, \"y\"\nz"], ["2", ""]])
        #expect(table.records.map(\.line) == [2, 5])
        #expect(throws: ImportFileError.self) { try CSVTable("a\n\"open") }
        #expect(throws: ImportFileError.self) { try CSVTable("") }
        #expect(throws: ImportFileError.self) { try table.fields(CSVTable.Record(line: 9, cells: ["1", "2", "3"])) }
    }

    @Test("our columns: every column reaches its field, utm_* to the link's UTM parameters, bad cells are the row's problem, unknown columns the file's")
    func linkrunwayColumns() throws {
        let rows = try ImportFormat.linkrunway.rows(SampleExports.linkrunway)
        #expect(rows.map(\.line) == [2, 3, 4])
        let summer = try #require(rows[0].link)
        #expect(summer.path == "summer" && summer.appPath == "/promo/summer" && summer.campaign == "summer" && summer.channel == "email")
        #expect(summer.destinations?.web == "https://example.com/summer" && summer.destinations?.ios == nil)
        #expect(summer.destinations?.android?.url == "https://play.google.com/store/apps/details?id=com.example")
        #expect(summer.preview == LinkPreview(title: "Summer, at last", description: "Big \"summer\" sale", imageUrl: "https://example.com/s.png"))
        #expect(summer.expiresAt == "2027-01-01T00:00:00Z" && summer.interstitial == true)
        #expect(summer.metadata == ["sku": .number(42)])
        #expect(summer.utm == LinkUTM(source: "newsletter"))
        #expect(rows[0].notes.isEmpty, "UTM parameters have fields of their own now")
        #expect(rows[1].link == nil && rows[1].problem?.contains("interstitial") == true)
        #expect(rows[2].problem?.contains("metadata") == true)
        #expect(throws: ImportFileError.self) { try ImportFormat.linkrunway.rows("path,webb\nx,https://example.com\n") }
        #expect(throws: ImportFileError.self) { try ImportFormat.linkrunway.rows("web\nhttps://example.com\n") }
    }

    @Test("Firebase: the short link's path, the deep link as in-app path and desktop page, stores, preview, efr, UTM; the rest reported; archived skipped")
    func firebase() throws {
        let rows = try ImportFormat.firebase.rows(SampleExports.firebase)
        let summer = try #require(rows[0].link)
        #expect(summer.path == "summer" && rows[0].sourceURL == "https://example.page.link/summer")
        #expect(summer.appPath == "/promo/summer?ref=fdl")
        #expect(summer.destinations?.web == "https://example.com/summer")
        #expect(summer.destinations?.ios == LinkDestinations.IOS(appStoreId: "1234567890", url: nil))
        #expect(summer.destinations?.android?.url == "https://play.google.com/store/apps/details?id=com.example.android")
        #expect(summer.preview?.title == "Summer sale" && summer.preview?.imageUrl == "https://example.com/summer.png")
        #expect(summer.interstitial == true, "without efr=1 Dynamic Links showed a page first")
        #expect(summer.campaign == "summer24")
        #expect(summer.metadata?["link"] == .string("https://example.com/promo/summer?ref=fdl"))
        #expect(summer.metadata?["utm"] == nil)
        #expect(summer.utm == LinkUTM(source: "newsletter", medium: "email", campaign: "summer24"))
        #expect(rows[0].notes == ["name=Summer campaign: no field for a link's name"])

        let app = try #require(rows[1].link)
        #expect(app.destinations?.web == "https://example.com/open", "no ofl: desktops opened the deep link")
        #expect(app.destinations?.ios?.url == "https://example.com/ios" && app.destinations?.android?.url == "https://example.com/android")
        #expect(app.interstitial == false)
        #expect(rows[1].notes.map { String($0.prefix(while: { $0 != "=" })) } == ["amv", "ius"])
        #expect(rows[2].link == nil && rows[2].skipped == "archived in Dynamic Links")
    }

    @Test("Branch: url or alias, tags with or without ~, redirects and $fallback_url, preview, deep link path, custom data to metadata; the rest reported")
    func branch() throws {
        let rows = try ImportFormat.branch.rows(SampleExports.branch)
        let summer = try #require(rows[0].link)
        #expect(summer.path == "summer" && summer.campaign == "summer24" && summer.channel == "email" && summer.feature == "promo")
        #expect(summer.destinations == LinkDestinations(web: "https://example.com/summer"))
        #expect(summer.preview == LinkPreview(title: "Summer sale", description: "Half price", imageUrl: "https://example.com/summer.png"))
        #expect(summer.appPath == "/promo/summer")
        #expect(summer.metadata == ["stage": .string("launch"), "tags": .string("a,b"), "product_id": .string("sku42")])
        #expect(rows[0].notes.contains("$marketing_title=Summer link: no field for a link's name"))
        #expect(!rows[0].notes.contains { $0.hasPrefix("~creation_source") }, "Branch's bookkeeping is not a value of the link")

        let generated = try #require(rows[1].link)
        #expect(generated.path == "AbC123xyz" && generated.appPath == "/content/123")
        #expect(generated.destinations == LinkDestinations(ios: .init(url: "https://example.com/everywhere"),
                                                           android: .init(url: "https://example.com/everywhere"), web: "https://example.com/everywhere"))
        #expect(generated.preview?.title == "From data", "keys of the data object count as columns")
        #expect(generated.metadata == ["color": .string("red"), "count": .string("3")])
        #expect(rows[1].notes == ["$ipad_url=https://example.com/ipad: no iPad destination: iPads follow the iOS one"])
        #expect(rows[2].problem == "no url or alias")
    }
}
