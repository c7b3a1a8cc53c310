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
        ("", ClientClass.desktop),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) [FBAN/FBIOS;FBAV/460.0]", ClientClass.ios(osVersion: "17.4")),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Instagram 300.0.0", ClientClass.ios(osVersion: "17.0")),
        ("Mozilla/5.0 (iPhone) LinkedInApp/9.29", ClientClass.ios(osVersion: nil)),
        ("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", ClientClass.crawler("googlebot")),
        ("FACEBOOKEXTERNALHIT/1.1", ClientClass.crawler("facebookexternalhit")),
    ])
    func classes(_ userAgent: String, _ expected: ClientClass) {
        #expect(ClientClass(userAgent: userAgent) == expected)
    }
}
