import Foundation
import LinkRunwayAPI
@testable import RunwayConsole
@testable import RunwayServer
import RunwayTestKit
import Testing

/// The link form's rule editor, as a browser without script sends it.
@Suite("Console rule editor")
struct ConsoleRuleEditorTests {
    @Test("a rule row, the link's variants, schedule, limit, fallbacks and UTM become the link's; the edit form shows them and a blank row")
    func createAndEdit() async throws {
        let (server, visitor, csrf, ws) = try await ConsoleTests.signedIn()
        defer { Task { await server.stop() } }
        let blank = await visitor.send("GET", "/console/links?ws=\(ws)").bodyText
        #expect(blank.contains(#"name="ruleRows" value="1""#) && blank.contains("Add a rule"))
        let created = await visitor.send("POST", "/console/links", form: [
            ("csrf", csrf), ("ws", ws), ("domain", "localhost"), ("path", "ruled"), ("web", "https://example.com/w"), ("ruleRows", "3"),
            ("rule0-name", "French iPhones"), ("rule0-platform-ios", "on"), ("rule0-countries", "FR, BE"), ("rule0-osMin", "17"),
            ("rule0-url", "https://example.com/fr"), ("rule1-name", "Social"), ("rule1-inAppBrowsers", "instagram, tiktok"),
            ("rule1-url", "https://example.com/social"), ("rule2-name", ""),
            ("variants", #"[{"name":"a","weight":3},{"name":"b","weight":1,"url":"https://example.com/b"}]"#),
            ("clickLimit", "500"), ("fallbackOverLimit", "https://example.com/full"), ("utmSource", "poster"),
        ])
        #expect(created.status == 303, "\(created.bodyText)")
        let link = try #require(try await server.admin.get("/v1/links?q=ruled").decoded(Page<Link>.self).items.first)
        #expect(link.rules == [LinkRule(name: "French iPhones", when: LinkCondition(platforms: ["ios"], osVersion: LinkVersionRange(min: "17"),
                                                                                    countries: ["FR", "BE"]), url: "https://example.com/fr"),
                             LinkRule(name: "Social", when: LinkCondition(inAppBrowsers: ["instagram", "tiktok"]), url: "https://example.com/social")])
        #expect(link.variants?.map(\.name) == ["a", "b"] && link.clickLimit == 500 && link.fallbacks?.overLimit == "https://example.com/full")
        #expect(link.utm == LinkUTM(source: "poster"))

        let edit = await visitor.send("GET", "/console/links/\(link.id)?ws=\(ws)").bodyText
        #expect(edit.contains(#"name="ruleRows" value="3""#) && edit.contains("Rule 2") && edit.contains("Add a rule"))
        #expect(edit.contains(#"id="rule1-inAppBrowsers" name="rule1-inAppBrowsers" type="text" value="instagram, tiktok""#))
        #expect(edit.contains(#"id="rule0-countries" name="rule0-countries" type="text" value="FR, BE""#))
        #expect(edit.contains(#"id="rule0-platform-ios" name="rule0-platform-ios" checked"#))
        // Saving the form as shown keeps every rule; marking the rule for removal removes it, and the limit emptied goes.
        let start = try #require(edit.range(of: #"<form method="post" action="/console/links/\#(link.id)""#))
        let end = try #require(edit.range(of: "</form>", range: start.upperBound..<edit.endIndex))
        let editForm = String(edit[start.lowerBound..<end.upperBound])
        let fields = [("csrf", csrf), ("ws", ws)] + ConsoleTests.formFields(editForm).filter { $0.0 != "rule0-remove" } + Self.textareas(editForm)
        #expect(await visitor.send("POST", "/console/links/\(link.id)", form: fields).status == 303)
        #expect(try await server.admin.get("/v1/links/\(link.id)").decoded(Link.self).rules == link.rules)
        let removed = fields.filter { $0.0 != "clickLimit" } + [("rule0-remove", "on"), ("clickLimit", "")]
        #expect(await visitor.send("POST", "/console/links/\(link.id)", form: removed).status == 303)
        let after = try await server.admin.get("/v1/links/\(link.id)").decoded(Link.self)
        #expect(after.rules == Array((link.rules ?? []).dropFirst()) && after.clickLimit == nil && after.variants == link.variants)
    }

    /// The text areas of a page as a browser sends them.
    static func textareas(_ html: String) -> [(String, String)] {
        html.matches(of: /<textarea id="[^"]*" name="([^"]*)"[^>]*>([^<]*)<\/textarea>/).map { match in
            (String(match.1), String(match.2).replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&"))
        }
    }

    @Test("a refused rule is marked in its own row, with what was typed kept, and the form stays usable")
    func refusedRule() async throws {
        let (server, visitor, csrf, ws) = try await ConsoleTests.signedIn()
        defer { Task { await server.stop() } }
        let refused = await visitor.send("POST", "/console/links", form: [
            ("csrf", csrf), ("ws", ws), ("domain", "localhost"), ("path", "bad"), ("ruleRows", "3"),
            ("rule0-countries", "FR"), ("rule0-url", "https://example.com/fr"),
            ("rule1-name", ""), ("rule2-countries", "France"), ("rule2-url", "https://example.com/x"),
        ])
        #expect(refused.status == 400)
        let html = refused.bodyText
        #expect(html.contains(#"id="rule2-countries-error""#), "the API's rules[1] is the form's third row, after a blank one: \(html)")
        #expect(html.contains(##"href="#rule2-countries""##), "the summary links the control")
        #expect(html.contains(#"value="France""#), "what was typed is kept")
        let unknownApp = await visitor.send("POST", "/console/links", form: [
            ("csrf", csrf), ("ws", ws), ("domain", "localhost"), ("path", "bad"), ("ruleRows", "1"),
            ("rule0-inAppBrowsers", "instagram, myspace"), ("rule0-url", "https://example.com/fr"),
        ])
        #expect(unknownApp.status == 400 && unknownApp.bodyText.contains(#"id="rule0-inAppBrowsers-error""#), "an unknown app is marked beside its field")
        let unreadable = await visitor.send("POST", "/console/links", form: [
            ("csrf", csrf), ("ws", ws), ("domain", "localhost"), ("path", "bad"), ("ruleRows", "1"), ("rule0-url", "https://example.com/fr"),
            ("rule0-variants", "a:50"), ("rule0-from", "someday"), ("clickLimit", "lots"),
        ]).bodyText
        for control in ["rule0-variants", "rule0-from", "clickLimit"] {
            #expect(unreadable.contains(#"id="\#(control)-error""#), "every unreadable control is marked at once: \(control)")
        }
        #expect(try await server.store.read { try $0.query("SELECT id FROM links").count } == 0)
    }
}
