import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
@testable import RunwayKit
@testable import RunwayServer
import Testing

@Suite("User-Agent classes")
struct ClientClassifierTests {
    @Test("platforms and OS versions", arguments: [
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X)", ClientClass.ios(osVersion: "17.4")),
        ("Mozilla/5.0 (iPad; CPU OS 16_0 like Mac OS X) AppleWebKit", ClientClass.ios(osVersion: "16.0")),
        ("Mozilla/5.0 (iPod touch; CPU iPhone OS 12 like Mac OS X)", ClientClass.ios(osVersion: "12")),
        ("Mozilla/5.0 (iPhone)", ClientClass.ios(osVersion: nil)),
        ("Mozilla/5.0 (Linux; Android 9; SM-G960F) Chrome/120", ClientClass.android(osVersion: "9")),
        ("Mozilla/5.0 (Linux; Android 14.1.2; Pixel)", ClientClass.android(osVersion: "14.1")),
        ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/124", ClientClass.desktop),
        ("", ClientClass.crawler("no-user-agent")),
        ("  ", ClientClass.crawler("no-user-agent")),
        ("curl/8.0.1", ClientClass.crawler("curl")),
        ("python-requests/2.31.0", ClientClass.crawler("python")),
        ("Go-http-client/2.0", ClientClass.crawler("go-http-client")),
        ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36", ClientClass.crawler("headless")),
        ("spbot/5.0.3 (+http://OpenLinkProfiler.org/bot )", ClientClass.crawler("bot")),
        ("Mozilla/5.0 (compatible; BufferLinkPreviewBot/1.0)", ClientClass.crawler("bot")),
        ("Feeder/2.0 (+https://feeder.co)", ClientClass.crawler("feed")),
        ("WPMUDEV Uptime Monitor", ClientClass.crawler("monitor")),
        ("Google Trust Services (DCV Check)", ClientClass.crawler("check")),
        ("Mozilla/5.0 (compatible; TrendsmapResolver/0.1)", ClientClass.crawler("resolver")),
        ("Mozilla/5.0 (compatible; Attracta)", ClientClass.crawler("compatible-not-msie")),
        ("Mozilla/5.0 (compatible; upday/1.0; +upday)", ClientClass.crawler("compatible-not-msie")),
        ("Mozilla/5.0 (Windows NT 10.0) ExampleFetcher see example.com", ClientClass.crawler("fetch")),
        ("Mozilla/5.0 (Windows NT 10.0) Acme/1.0 see acme.com", ClientClass.crawler("contact-in-user-agent")),
        ("AcmeApp/3.2 (build 7)", ClientClass.crawler("not-a-browser")),
        ("Mozilla/5.0 (Linux; Android 13; CUBOT KINGKONG 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
         ClientClass.android(osVersion: "13")),
        ("Mozilla/4.0 (compatible; MSIE 8.0; Windows NT 6.1; Trident/4.0)", ClientClass.desktop),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) [FBAN/FBIOS;FBAV/460.0]", ClientClass.ios(osVersion: "17.4", inApp: .facebook)),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Instagram 300.0.0", ClientClass.ios(osVersion: "17.0", inApp: .instagram)),
        ("Mozilla/5.0 (iPhone) LinkedInApp/9.29", ClientClass.ios(osVersion: nil, inApp: .linkedin)),
        ("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", ClientClass.crawler("googlebot")),
        ("FACEBOOKEXTERNALHIT/1.1", ClientClass.crawler("facebookexternalhit")),
    ])
    func classes(_ userAgent: String, _ expected: ClientClass) {
        #expect(ClientClass(userAgent: userAgent) == expected)
    }

    @Test("Safari 26 is iOS 26 though its OS says 18_6 or 18_7; a web view with the frozen value is unknown; older ones as they say",
          arguments: [
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1", "18.5"),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.6 Mobile/15E148 Safari/604.1", "18.6"),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 Mobile/15E148 Safari/604.1", "26.0"),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.1 Mobile/15E148 Safari/604.1", "26.1"),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_6_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0.1 Mobile/15E148 Safari/604.1", "26.0"),
        ("Mozilla/5.0 (iPad; CPU OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 Mobile/15E148 Safari/604.1", "26.0"),
        ("Mozilla/5.0 (iPad; CPU OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.7 Mobile/15E148 Safari/604.1", "17.7"),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148", nil),
        ("Mozilla/5.0 (iPad; CPU OS 18_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148", nil),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/138.0.7204.156 Mobile/15E148 Safari/604.1", nil),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148", "17.4"),
    ] as [(String, String?)])
    func frozenVersions(_ userAgent: String, _ expected: String?) {
        let client = ClientClass(userAgent: userAgent)
        #expect(client.platform == "ios")
        #expect(client.osVersion == expected)
    }

    @Test("an app's own browser is named by the token its web view adds; a web view naming no app is one; browsers are none",
          arguments: [
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Barcelona 289.0.0.77.109 (iPhone15,2; iOS 17_4; en_US; en)", InAppBrowser?.some(.threads)),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 356.0.0.23.109 (iPhone15,3; iOS 17_4)", .instagram),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/MessengerForiOS;FBAV/466.0]", .messenger),
        ("Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP1A; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0 Mobile Safari/537.36 [FB_IAB/Orca-Android;FBAV/450.0]", .messenger),
        ("Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP1A; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/460.0]", .facebook),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 musical_ly_35.1.0 BytedanceWebview/d8a21c6", .tiktok),
        ("Mozilla/5.0 (Linux; Android 13; Pixel 7 Build/TQ3A; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/116.0 Mobile Safari/537.36 trill_2023105030 AppName/trill", .tiktok),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [LinkedInApp]/9.29.7311", .linkedin),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/22D82 Twitter for iPhone/10.91", .x),
        ("Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP1A; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0 Mobile Safari/537.36 TwitterAndroid", .x),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Snapchat/12.80.0.45 (like Safari/8617.2.4.10.8, panda)", .snapchat),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.49(0x18003137) NetType/WIFI", .wechat),
        ("Mozilla/5.0 (Linux; Android 13; SM-G981U1 Build/TP1A; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/135.0 Mobile Safari/537.36 Line/15.4.2/IAB", .line),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [Pinterest/iOS]", .pinterest),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Telegram-iOS/10.9", .telegram),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Discord/229.0", .discord),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) GSA/363.0.743255906 Mobile/15E148 Safari/604.1", .google),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 KAKAOTALK 10.6.5", .kakaotalk),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148", .webview),
        ("Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP1A; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0 Mobile Safari/537.36", .webview),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 Mobile/15E148 Safari/604.1", nil),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/138.0.7204.156 Mobile/15E148 Safari/604.1", nil),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) EdgiOS/138.0 Version/18.0 Mobile/15E148 Safari/604.1", nil),
        ("Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36", nil),
        ("Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/135.0.0.0 Mobile Safari/537.36", nil),
        ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 356.0", nil),
    ] as [(String, InAppBrowser?)])
    func inAppBrowsers(_ userAgent: String, _ expected: InAppBrowser?) {
        #expect(ClientClass(userAgent: userAgent).inAppBrowser == expected)
    }

    @Test("Gmail's custom tab on Android is named by its Referer; the Referer names no app on iOS or over one the User-Agent named")
    func referredByGmail() {
        let chrome = ClientClass(userAgent: UserAgents.android)
        #expect(chrome.referred(by: "android-app://com.google.android.gm/") == .android(osVersion: "14", inApp: .gmail))
        #expect(chrome.referred(by: "https://mail.google.com/") == chrome && chrome.referred(by: nil) == chrome)
        let safari = ClientClass(userAgent: UserAgents.iPhone)
        #expect(safari.referred(by: "android-app://com.google.android.gm/") == safari)
        let tiktok = ClientClass(userAgent: InAppBrowserTests.tiktokAndroid)
        #expect(tiktok.referred(by: "android-app://com.google.android.gm/").inAppBrowser == .tiktok)
    }

    @Test("the rules' values are the apps recognised, then any and none, so every app can be named in a rule")
    func ruleValues() {
        #expect(LinkCondition.inAppBrowserValues == InAppBrowser.allCases.map(\.rawValue) + ["any", "none"])
        #expect(LinkCondition.inAppBrowserValues.count <= 32, "a rule's mask is 32 bits")
    }

    @Test("the one-pass search finds the first needle of the list, wherever it is in the text")
    func needleSet() {
        let set = NeedleSet(["twitterbot", "bot", "telegrambot", ""].map { Array($0.utf8) })
        #expect(set.firstMatch(in: Array("telegrambot (like twitterbot)".utf8)) == 0)
        #expect(set.firstMatch(in: Array("telegrambot".utf8)) == 1)
        #expect(set.firstMatch(in: Array("bo".utf8)) == nil)
        #expect(set.firstMatch(in: []) == nil)
        #expect(set.firstMatch(in: Array("twitterbo".utf8)) == nil)
    }
}
