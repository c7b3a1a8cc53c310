import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
import RunwayHTTP
@testable import RunwayKit
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

/// docs/links.md's table of precedence, row by row and in combination, through the real redirect path: every case is
/// answered once asynchronously and once from the caches on the transport's thread, and both must agree.
@Suite("Link precedence")
struct LinkPrecedenceTests {
    enum Answer: Sendable, CustomStringConvertible {
        case redirect(String)
        /// A page with this status whose HTML contains the text.
        case page(Int, String)

        var description: String {
            switch self {
            case .redirect(let to): "302 → \(to)"
            case .page(let status, let text): "\(status) with \(text)"
            }
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        /// The table's row it checks, and what it combines.
        let name: String
        /// The link's fields beyond a path, a web page and an Android page.
        var fields = ""
        var disabled = false
        /// Clicks made before the request (to reach a click limit).
        var before = 0
        var userAgent = UserAgents.iPhone
        var method = "GET"
        var query = ""
        var headers: [(String, String)] = []
        let answer: Answer
        /// Whether the request is stored as a click, and its variant.
        var click = false
        var variant: String? = nil

        var testDescription: String { name }
    }

    static let slack = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"
    static let france = #""rules":[{"when":{"countries":["FR"]},"url":"https://example.com/fr"}]"#
    static let appStore = "https://apps.apple.com/app/id123456789"

    static let cases: [Case] = [
        Case(name: "disabled: the unknown link's 404, whatever its rules", fields: france, disabled: true, answer: .page(404, "Link not found")),
        Case(name: "before the start: its fallback, before a rule that holds", fields: france + #","startsAt":"2099-01-01T00:00:00Z","fallbacks":{"beforeStart":"https://example.com/soon"}"#,
             answer: .redirect("https://example.com/soon")),
        Case(name: "before the start without a fallback: the unknown link's 404", fields: #""startsAt":"2099-01-01T00:00:00Z""#, answer: .page(404, "Link not found")),
        Case(name: "before the start: previews get the fallback too", fields: #""startsAt":"2099-01-01T00:00:00Z","fallbacks":{"beforeStart":"https://example.com/soon"}"#,
             userAgent: slack, answer: .redirect("https://example.com/soon")),
        Case(name: "expired: its fallback, before a rule that holds", fields: france + #","expiresAt":"2020-01-01T00:00:00Z","fallbacks":{"expired":"https://example.com/over"}"#,
             answer: .redirect("https://example.com/over")),
        Case(name: "expired without a fallback: 410, also for HEAD", fields: #""expiresAt":"2020-01-01T00:00:00Z""#, method: "HEAD", answer: .page(410, "")),
        Case(name: "a preview fetcher: no platform rule holds for it, so the preview of the link's variant drawn; never a click",
             fields: #""rules":[{"when":{"platforms":["ios"]},"url":"https://example.com/ios"}],"variants":[{"name":"b","weight":1,"preview":{"title":"Variant B"}}]"#,
             userAgent: slack, answer: .page(200, #"<meta property="og:title" content="Variant B">"#)),
        Case(name: "a preview fetcher: a country rule that holds gives its url as the preview's link", fields: france, userAgent: slack,
             answer: .page(200, #"href="https://example.com/fr">Open"#)),
        Case(name: "a rule that holds: its url on iOS", fields: france, answer: .redirect("https://example.com/fr"), click: true),
        Case(name: "a rule that holds: its url on Android and desktops too", fields: france, userAgent: UserAgents.android,
             answer: .redirect("https://example.com/fr"), click: true),
        Case(name: "rules in order: the first that holds wins",
             fields: #""rules":[{"when":{"platforms":["android"]},"url":"https://example.com/a"},{"when":{"countries":["FR"]},"url":"https://example.com/fr"}]"#,
             userAgent: UserAgents.android, answer: .redirect("https://example.com/a"), click: true),
        Case(name: "no rule holds: the platform's own destination", fields: #""rules":[{"when":{"countries":["US"]},"url":"https://example.com/us"}]"#,
             answer: .redirect(appStore), click: true),
        Case(name: "device and language rules", fields: #""rules":[{"when":{"devices":["desktop"],"languages":["fr"]},"url":"https://example.com/fr-desktop"}]"#,
             userAgent: UserAgents.desktop, headers: [("Accept-Language", "fr-CA,en;q=0.5")], answer: .redirect("https://example.com/fr-desktop"), click: true),
        Case(name: "a rule's variants go before the link's, each recorded",
             fields: #""rules":[{"when":{"countries":["FR"]},"url":"https://example.com/fr","variants":[{"name":"fr-b","weight":1,"url":"https://example.com/fr-b"}]}],"variants":[{"name":"x","weight":1,"url":"https://example.com/x"}]"#,
             answer: .redirect("https://example.com/fr-b"), click: true, variant: "fr-b"),
        Case(name: "no rule holds: the link's variants", fields: #""variants":[{"name":"x","weight":1,"url":"https://example.com/x"}]"#,
             userAgent: UserAgents.desktop, answer: .redirect("https://example.com/x"), click: true, variant: "x"),
        Case(name: "the interstitial leads where the rule chose: targeting is never overridden", fields: france + #","interstitial":true"#,
             answer: .page(200, #"id="get" href="https://example.com/fr""#), click: true),
        Case(name: "the interstitial without a rule leads to the App Store", fields: #""interstitial":true"#,
             answer: .page(200, #"id="get" href="\#(appStore)""#), click: true),
        Case(name: "the interstitial shows the variant's preview", fields: #""interstitial":true,"variants":[{"name":"v","weight":1,"preview":{"title":"Variant V"}}]"#,
             answer: .page(200, "<h1>Variant V</h1>"), click: true, variant: "v"),
        Case(name: "the interstitial is iOS only: Android follows the rule", fields: france + #","interstitial":true"#, userAgent: UserAgents.android,
             answer: .redirect("https://example.com/fr"), click: true),
        Case(name: "in an in-app browser, a link with the page: the page with the click, before the rule's redirect",
             fields: france + #","inAppBrowserPage":true"#, userAgent: UserAgents.facebookInApp,
             answer: .page(200, "You are in Facebook\u{2019}s own browser"), click: true),
        Case(name: "the in-app browser's page comes before the interstitial", fields: #""inAppBrowserPage":true,"interstitial":true"#,
             userAgent: UserAgents.facebookInApp, answer: .page(200, #"id="copy""#), click: true),
        Case(name: "the in-app browser's page is for in-app browsers only: Safari follows the rule", fields: france + #","inAppBrowserPage":true"#,
             answer: .redirect("https://example.com/fr"), click: true),
        Case(name: "a prefetch in an in-app browser: the page, with no click", fields: #""inAppBrowserPage":true"#, userAgent: UserAgents.facebookInApp,
             headers: [("Sec-Purpose", "prefetch")], answer: .page(200, #"data-link="http://localhost/p""#)),
        Case(name: "over the click limit, in an in-app browser: the fallback, not the page",
             fields: #""inAppBrowserPage":true,"clickLimit":1,"fallbacks":{"overLimit":"https://example.com/full"}"#, before: 1,
             userAgent: UserAgents.facebookInApp, answer: .redirect("https://example.com/full")),
        Case(name: "passQuery: the click's query goes to the rule's url, without the QR marker", fields: france + #","passQuery":true"#, query: "?x=1&qr=1",
             answer: .redirect("https://example.com/fr?x=1"), click: true),
        Case(name: "passQuery never reaches the App Store link made from its id", fields: #""passQuery":true"#, query: "?x=1", answer: .redirect(appStore), click: true),
        Case(name: "UTM go to the rule's web page", fields: france + #","utm":{"source":"news"}"#, answer: .redirect("https://example.com/fr?utm_source=news"), click: true),
        Case(name: "UTM never go to the App Store", fields: #""utm":{"source":"news"}"#, answer: .redirect(appStore), click: true),
        Case(name: "with passQuery the click's own utm_source replaces the link's", fields: #""passQuery":true,"utm":{"source":"news","medium":"mail"}"#,
             userAgent: UserAgents.desktop, query: "?utm_source=friend", answer: .redirect("https://example.com/web?utm_medium=mail&utm_source=friend"), click: true),
        Case(name: "HEAD: the rule's answer, no click", fields: france, method: "HEAD", answer: .redirect("https://example.com/fr")),
        Case(name: "a prefetch of an interstitial link: the page, with no click id", fields: #""interstitial":true"#, headers: [("Sec-Purpose", "prefetch")],
             answer: .page(200, #"data-click="""#)),
        Case(name: "over the click limit: its fallback, before a rule that holds",
             fields: france + #","clickLimit":1,"fallbacks":{"overLimit":"https://example.com/full"}"#, before: 1, answer: .redirect("https://example.com/full")),
        Case(name: "over the click limit without a fallback: 410", fields: #""clickLimit":1"#, before: 1, answer: .page(410, "no longer available")),
        Case(name: "over the click limit: HEAD gets the fallback too", fields: #""clickLimit":1,"fallbacks":{"overLimit":"https://example.com/full"}"#,
             before: 1, method: "HEAD", answer: .redirect("https://example.com/full")),
        Case(name: "over the click limit: previews are still served", fields: #""clickLimit":1,"preview":{"title":"Sold out"}"#, before: 1,
             userAgent: slack, answer: .page(200, #"content="Sold out""#)),
        Case(name: "under the click limit: the rule's url", fields: france + #","clickLimit":1000"#, before: 1, answer: .redirect("https://example.com/fr"), click: true),
    ]

    func check(_ response: HTTPResponse, _ expected: Answer, _ path: String) {
        switch expected {
        case .redirect(let target):
            #expect(response.status == 302 && response.headers["Location"] == target, "\(path): \(response.status) \(response.headers["Location"] ?? "")")
        case .page(let status, let text):
            #expect(response.status == status && (text.isEmpty || response.bodyText.contains(text)), "\(path): \(response.status) \(response.bodyText.prefix(300))")
        }
    }

    @Test("each row of the table, alone and combined, answers the same on both paths", arguments: cases)
    func row(_ row: Case) async throws {
        // The caches' clock stands still: under load a write took longer than their five seconds, and the transport's
        // path, which answers only from them, then had nothing to answer from however often the other path filled them.
        let (server, _) = try await LinkRoutingTests.server(monotonic: ImmediateTests.stoppedClock())
        defer { Task { await server.stop() } }
        let ws = server.defaultWorkspace.id
        let extra = row.fields.isEmpty ? "" : "," + row.fields
        let link = try await server.createLink(#"{"workspaceId":"\#(ws)","path":"p","destinations":{"web":"https://example.com/web","android":{"url":"https://example.com/android"}}\#(extra)}"#)
        if row.disabled { _ = try await server.admin.post("/v1/links/\(link.id)/disable", json: "{}").decoded(Link.self) }
        // A click on another link warms this process's address key and webhook subscriptions, as traffic would.
        _ = try await server.createLink(#"{"workspaceId":"\#(ws)","path":"warm","destinations":{"web":"https://example.com/warm"}}"#)
        _ = await server.follow("/warm", userAgent: UserAgents.desktop)
        for _ in 0..<row.before { _ = await server.follow("/p", userAgent: UserAgents.desktop) }
        let before = try await server.clicks().count

        var headers = [("Host", "localhost"), ("User-Agent", row.userAgent)] + row.headers
        headers.append(("X-Request-Id", "precedence"))
        let request = HTTPRequest(method: row.method, path: "/p", query: Self.query(row.query), headers: HTTPHeaders(headers), remoteAddress: "203.0.113.7")
        var requests = 1
        check(await server.application.respond(to: request), row.answer, "asynchronous")
        // The transport's thread gets only the headers `HotPath` names, of all a browser sends.
        let hot = HotPath.request(method: row.method, path: "/p", query: Self.query(row.query), headers: headers + ImmediateTests.browserHeaders,
                                  remoteAddress: "203.0.113.7")
        let immediate = server.application.respondImmediately(to: hot)
        let answer = try #require(immediate, "the caches are warm: the redirect answers on the transport's thread")
        check(await ImmediateTests.released(answer), row.answer, "immediate")
        #expect(HotPath.unsentHeaderReads.take().isEmpty, "the redirect read a header the transport does not hand over")
        requests += 1

        let clicks = try await server.clicks()
        #expect(clicks.count - before == (row.click ? requests : 0), "clicks stored")
        if row.click, let last = clicks.last {
            #expect(try last.optionalString("variant") == row.variant)
            #expect(try last.optionalString("country") == "FR")
            #expect(try last.bool("qr") == row.query.contains("qr=1"))
        }
    }

    static func query(_ text: String) -> [(String, String)] {
        text.dropFirst().split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }
    }
}
