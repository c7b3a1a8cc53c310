// Compiled on its own too, with ClientClassifier.swift, by scripts/fuzz.sh, where the kit is not a module.

/// The app whose own browser a person followed a link in, from the token its web view adds to the User-Agent. Links
/// tapped in these apps open in the app's web view, where universal links and App Links often do not open the app
/// they point at. Apps that open links in the system's browser view (SFSafariViewController, Chrome Custom Tabs) send
/// the browser's own User-Agent and are counted as that browser, except Gmail on Android, whose custom tab names it in
/// the Referer (`android-app://com.google.android.gm/`).
enum InAppBrowser: String, Sendable, CaseIterable {
    case threads, messenger, instagram, facebook, tiktok, linkedin, x, snapchat, wechat, line, pinterest, telegram, discord
    case google, kakaotalk, gmail
    /// A web view that names no app: Android's `; wv)` marker, or an iPhone or iPad web view without Safari's token.
    case webview

    /// The name people know the app by, for the "open in the app" page.
    var displayName: String {
        switch self {
        case .threads: return "Threads"
        case .messenger: return "Messenger"
        case .instagram: return "Instagram"
        case .facebook: return "Facebook"
        case .tiktok: return "TikTok"
        case .linkedin: return "LinkedIn"
        case .x: return "X"
        case .snapchat: return "Snapchat"
        case .wechat: return "WeChat"
        case .line: return "LINE"
        case .pinterest: return "Pinterest"
        case .telegram: return "Telegram"
        case .discord: return "Discord"
        case .google: return "the Google app"
        case .kakaotalk: return "KakaoTalk"
        case .gmail: return "Gmail"
        case .webview: return "this app"
        }
    }

    /// Each app's tokens (lower case), in the order they are tried: the first app with a token in the User-Agent wins,
    /// so Threads (built on Instagram's web view) and Messenger (which also says FBAN) come before the apps they share
    /// tokens with.
    static let tokens: [(InAppBrowser, [String])] = [
        (.threads, ["barcelona "]),
        (.messenger, ["fban/messengerforios", "messengerforios", "fb_iab/orca-android", "orca-android"]),
        (.instagram, ["instagram "]),
        (.facebook, ["fban/", "fbav/", "fb_iab/", "fbios", "fb4a"]),
        (.tiktok, ["musical_ly", "bytedancewebview", "trill_", "tiktok/"]),
        (.linkedin, ["linkedinapp"]),
        (.x, ["twitter for iphone", "twitter for ipad", "twitterandroid"]),
        (.snapchat, ["snapchat/"]),
        (.wechat, ["micromessenger/"]),
        (.line, [" line/"]),
        (.pinterest, ["[pinterest/"]),
        (.telegram, ["telegram-ios/", "telegram-android/"]),
        (.discord, ["discord/"]),
        (.google, ["gsa/"]),
        (.kakaotalk, ["kakaotalk"]),
    ]

    /// The apps of `tokens`, one per needle, in the needles' order.
    static let needleApps: [InAppBrowser] = tokens.flatMap { app, needles in needles.map { _ in app } }
    static let needles = NeedleSet(tokens.flatMap { $0.1 }.map { Array($0.utf8) })

    static let androidWebViewMarker = Array("; wv)".utf8)
    static let appleWebKitMarker = Array("applewebkit/".utf8)
    static let safariMarker = Array("safari/".utf8)

    /// Android apps whose custom tabs say who opened them in the Referer (Chrome sends `android-app://` and the package).
    static let androidReferrers: [(prefix: String, app: InAppBrowser)] = [("android-app://com.google.android.gm", .gmail)]

    /// The app of an Android custom tab's Referer, or nil.
    static func of(androidReferrer referrer: String) -> InAppBrowser? {
        androidReferrers.first { referrer.hasPrefix($0.prefix) }?.app
    }

    /// The in-app browser of a person's User-Agent (lower-case bytes) on iOS or Android, or nil for a browser.
    static func of(_ lower: [UInt8], android: Bool) -> InAppBrowser? {
        if let index = needles.firstMatch(in: lower) { return needleApps[index] }  // trap-safe: one app per needle, made from one list
        if android { return ClientClass.find(androidWebViewMarker, in: lower) != nil ? .webview : nil }
        // Safari, Chrome, Firefox and Edge on iOS all say Safari/; a WKWebView left as it is does not.
        let webKit = ClientClass.find(appleWebKitMarker, in: lower) != nil
        return webKit && ClientClass.find(safariMarker, in: lower) == nil ? .webview : nil
    }
}
