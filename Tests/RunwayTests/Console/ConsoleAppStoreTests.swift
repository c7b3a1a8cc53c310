import AppleFormats
import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayHTTP
import RunwayJSON
@testable import RunwayKit
import RunwayTestKit
import Testing

/// The console's App Store pages: the Replay button on an app's page, and the committed total of a 12-month commitment
/// beside each monthly commission in an affiliate's ledger.
@Suite("Console App Store")
struct ConsoleAppStoreTests {
    static func visitor(_ server: TestServer) async -> (ConsoleTests.Visitor, String) {
        let visitor = ConsoleTests.Visitor(server.application)
        _ = await visitor.signIn(key: server.adminKey)
        return (visitor, await visitor.csrf())
    }

    @Test("the Replay button fetches Apple's history page after page and processes what the server missed; pressed again it finds duplicates")
    func replayButton() async throws {
        let w = try await AppStoreReplayTests.world(pageSize: 1)
        let (visitor, csrf) = await Self.visitor(w.server)
        let ws = w.server.defaultWorkspace.id
        let path = "/console/apps/\(w.app.id)"
        let keyless = await visitor.send("GET", path + "?ws=\(ws)")
        #expect(keyless.status == 200 && keyless.bodyText.contains("needs the app's In-App Purchase key"))
        #expect(!keyless.bodyText.contains("app-store/replay"), "no button without a key")

        try await w.setKey()
        // Twelve notifications Apple sent while the server was away, one to a page.
        #expect(w.fake.add((0..<12).map { w.notification(minutesAgo: Int64(60 + $0)) }))
        let page = await visitor.send("GET", path + "?ws=\(ws)")
        #expect(page.bodyText.contains(#"action="\#(path)/app-store/replay""#) && page.bodyText.contains(AppStoreReplayTests.keyId))
        let day = String(Timestamp.iso(w.now - 86_400_000).prefix(10))
        func press(_ fields: [(String, String)]) async -> HTTPResponse {
            await visitor.send("POST", path + "/app-store/replay", form: [("csrf", csrf), ("ws", ws)] + fields)
        }
        func words(_ response: HTTPResponse) -> String { response.bodyText.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        let first = await press([("since", day), ("environment", "production")])
        #expect(first.status == 200 && words(first).contains("10 notifications: 10 new, 0 duplicate, 0 refused"), "\(first.bodyText)")
        #expect(first.bodyText.contains("Continue replaying"), "ten pages a press; Apple's token for the rest rides along")
        let more = ["since", "until", "environment", "paginationToken"].map { ($0, ConsoleTests.Visitor.hidden($0, in: first) ?? "") }
        #expect(more.allSatisfy { !$0.1.isEmpty }, "\(more)")
        let rest = await press(more)
        #expect(words(rest).contains("2 notifications: 2 new") && !rest.bodyText.contains("Continue replaying"), "\(rest.bodyText)")
        let processed = try await w.server.store.read { try $0.first("SELECT COUNT(*) AS n FROM app_store_notifications")!.int("n") }
        #expect(processed == 12)
        let again = await press([("since", day), ("environment", "production")])
        #expect(words(again).contains("10 notifications: 0 new, 10 duplicate"), "replaying twice changes nothing")

        // Refusals: a since the console cannot read, one past Apple's 180 days, and a sandbox the app has no surface for.
        let unreadable = await press([("since", "last week"), ("environment", "production")])
        #expect(unreadable.status == 400 && unreadable.bodyText.contains(#"id="error-summary""#) && unreadable.bodyText.contains(##"href="#since""##))
        #expect(unreadable.bodyText.contains(#"id="since" name="since" type="text" value="last week" aria-invalid="true""#))
        let old = String(Timestamp.iso(w.now - 200 * 86_400_000).prefix(10))
        let tooOld = await press([("since", old), ("environment", "production")])
        #expect(tooOld.status == 400 && tooOld.bodyText.contains("180 days"))
        let sandbox = await press([("since", day), ("environment", "sandbox")])
        #expect(sandbox.status == 400 && sandbox.bodyText.contains(##"href="#environment""##) && sandbox.bodyText.contains(#"aria-describedby="environment-error""#))
        // Another workspace's app is not reachable by its id.
        let other = try await w.server.createWorkspace("Other")
        let theirs = try await w.server.createApp(in: other.id)
        #expect(await visitor.send("POST", "/console/apps/\(theirs.id)/app-store/replay", form: [("csrf", csrf), ("ws", ws), ("since", day)]).status == 404)
        await AppStoreReplayTests.stop(w)
    }

    @Test("an affiliate's ledger shows a 12-month commitment's payment number and committed total beside each monthly commission")
    func commitmentInLedger() async throws {
        let w = try await AffiliateAPITests.world()
        let token = try await AffiliateAPITests.bind(w)
        let expires = w.server.services.clock.nowMilliseconds() + 300 * 86_400_000
        for n in 1...2 {
            let payload = AppStoreNotifications2026Tests.notification(w, n == 1 ? "SUBSCRIBED" : "DID_RENEW", id: "c\(n)", token: token, fields: [
                ("billingPlanType", "MONTHLY_WITH_12_MONTH_COMMITMENT"),
                ("commitmentInfo", .object([("billingPeriodNumber", .number(String(n))), ("totalBillingPeriods", 12),
                                            ("commitmentExpiresDate", .number(String(expires))), ("commitmentPrice", 119_880)])),
            ])
            #expect(try await AppStoreNotifications2026Tests.result(w, payload).amount == 299)
        }
        let plain = AppStoreNotifications2026Tests.notification(w, "DID_RENEW", id: "p1", token: token)
        #expect(try await AppStoreNotifications2026Tests.result(w, plain).amount == 299)
        let (visitor, _) = await Self.visitor(w.server)
        let page = await visitor.send("GET", "/console/affiliates/\(w.affiliate.id)?ws=\(w.server.defaultWorkspace.id)")
        #expect(page.status == 200)
        let text = page.bodyText
        #expect(text.contains(#"<th scope="col">commitment</th>"#), "the ledger has a commitment column")
        for n in 1...2 { #expect(text.contains("payment \(n) of 12, $35.96 committed in all, until"), "\(n)") }
        #expect(text.components(separatedBy: "$35.96 committed in all").count == 3, "only the two commitment payments carry it")
        #expect(text.contains("commission_expense $2.99; affiliate_pending -$2.99</td><td>payment 1 of 12"), "beside the per-payment commission")
        await w.server.stop()
    }
}
