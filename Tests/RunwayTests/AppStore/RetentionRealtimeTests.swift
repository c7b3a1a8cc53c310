import AppleFormats
import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
import RunwayDevTools
import RunwayHTTP
import RunwayJSON
@testable import RunwayKit
import RunwayStore
import RunwayTestKit
import Testing

/// Apple's realtime `Get Retention Message` calls, answered by where the subscriber came from: requests signed as Apple
/// signs them (by the test authority the server trusts), subscriptions known from real notification processing.
@Suite("Retention messages: realtime answers")
struct RetentionRealtimeTests {
    typealias T = AffiliateAPITests
    static let partners = "0d9b2c1e-5a2f-4c7e-9d3b-000000000001"
    static let spring = "0d9b2c1e-5a2f-4c7e-9d3b-000000000002"
    static let fallback = "0d9b2c1e-5a2f-4c7e-9d3b-000000000003"
    static let rejected = "0d9b2c1e-5a2f-4c7e-9d3b-000000000004"

    /// A realtime request to `surface`, as Apple would send it (or as `signer`, another authority, forges one).
    static func ask(_ w: T.World, _ surface: CreatedSurface? = nil, original: String, product: String = "premium.monthly", locale: String = "en-US",
                    environment: String = "Production", appAppleId: Int64 = T.appAppleId, signer: AppStoreTestSigner? = nil,
                    requestId: String = UUID().uuidString.lowercased(), ageSeconds: Double = 0) async -> HTTPResponse {
        let body = FakeRetentionMessagingAPI.realtimeBody(sign: (signer ?? w.signer).sign, originalTransactionId: original, appAppleId: appAppleId,
                                                          productId: product, locale: locale, environment: environment, requestIdentifier: requestId,
                                                          signedDate: w.clock.now.addingTimeInterval(-ageSeconds))
        return await w.server.client().send("POST", (surface ?? w.production).surface.retentionPath, headers: [("Content-Type", "application/json")],
                                            body: body)
    }

    /// Sets the app's retention rules.
    static func setRules(_ w: T.World, _ rules: RetentionRuleSet) async throws -> HTTPResponse {
        await w.server.admin.send("PUT", "/v1/apps/\(w.app.id)/retention/rules", body: try TestClient.encoded(rules))
    }

    /// The message id an answer names, and its kind.
    static func answered(_ response: HTTPResponse) -> (kind: String, messageId: String?, product: String?)? {
        guard response.status == 200, let (kind, value) = response.json?.objectValue?.first else { return nil }
        return (kind, value["messageIdentifier"]?.stringValue, value["productId"]?.stringValue)
    }

    /// A subscriber bound to the affiliate (original 1000000001), one who came through the `spring` campaign's link
    /// (original 2000000002, joined by the app transaction its install proved), and the rules that tell them apart.
    static func world(_ backend: StoreBackend) async throws -> T.World {
        let w = try await T.world(backend)
        // The whole suite beside these tests can hold a read for seconds: the budget's own tests set it low.
        w.server.services.retention.budgetMilliseconds.store(60_000, ordering: .relaxed)
        let bound = try await w.client.post("/v1/app-store/bind", BindRequest(refCode: "alice", installId: "inst-aff")).decoded(BindResponse.self)
        let now = w.server.services.clock.nowMilliseconds()
        let subscribed = AppStoreNotifications2026Tests.subscription(w, "SUBSCRIBED", id: "1000000001", original: "1000000001", token: bound.appAccountToken)
        #expect(try await AppStoreNotifications2026Tests.result(w, subscribed).status == .ok)

        let appTransaction = "704289572311469999"
        let signed = w.signer.appTransaction(id: appTransaction, bundleId: T.bundleId, appAppleId: T.appAppleId, signedDate: now)
        _ = try await w.client.post("/v1/installs/match", MatchInstallRequest(installId: "inst-link", platform: "ios", consent: true, signedAppTransaction: signed))
            .decoded(InstallMatch.self)
        // The install came from a link of the spring campaign (what matching a click of it records).
        try await w.server.store.write { db in
            try db.execute("UPDATE installs SET link_id = 'lnk_spring0001', campaign = 'spring', source = 'link' WHERE install_id = 'inst-link'")
        }
        let renewed = AppStoreNotifications2026Tests.subscription(w, "DID_RENEW", id: "2000000002", original: "2000000002",
                                                                  fields: [("appTransactionId", .string(appTransaction))])
        #expect(try await AppStoreNotifications2026Tests.result(w, renewed).status == .unattributed)

        let rules = RetentionRuleSet(rules: [
            RetentionRule(name: "partners", when: RetentionConditions(sources: ["affiliate"]), answer: RetentionAnswer(messageId: partners)),
            RetentionRule(name: "withdrawn", when: RetentionConditions(campaigns: ["spring"]), answer: RetentionAnswer(messageId: rejected)),
            RetentionRule(name: "spring", when: RetentionConditions(campaigns: ["spring"], linkIds: ["lnk_spring0001"], locales: ["en"]),
                          answer: RetentionAnswer(messageId: spring, alternateProductId: "premium.yearly", billingPlanType: "BILLED_UPFRONT")),
        ], fallback: RetentionAnswer(messageId: fallback))
        _ = try await Self.setRules(w, rules).decoded(RetentionRuleSet.self)
        // Apple rejected one message in review: a rule naming it is passed over.
        try await w.server.store.write { db in
            try db.execute("""
                INSERT INTO retention_messages (app_id, environment, message_id, state, listed, created_at)
                VALUES (\(w.app.id), 'production', \(rejected), 'REJECTED', 1, \(now))
                """)
        }
        w.server.services.retention.forget(appId: AppId(w.app.id))
        return w
    }

    static func requests(_ w: T.World, count: Int) async throws -> [SQLRow] {
        for _ in 0..<3_000 {
            let rows = try await w.server.store.read { db in
                try db.query("SELECT request_id, rule, message_id, source, late FROM retention_requests ORDER BY requested_at, request_id")
            }
            if rows.count >= count { return rows }
            try await Task.sleep(for: .milliseconds(10))
        }
        return []
    }

    @Test("each subscriber gets the message of where they came from: an affiliate's, a campaign's switch-plan offer, the fallback; a rejected message is passed over",
          arguments: StoreBackend.all)
    func bySource(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend)
        let partner = await Self.ask(w, original: "1000000001")
        #expect(Self.answered(partner)?.kind == "message" && Self.answered(partner)?.messageId == Self.partners, "\(partner.bodyText)")
        let campaign = await Self.ask(w, original: "2000000002", locale: "en-GB")
        #expect(Self.answered(campaign)?.kind == "alternateProduct" && Self.answered(campaign)?.messageId == Self.spring
                && Self.answered(campaign)?.product == "premium.yearly", "\(campaign.bodyText)")
        #expect(campaign.json?["alternateProduct"]?["billingPlanType"]?.stringValue == "BILLED_UPFRONT")
        #expect(Self.answered(await Self.ask(w, original: "2000000002", locale: "de-DE"))?.messageId == Self.fallback, "the spring rule is for English")
        #expect(Self.answered(await Self.ask(w, original: "9999999999"))?.messageId == Self.fallback, "a subscription never seen")
        let rows = try await Self.requests(w, count: 4)
        #expect(rows.count == 4)
        #expect(try rows.map { try $0.string("source") }.sorted() == ["affiliate", "link", "link", "unknown"])
        #expect(try Set(rows.map { try $0.string("rule") }) == ["partners", "spring", "fallback"])
        await w.server.stop()
    }

    @Test("a request that is not Apple's, not this app's, not this environment's or not fresh is refused; nothing is recorded",
          arguments: StoreBackend.all)
    func refusals(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend)
        let forged = await Self.ask(w, original: "1000000001", signer: AppStoreTestSigner())
        #expect(forged.status == 400 && forged.errorCode == "app_store_invalid" && forged.bodyText.contains("VERIFICATION_FAILURE"), "\(forged.bodyText)")
        let otherApp = await Self.ask(w, original: "1000000001", appAppleId: 42)
        #expect(otherApp.status == 400 && otherApp.bodyText.contains("INVALID_APP_IDENTIFIER"))
        let sandbox = await Self.ask(w, original: "1000000001", environment: "Sandbox")
        #expect(sandbox.status == 400 && sandbox.bodyText.contains("INVALID_ENVIRONMENT"))
        let stale = await Self.ask(w, original: "1000000001", ageSeconds: 601)
        #expect(stale.status == 400 && stale.bodyText.contains("signedDate"))
        let garbage = await w.server.client().post(w.production.surface.retentionPath, json: #"{"signedPayload":"a.b.c"}"#)
        #expect(garbage.status == 400 && garbage.errorCode == "app_store_invalid")
        #expect(await w.server.client().post("/v1/app-store/retention/srf_nothing000", json: "{}").status == 404)
        // The sandbox surface takes the sandbox's requests (which may name another App Store id, as Apple's libraries allow).
        #expect(Self.answered(await Self.ask(w, w.sandbox, original: "1", environment: "Sandbox", appAppleId: 42))?.messageId == Self.fallback)
        try await Task.sleep(for: .milliseconds(100))
        let recorded = try await w.server.store.read { try $0.first("SELECT COUNT(*) AS n FROM retention_requests WHERE environment = 'production'")!.int("n") }
        #expect(recorded == 0)
        await w.server.stop()
    }

    @Test("past its time budget the choice gives way to the fallback, recorded as late; without a fallback nothing answers (204) and Apple shows its default; a request Apple repeats counts once",
          arguments: StoreBackend.all)
    func budgetAndRepeats(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend)
        // The rules read once (as any earlier request would have): past the budget, their fallback answers.
        _ = try await w.server.services.retention.configuration(appId: AppId(w.app.id))
        w.server.services.retention.budgetMilliseconds.store(0, ordering: .relaxed)
        let late = await Self.ask(w, original: "1000000001", requestId: "late-1")
        #expect(Self.answered(late)?.messageId == Self.fallback, "the affiliate's rule needs a read the budget does not allow")
        w.server.services.retention.budgetMilliseconds.store(60_000, ordering: .relaxed)
        for _ in 0..<3 { _ = await Self.ask(w, original: "1000000001", requestId: "same-1") }
        let rows = try await Self.requests(w, count: 2)
        #expect(rows.count == 2, "the repeated request is one row")
        #expect(try rows.first { try $0.string("request_id") == "late-1" }.map { try $0.bool("late") } == true)
        #expect(try rows.first { try $0.string("request_id") == "same-1" }.map { try $0.string("rule") } == "partners")

        _ = try await Self.setRules(w, RetentionRuleSet(rules: [RetentionRule(when: RetentionConditions(sources: ["affiliate"]),
                                                                              answer: RetentionAnswer(messageId: Self.partners))]))
            .decoded(RetentionRuleSet.self)
        let none = await Self.ask(w, original: "2000000002")
        #expect(none.status == 204 && none.body.isEmpty)
        #expect(Self.answered(await Self.ask(w, original: "1000000001"))?.messageId == Self.partners, "a rule without a name is still chosen")
        await w.server.stop()
    }

    @Test("the report counts each rule's answers, and what followed from later notifications: cancelled, stayed, undecided",
          arguments: StoreBackend.all)
    func report(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend)
        _ = await Self.ask(w, original: "1000000001")
        _ = await Self.ask(w, original: "2000000002")
        _ = await Self.ask(w, original: "9999999999")
        _ = try await Self.requests(w, count: 3)
        func renewalStatus(_ original: String, _ subtype: String) async throws {
            w.clock.advance(seconds: 60)
            let carrier = AppStoreNotifications2026Tests.subscription(w, "DID_CHANGE_RENEWAL_STATUS", id: original, original: original)
            let transaction: String = try #require(Self.transaction(of: carrier))
            let payload = w.signer.notification("DID_CHANGE_RENEWAL_STATUS", subtype: subtype, bundleId: T.bundleId, appAppleId: T.appAppleId,
                                                transaction: transaction, signedDate: w.server.services.clock.nowMilliseconds())
            _ = try await AppStoreNotifications2026Tests.result(w, payload)
        }
        try await renewalStatus("1000000001", "AUTO_RENEW_DISABLED")
        // The spring subscriber turned auto-renew off, thought again, and renewed: stayed.
        try await renewalStatus("2000000002", "AUTO_RENEW_DISABLED")
        try await renewalStatus("2000000002", "AUTO_RENEW_ENABLED")
        _ = try await AppStoreNotifications2026Tests.result(w, AppStoreNotifications2026Tests.subscription(w, "DID_RENEW", id: "2000000003", original: "2000000002"))
        let report = try await w.server.admin.get("/v1/apps/\(w.app.id)/retention/report").decoded(RetentionMessageReport.self)
        let byRule = Dictionary(uniqueKeysWithValues: report.rows.map { ($0.rule, $0) })
        #expect(byRule["partners"].map { ($0.shown, $0.cancelled, $0.stayed, $0.undecided) } ?? (0, 0, 0, 0) == (1, 1, 0, 0))
        #expect(byRule["spring"].map { ($0.shown, $0.cancelled, $0.stayed, $0.undecided) } ?? (0, 0, 0, 0) == (1, 0, 1, 0))
        #expect(byRule["fallback"].map { ($0.shown, $0.undecided, $0.messageId) } ?? (0, 0, nil) == (1, 1, Self.fallback))
        let empty = try await w.server.admin.get("/v1/apps/\(w.app.id)/retention/report?to=2020-01-01T00:00:00Z").decoded(RetentionMessageReport.self)
        #expect(empty.rows.isEmpty)
        #expect(await w.server.admin.get("/v1/apps/\(w.app.id)/retention/report?from=yesterday").errorCode == "invalid_query")
        await w.server.stop()
    }

    /// The signed transaction inside a notification built by `AppStoreNotifications2026Tests.subscription`.
    static func transaction(of notification: String) -> String? {
        (try? CompactJWS.parse(notification))?.payload["data"]?["signedTransactionInfo"]?.stringValue
    }

    @Test("rules are checked when set: message ids are UUIDs, sources are known, a billing plan goes with a product, at most 100")
    func validation() async throws {
        let w = try await T.world()
        func put(_ rules: [RetentionRule], fallback: RetentionAnswer? = nil) async throws -> HTTPResponse {
            try await Self.setRules(w, RetentionRuleSet(rules: rules, fallback: fallback))
        }
        let answer = RetentionAnswer(messageId: Self.partners)
        #expect(try await put([RetentionRule(answer: RetentionAnswer(messageId: "nope"))]).errorField == "rules[0].answer.messageId")
        #expect(try await put([RetentionRule(when: RetentionConditions(sources: ["tiktok"]), answer: answer)]).errorField == "rules[0].when.sources")
        #expect(try await put([], fallback: RetentionAnswer(messageId: Self.partners, billingPlanType: "MONTHLY")).errorField == "fallback.billingPlanType")
        #expect(try await put([RetentionRule(name: "fallback", answer: answer)]).errorField == "rules[0].name")
        #expect(try await put(Array(repeating: RetentionRule(answer: answer), count: 101)).status == 400)
        let stored = try await put([RetentionRule(answer: answer)]).decoded(RetentionRuleSet.self)
        #expect(stored.rules.count == 1 && stored.updatedAt != nil)
        #expect(try await w.server.admin.get("/v1/apps/\(w.app.id)/retention/rules").decoded(RetentionRuleSet.self).rules == stored.rules)
        await w.server.stop()
    }

    @Test("the console shows the rules, saves them through the API with its verdict beside them, and shows what was shown")
    func console() async throws {
        let w = try await Self.world(.sqlite)
        _ = await Self.ask(w, original: "1000000001")
        _ = try await Self.requests(w, count: 1)
        let (visitor, csrf) = await ConsoleAppStoreTests.visitor(w.server)
        let ws = w.server.defaultWorkspace.id
        let page = await visitor.send("GET", "/console/retention?ws=\(ws)&app=\(w.app.id)")
        #expect(page.status == 200 && page.bodyText.contains(Self.partners) && page.bodyText.contains(w.production.surface.retentionPath))
        #expect(page.bodyText.contains("<td>partners</td>"), "the report's row")
        let bad = await visitor.send("POST", "/console/retention", form: [("csrf", csrf), ("ws", ws), ("app", w.app.id),
                                                                         ("rules", #"{"rules":[{"answer":{"messageId":"x"}}]}"#)])
        #expect(bad.status == 400 && bad.bodyText.contains("rules[0].answer.messageId") && bad.bodyText.contains(#"id="error-summary""#))
        let saved = await visitor.send("POST", "/console/retention", form: [("csrf", csrf), ("ws", ws), ("app", w.app.id),
                                                                           ("rules", #"{"rules":[],"fallback":{"messageId":"\#(Self.spring)"}}"#)])
        #expect(saved.status == 303)
        let stored = try await w.server.admin.get("/v1/apps/\(w.app.id)/retention/rules").decoded(RetentionRuleSet.self)
        #expect(stored.rules.isEmpty && stored.fallback?.messageId == Self.spring)
        let messages = await visitor.send("GET", "/console/retention?ws=\(ws)&app=\(w.app.id)&messages=1")
        #expect(messages.status == 200 && messages.bodyText.contains("In-App Purchase key"), "no key: the API refusal is shown: \(messages.status) \(messages.bodyText.suffix(600))")
        await w.server.stop()
    }

    @Test("a choice that takes longer than its budget is given up when the budget ends, not when the choice does")
    func budget() async throws {
        let started = ContinuousClock.now
        let slow = await RetentionRuntime.within(milliseconds: 50) { () async throws -> Int in
            try await Task.sleep(for: .seconds(400))
            return 1
        }
        // Long before the choice's 400 s, even with the whole suite keeping the cores busy for minutes.
        #expect(slow == nil && started.duration(to: .now) < .seconds(300))
        let quick = await RetentionRuntime.within(milliseconds: 600_000) { 7 }
        #expect(try quick?.get() == 7)
        #expect(await RetentionRuntime.within(milliseconds: 0) { 7 } == nil, "no time at all: the fallback at once")
    }

    @Test("locales: a language holds for each of its regions, a region for itself; case and separator do not count")
    func locales() {
        #expect(RetentionChoice.localeMatches("en", "en-US") && RetentionChoice.localeMatches("en", "EN_gb"))
        #expect(RetentionChoice.localeMatches("en-US", "en-us") && !RetentionChoice.localeMatches("en-US", "en-GB"))
        #expect(!RetentionChoice.localeMatches("en-US", "en") && !RetentionChoice.localeMatches("e", "en-US") && !RetentionChoice.localeMatches("", "en"))
    }
}
