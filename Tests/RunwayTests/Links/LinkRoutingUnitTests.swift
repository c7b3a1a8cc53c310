import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
import RunwayGeo
import RunwayTestKit
import Testing

/// The compiled rules on their own: each condition, the order, the variants' draw and the destinations they give.
@Suite("Link routing, compiled")
struct LinkRoutingUnitTests {
    /// A generator that answers a fixed sequence, so a variant's draw is known.
    struct FixedDraws: RandomNumberGenerator {
        var values: [UInt64]
        mutating func next() -> UInt64 { values.isEmpty ? 0 : values.removeFirst() }
    }

    static func facts(_ userAgent: String?, language: String? = nil, address: String? = nil, countries: CountryDatabase? = nil,
                      now: Int64 = 1_800_000_000_000) -> RequestFacts {
        RequestFacts(client: ClientClass(userAgent: userAgent), userAgent: userAgent, acceptLanguage: language, address: address,
                     countries: countries, now: now)
    }

    static func rule(_ when: LinkCondition) -> CompiledRule { CompiledRule(LinkRule(when: when, url: "https://example.com/r"), utm: []) }

    @Test("platforms, device classes and OS versions come from the User-Agent; a range needs a version to match")
    func userAgentConditions() {
        var iphone = Self.facts(UserAgents.iPhone)
        var android = Self.facts(UserAgents.android)
        var desktop = Self.facts(UserAgents.desktop)
        var ipad = Self.facts("Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148")
        var androidTablet = Self.facts("Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36")
        var tv = Self.facts("Mozilla/5.0 (Linux; Android 12; BRAVIA 4K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/110.0 Safari/537.36 SmartTV")
        var nothing = Self.facts(nil)
        #expect(Self.rule(LinkCondition(platforms: ["ios"])).holds(&iphone) && Self.rule(LinkCondition(platforms: ["ios"])).holds(&ipad))
        #expect(!Self.rule(LinkCondition(platforms: ["ios"])).holds(&android))
        #expect(Self.rule(LinkCondition(platforms: ["android", "desktop"])).holds(&desktop))
        #expect(!Self.rule(LinkCondition(platforms: ["desktop"])).holds(&nothing), "no User-Agent is a machine, never a desktop")
        #expect(nothing.client == .crawler("no-user-agent"))
        #expect([iphone.device, ipad.device, android.device, androidTablet.device, desktop.device, tv.device]
                == [.phone, .tablet, .phone, .tablet, .desktop, .tv])
        #expect(Self.rule(LinkCondition(devices: ["tablet"])).holds(&ipad) && !Self.rule(LinkCondition(devices: ["tablet"])).holds(&iphone))

        // iPhone OS 17.4; Android 14 (no minor).
        let seventeen = Self.rule(LinkCondition(osVersion: LinkVersionRange(min: "17", max: "17")))
        #expect(seventeen.holds(&iphone), "a major alone takes in all its minors")
        #expect(!Self.rule(LinkCondition(osVersion: LinkVersionRange(min: "17.5"))).holds(&iphone))
        #expect(Self.rule(LinkCondition(osVersion: LinkVersionRange(max: "17.4"))).holds(&iphone))
        #expect(!Self.rule(LinkCondition(osVersion: LinkVersionRange(max: "17.3"))).holds(&iphone))
        #expect(Self.rule(LinkCondition(osVersion: LinkVersionRange(min: "14.0", max: "14"))).holds(&android))
        #expect(!Self.rule(LinkCondition(osVersion: LinkVersionRange(min: "1"))).holds(&desktop), "no version named: no OS range holds")
    }

    @Test("languages are matched against the first of Accept-Language: a primary tag takes in its regions, a region only itself")
    func languages() {
        func holds(_ tags: [String], _ header: String?) -> Bool {
            var facts = Self.facts(UserAgents.iPhone, language: header)
            return Self.rule(LinkCondition(languages: tags)).holds(&facts)
        }
        #expect(holds(["en"], "en-GB,en;q=0.9"))
        #expect(holds(["EN-gb"], " en-GB;q=1, fr"))
        #expect(!holds(["en-US"], "en-GB,en-US;q=0.8"), "only the first language counts")
        #expect(!holds(["en"], "eng"), "a tag is matched whole, not as a prefix of another")
        #expect(!holds(["en-GB"], "en"))
        #expect(holds(["fr", "pt-BR"], "pt-BR"))
        #expect(!holds(["en"], "*") && !holds(["en"], nil) && !holds(["en"], ""))
    }

    @Test("countries come from the database and never match without one; the time window is [from, until)")
    func countriesAndTime() throws {
        let folder = TemporaryDirectory()
        let countries = try CountryDatabase(path: try CountryDatabaseTests.database(in: folder))
        let france = Self.rule(LinkCondition(countries: ["FR", "BE"]))
        var inFrance = Self.facts(UserAgents.iPhone, address: "203.0.113.7", countries: countries)
        var inCanada = Self.facts(UserAgents.iPhone, address: "198.51.100.200", countries: countries)
        var noDatabase = Self.facts(UserAgents.iPhone, address: "203.0.113.7")
        #expect(france.holds(&inFrance) && !france.holds(&inCanada) && !france.holds(&noDatabase))
        #expect(inFrance.country == "FR" && noDatabase.country == nil)

        let window = Self.rule(LinkCondition(from: "2027-01-01T00:00:00Z", until: "2027-01-02T00:00:00Z"))
        let start: Int64 = 1_798_761_600_000
        for (now, expected) in [(start - 1, false), (start, true), (start + 86_399_999, true), (start + 86_400_000, false)] {
            var facts = Self.facts(UserAgents.iPhone, now: now)
            #expect(window.holds(&facts) == expected, "at \(now)")
        }
    }

    @Test("the first rule that holds wins, with its variant by weight; no rule: the link's own variants; a weight of 0 is never drawn")
    func orderAndVariants() throws {
        var link = LinkRecord(id: "lnk_a", workspaceId: "ws_a", appId: nil, kind: "link", domain: "localhost", path: "p", createdAt: 0)
        link.webURL = "https://example.com/web"
        link.rules = [
            LinkRule(when: LinkCondition(platforms: ["android"]), url: "https://example.com/android-rule"),
            LinkRule(when: LinkCondition(platforms: ["ios"]), variants: [LinkVariant(name: "a", weight: 1, url: "https://example.com/a"),
                                                                        LinkVariant(name: "b", weight: 3)]),
            LinkRule(when: LinkCondition(platforms: ["ios", "android"]), url: "https://example.com/never"),
        ]
        link.variants = [LinkVariant(name: "off", weight: 0, url: "https://example.com/off"), LinkVariant(name: "on", weight: 5)]
        let routing = LinkRouting(link)
        var android = Self.facts(UserAgents.android), iphone = Self.facts(UserAgents.iPhone), desktop = Self.facts(UserAgents.desktop)
        var draws = FixedDraws(values: [])
        #expect(routing.choose(&android, random: &draws) == LinkRouting.Choice(rule: 0, destination: routing.rules[0].destination, variant: nil))
        let variants = try #require(routing.rules[1].variants)
        #expect([0, 1, 2, 3].map { variants.variant(at: $0).name } == ["a", "b", "b", "b"], "weights 1 and 3 split a draw of 0..<4")
        let first = routing.choose(&iphone, random: &draws)
        #expect(first.rule == 1 && first.variant?.name == "a" && first.destination?.url == "https://example.com/a")
        draws = FixedDraws(values: [UInt64.max])
        let last = routing.choose(&iphone, random: &draws)
        #expect(last.variant?.name == "b" && last.destination == nil, "a variant without a url keeps the platform's destination")
        var system = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let choice = routing.choose(&desktop, random: &system)
            #expect(choice.rule == nil && choice.variant?.name == "on")
        }
        #expect(routing.target(last, client: .ios(osVersion: "17.4"), appStore: "https://apps.apple.com/app/id1", interstitial: false, query: []).target
                == "https://apps.apple.com/app/id1")
    }

    @Test("UTM parameters go to web pages only, never twice; the click's own utm_… replaces the link's when the query passes on")
    func utm() {
        let utm = [LinkRouting.QueryPair(name: "utm_source", value: "news letter"), LinkRouting.QueryPair(name: "utm_medium", value: "email")]
        let page = LinkRouting.Destination("https://example.com/x?a=1&utm_medium=social#top", utm: utm)
        #expect(page.tagged == "https://example.com/x?a=1&utm_medium=social&utm_source=news%20letter#top")
        #expect(page.address(passing: [(name: "utm_source", value: "mail"), (name: "q", value: "b")])
                == "https://example.com/x?a=1&utm_medium=social&utm_source=mail&q=b#top")
        for store in ["https://apps.apple.com/app/id123", "https://play.google.com/store/apps/details?id=com.example"] {
            #expect(LinkRouting.Destination(store, utm: utm).tagged == store)
        }
    }
}
