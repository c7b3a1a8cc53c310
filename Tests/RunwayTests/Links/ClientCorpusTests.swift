import Foundation
@testable import RunwayCapabilities
import RunwayTestKit
import Testing

/// The classifier against public corpora nobody here wrote (`scripts/user-agent-corpora.sh` fetches them from PyPI
/// into `.build/user-agents/`; `make test` does it first): crawlers must be recognised, people never.
@Suite("User-Agent corpora")
struct ClientCorpusTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/user-agents")
    static let present = FileManager.default.fileExists(atPath: folder.appendingPathComponent("crawler-user-agents.json").path)
        && FileManager.default.fileExists(atPath: folder.appendingPathComponent("browsers.jsonl").path)

    /// In-app browsers of the apps links are most shared in, and browsers the corpus is short of (Safari 26 on
    /// iPhone, iPad and Mac; iOS's other browsers; an Android phone whose maker's name holds "bot").
    static let people = [
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/460.0.0.35.109;FBBV/593345512;FBDV/iPhone15,2;FBMD/iPhone;FBSN/iOS;FBSV/17.4;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5]",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 356.0.0.23.109 (iPhone15,3; iOS 18_1; en_US; en; scale=3.00; 1290x2796; 654932120; IABMV/1)",
        "Mozilla/5.0 (Linux; Android 14; SM-S918B Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0.6367.82 Mobile Safari/537.36 Instagram 330.0.0.40.92 Android (34/14; 480dpi; 1080x2340; samsung; SM-S918B; dm3q; qcom; en_US; 596227371)",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/MessengerForiOS;FBAV/466.0.0.44.109;FBBV/612345678;FBDV/iPhone14,5;FBMD/iPhone;FBSN/iOS;FBSV/17.5;FBSS/3;FBCR/;FBID/phone;FBLC/en_US;FBOP/5]",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 musical_ly_35.1.0 JsSdk/2.0 NetType/WIFI Channel/App Store ByteLocale/en Region/US isDarkMode/0 WKWebView/1 RevealType/Dialog BytedanceWebview/d8a21c6 FalconTag/",
        "Mozilla/5.0 (Linux; Android 13; Pixel 7 Build/TQ3A.230805.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/116.0.0.0 Mobile Safari/537.36 trill_2023105030 JsSdk/1.0 NetType/WIFI Channel/googleplay AppName/trill app_version/31.5.3 ByteLocale/en ByteFullLocale/en Region/US Spark/1.4.0.3-bugfix AppVersion/31.5.3 BytedanceWebview/d8a21c6",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [LinkedInApp]/9.29.7311",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_7_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/21H216 Twitter for iPhone/10.90",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Snapchat/12.80.0.45 (like Safari/8617.2.4.10.8, panda)",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.49(0x18003137) NetType/WIFI Language/zh_CN",
        "Mozilla/5.0 (Linux; Android 12; M2101K6G Build/SKQ1.210908.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/107.0.5304.141 Mobile Safari/537.36 XWEB/5075 MMWEBSDK/20230504 MMWEBID/1234 MicroMessenger/8.0.37.2380(0x2800253D) WeChat/arm64 Weixin NetType/WIFI Language/zh_CN ABI/arm64",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Safari Line/14.4.0",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [Pinterest/iOS]",
        "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP1A.240405.002; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/123.0.6312.118 Mobile Safari/537.36 [Pinterest/Android]",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Discord/229.0",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) GSA/313.0.623435279 Mobile/15E148 Safari/604.1",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Telegram-iOS/10.9",
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36 Telegram-Android/10.12.0 (Google Pixel 8; Android 14; SDK 34; HIGH)",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 Mobile/15E148 Safari/604.1",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
        "Mozilla/5.0 (iPad; CPU OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 Mobile/15E148 Safari/604.1",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 Safari/605.1.15",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/138.0.7204.156 Mobile/15E148 Safari/604.1",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/141.0 Mobile/15E148 Safari/605.1.15",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) EdgiOS/138.0.3351.77 Version/18.0 Mobile/15E148 Safari/604.1",
        "Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36",
        "Mozilla/5.0 (Linux; Android 13; CUBOT KINGKONG 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
        "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
    ]

    static func crawlers() throws -> [String] {
        let data = try Data(contentsOf: folder.appendingPathComponent("crawler-user-agents.json"))
        let entries = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        return entries.flatMap { $0["instances"] as? [String] ?? [] }
    }

    /// The corpus's browsers by the name its parser gave them, for those on iOS and Android.
    static func mobileBrowsers() throws -> [(agent: String, browser: String)] {
        let text = try String(contentsOf: folder.appendingPathComponent("browsers.jsonl"), encoding: .utf8)
        return try text.split(separator: "\n").compactMap { line in
            let row = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            guard let agent = row?["useragent"] as? String, let browser = row?["browser"] as? String,
                  ["iOS", "Android"].contains(row?["os"] as? String) else { return nil }
            return (agent, browser)
        }
    }

    static func browsers() throws -> [String] {
        let text = try String(contentsOf: folder.appendingPathComponent("browsers.jsonl"), encoding: .utf8)
        let agents = try text.split(separator: "\n").compactMap { line -> String? in
            let row = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return row?["useragent"] as? String
        }
        return Array(Set(agents)).sorted()
    }

    @Test("at least 98% of a public corpus of crawlers are machines, and no real browser or in-app browser is",
          .enabled(if: present, "the corpora are absent: run scripts/user-agent-corpora.sh (make test does)"))
    func corpora() throws {
        let crawlers = try Self.crawlers()
        let browsers = try Self.browsers()
        #expect(crawlers.count > 2_000 && browsers.count > 800, "the corpora are not what the script fetches")
        let missed = crawlers.filter { if case .crawler = ClientClass(userAgent: $0) { false } else { true } }
        let recognised = Double(crawlers.count - missed.count) / Double(crawlers.count)
        let taken = (browsers + Self.people).filter { if case .crawler = ClientClass(userAgent: $0) { true } else { false } }
        print("User-Agent corpora: \(crawlers.count - missed.count) of \(crawlers.count) crawlers recognised "
              + "(\(String(format: "%.1f", recognised * 100))%), \(taken.count) of \(browsers.count + Self.people.count) people taken for machines")
        #expect(recognised >= 0.98, "missed: \(missed.prefix(20))")
        #expect(taken.isEmpty, "people taken for machines: \(taken)")
    }

    /// The corpus's parser (ua-parser) names the in-app browsers it knows; the rest of its phones' browsers are none.
    static let corpusInAppNames: [String: InAppBrowser] = [
        "Facebook": .facebook, "Instagram": .instagram, "Twitter": .x, "LINE": .line, "Google": .google,
        "Mobile Safari UI/WKWebView": .webview, "Chrome Mobile WebView": .webview,
    ]

    @Test("the corpus's in-app browsers are named as its parser names them, and none of its phones' browsers is taken for one",
          .enabled(if: present, "the corpora are absent: run scripts/user-agent-corpora.sh (make test does)"))
    func inAppBrowsers() throws {
        let rows = try Self.mobileBrowsers()
        let inApp = rows.filter { Self.corpusInAppNames[$0.browser] != nil }
        #expect(inApp.count >= 200 && rows.count - inApp.count > 2_000, "the corpus is not what the script fetches")
        let misnamed = inApp.filter { ClientClass(userAgent: $0.agent).inAppBrowser != Self.corpusInAppNames[$0.browser] }
        let taken = rows.filter { Self.corpusInAppNames[$0.browser] == nil && ClientClass(userAgent: $0.agent).inAppBrowser != nil }
        print("In-app browsers: \(inApp.count - misnamed.count) of \(inApp.count) named as the corpus names them, "
              + "\(taken.count) of \(rows.count - inApp.count) browsers taken for one")
        #expect(misnamed.isEmpty, "misnamed: \(misnamed.prefix(10).map { "\($0.browser): \($0.agent)" })")
        #expect(taken.isEmpty, "browsers taken for in-app ones: \(taken.prefix(10).map { "\($0.browser): \($0.agent)" })")
    }
}
