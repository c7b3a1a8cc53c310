import AppleFormats
import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayCrypto
import RunwayDevTools
import RunwayHTTP
import RunwayJSON
@testable import RunwayKit
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

/// The inputs that once stopped the whole server, each sent again: an answer with a stable code, and the server still
/// healthy afterwards. Before the fix each of these trapped, which ends the test process as it ended the server's.
@Suite("No request stops the server")
struct NoTrapTests {
    static func healthy(_ server: TestServer) async -> Bool { await server.client().get("/healthz").status == 200 }

    static func base64url(_ text: String) -> String { ByteEncoding.base64url(Array(text.utf8)) }

    @Test("a postback's sequence index near Int64.max, plain or inside an AdAttributionKit JWS, is an invalid postback (200)",
          arguments: StoreBackend.all)
    func postbackSequenceIndex(_ backend: StoreBackend) async throws {
        let w = try await PostbackAPITests.world(backend)
        let plain = await PostbackAPITests.post(w, PostbackAPITests.skadPath, Array(#"{"postback-sequence-index": 9223372036854775807}"#.utf8))
        let receipt = try plain.decoded(PostbackReceipt.self)
        #expect(receipt.status == "invalid" && receipt.reason == "out_of_range")
        let payload = #"{"ad-network-identifier":"x.adattributionkit","postback-identifier":"p","advertised-item-identifier":525463029,"postback-sequence-index":9223372036854775807}"#
        let jws = Self.base64url(#"{"kid":"apple-cas-identifier/0","alg":"ES256"}"#) + "." + Self.base64url(payload) + "."
            + ByteEncoding.base64url([UInt8](repeating: 7, count: 64))
        let signed = await PostbackAPITests.post(w, PostbackAPITests.aakPath, Array(#"{"jws-string":"\#(jws)"}"#.utf8))
        let aak = try signed.decoded(PostbackReceipt.self)
        #expect(aak.status == "invalid" && aak.reason == "out_of_range")
        let stored = try await w.server.store.read { db in try db.query("SELECT status, reason FROM postbacks ORDER BY received_at") }
        #expect(try stored.map { try $0.string("reason") } == ["out_of_range", "out_of_range"], "kept as other invalid postbacks are")
        #expect(await Self.healthy(w.server))
        await w.server.stop()
    }

    @Test("postback fields outside Apple's formats are refused by name, signed with a key made here or not",
          arguments: [("postback-sequence-index", JSONValue.number("3")), ("conversion-value", .number("64")), ("conversion-value", .number("-1")),
                      ("fidelity-type", .number("2")), ("coarse-conversion-value", .string("huge")), ("source-identifier", .string("12345")),
                      ("app-id", .number("1234567890123456789012")), ("transaction-id", .string(String(repeating: "t", count: 129))),
                      ("postback-sequence-index", .number("1e308"))])
    func postbackBounds(_ field: String, _ value: JSONValue) throws {
        let key = try #require(PrivateKey.generateP256())
        var members: [(String, JSONValue)] = [("version", "4.0"), ("ad-network-id", "example.skadnetwork"), ("source-identifier", "39"),
                                              ("app-id", .number("525463029")), ("transaction-id", "t-1"), ("redownload", false),
                                              ("fidelity-type", .number("1")), ("did-win", true), ("postback-sequence-index", .number("0"))]
        let fields = members.map(\.0)
        let valid = PostbackSigningTests.signed(members, fields: fields, key: key)
        #expect(SKAdNetworkPostback.verify(valid, p256: key.publicKey).valid)
        members.removeAll { $0.0 == field }
        members.append((field, value))
        let verdict = SKAdNetworkPostback.verify(PostbackSigningTests.signed(members, fields: fields, key: key), p256: key.publicKey)
        #expect(!verdict.valid && verdict.reason == "out_of_range", "\(field): \(verdict.reason ?? "valid")")
        #expect(verdict.detail?.hasPrefix(field) == true)
        #expect((0...2).contains(verdict.fields.sequenceIndex) && verdict.fields.fineValue.map { (0...63).contains($0) } ?? true)
    }

    @Test("an Apple Ads claim whose install is forgotten while Apple is asked answers 404 unknown_install", arguments: StoreBackend.all)
    func appleAdsClaimRacingForget(_ backend: StoreBackend) async throws {
        let w = try await AppleAdsTests.world(backend)
        // Apple answers only once the install is forgotten (not after fixed pauses, which a loaded machine outruns).
        w.fake.slowAnswerDelay = .seconds(25)
        w.fake.hold()
        try await AppleAdsTests.install(w, "raced")
        async let claim = AppleAdsTests.claim(w, install: "raced", token: "slow")
        let asked = ContinuousClock.now + .seconds(25)
        while w.fake.requests(for: "slow") == 0, ContinuousClock.now < asked { try await Task.sleep(for: .milliseconds(20)) }
        let forgotten = await w.server.client(w.key).post("/v1/installs/raced/forget", json: "{}")
        #expect(forgotten.status == 200 || forgotten.status == 204, "\(forgotten.status) \(forgotten.bodyText)")
        w.fake.release()
        let answer = await claim
        #expect(answer.status == 404 && answer.errorCode == ErrorCode.unknownInstall.rawValue, "\(answer.status) \(answer.bodyText)")
        #expect(await Self.healthy(w.server))
        await AppleAdsTests.stop(w)
    }

    @Test("revenue past 10^12 minor units is refused by name, and an event that would take a link's total past 64 bits is refused whole",
          arguments: StoreBackend.all)
    func revenueNearInt64Max(_ backend: StoreBackend) async throws {
        let w = try await LinkStatsTests.world(backend)
        #expect(await LinkStatsTests.visit(w, userAgent: UserAgents.iPhone, from: "203.0.113.7").status == 302)
        _ = try await MatchingTests.match(MatchingTests.World(server: w.server, clock: w.clock, app: w.app, key: w.key, link: w.link), install: "rich")
        let huge = EventTests.event("huge", type: "PURCHASE", install: "rich", amount: 9_223_372_036_854_775_807, currency: "EUR", app: w.app.id)
        let refused = try await w.server.client(w.serverKey).post("/v1/events", huge)
        #expect(refused.status == 400 && refused.errorCode == ErrorCode.invalidField.rawValue && refused.errorField == "amount", "\(refused.bodyText)")
        try await LinkStatsTests.purchase(w, "first", install: "rich", amount: 500)

        // Totals an older release could have stored: the link's revenue one purchase short of 2^63, in every writer's lane.
        try await w.server.store.write { db in
            try db.execute("UPDATE link_stats SET amount = 9223372036854775000 WHERE link_id = \(w.link.id) AND measure = 'revenue:EUR'")
            for lane in 0..<16 {
                try db.execute("""
                    INSERT INTO link_stats (link_id, dimension, period, day, value, measure, amount, lane)
                    SELECT DISTINCT link_id, dimension, period, day, value, measure, amount, \(raw: String(lane)) FROM link_stats
                    WHERE link_id = \(w.link.id) AND measure = 'revenue:EUR' ON CONFLICT DO NOTHING
                    """)
            }
        }
        let next = EventTests.event("next", type: "PURCHASE", install: "rich", amount: 1_000_000, currency: "EUR", app: w.app.id)
        let overflowing = try await w.server.client(w.serverKey).post("/v1/events", next)
        #expect(overflowing.status == 422 && overflowing.errorCode == ErrorCode.totalOutOfRange.rawValue, "\(overflowing.bodyText)")
        let kept = try await w.server.store.read { db in try db.query("SELECT event_id FROM events WHERE event_id = 'next'") }
        #expect(kept.isEmpty, "nothing of the refused write is stored")

        // Two lanes that add up past 2^63, and events whose sum does: reads answer 422, never a trap or a 500.
        try await w.server.store.write { db in
            try db.execute("""
                INSERT INTO link_stats (link_id, dimension, period, day, value, measure, amount, lane)
                SELECT link_id, dimension, period, day, value, measure, 9223372036854775000, lane + 100 FROM link_stats
                WHERE link_id = \(w.link.id) AND measure = 'revenue:EUR'
                """)
            try db.execute("UPDATE events SET amount = 9223372036854775000 WHERE event_id = 'first'")
            try db.execute("""
                INSERT INTO events (app_id, event_id, workspace_id, type, install_id, occurred_at, received_at, amount, currency, source, attested, method)
                SELECT app_id, 'second', workspace_id, type, install_id, occurred_at, received_at, amount, currency, source, attested, method FROM events
                WHERE event_id = 'first'
                """)
        }
        let stats = await w.server.client(w.serverKey).get("/v1/links/\(w.link.id)/stats?from=2026-11-18&to=2026-11-19")
        #expect(stats.status == 422 && stats.errorCode == ErrorCode.totalOutOfRange.rawValue, "\(stats.bodyText)")
        let funnel = await w.server.client(w.serverKey).get("/v1/reports/funnel?from=2026-11-18&to=2026-11-20")
        #expect(funnel.status == 422 && funnel.errorCode == ErrorCode.totalOutOfRange.rawValue, "\(funnel.bodyText)")
        let visitor = ConsoleTests.Visitor(w.server.application)
        _ = await visitor.signIn(key: w.server.adminKey)
        let overview = await visitor.send("GET", "/console?from=2026-11-18&to=2026-11-19")
        #expect(overview.status == 422, "the console says the figures cannot be shown: \(overview.status)")
        #expect(await Self.healthy(w.server))
        await w.server.stop()
    }

    @Test("console forms with row counts and percentages past their range answer a page",
          arguments: [("/console/schema", [("rows", "-1"), ("w2_rows", "-9223372036854775808"), ("w3_rows", "99999999999")]),
                      ("/console/affiliate-programs", [("programName", "P"), ("kind", "percent"), ("percent", "1e300"), ("duration", "lifetime")]),
                      ("/console/affiliate-programs", [("programName", "P"), ("kind", "percent"), ("percent", "-5"), ("duration", "lifetime")])])
    func consoleForms(_ path: String, _ fields: [(String, String)]) async throws {
        let (server, visitor, csrf, ws) = try await ConsoleTests.signedIn()
        let app = try await server.createApp(in: ws)
        let page = await visitor.send("POST", path, form: [("csrf", csrf), ("ws", ws), ("app", app.id)] + fields)
        #expect((200..<500).contains(page.status), "\(page.status)")
        #expect(await Self.healthy(server))
        await server.stop()
    }

    @Test("a link form whose rule rows are negative or huge answers a page", arguments: ["-1", "-9223372036854775808", "9223372036854775807"])
    func ruleRows(_ rows: String) async throws {
        let (server, visitor, csrf, ws) = try await ConsoleTests.signedIn()
        let created = await visitor.send("POST", "/console/links", form: [("csrf", csrf), ("ws", ws), ("domain", "localhost"), ("path", "rows"),
                                                                          ("web", "https://example.com/w"), ("ruleRows", rows)])
        #expect((200..<500).contains(created.status), "\(created.status)")
        let link = try #require(try await server.admin.get("/v1/links?workspaceId=\(ws)").decoded(Page<Link>.self).items.first)
        let edit = await visitor.send("POST", "/console/links/\(link.id)", form: [("csrf", csrf), ("ws", ws), ("web", "https://example.com/x"),
                                                                                 ("ruleRows", rows), ("rule0-url", "not a url")])
        #expect((200..<500).contains(edit.status), "\(edit.status)")
        #expect(await Self.healthy(server))
        await server.stop()
    }
}
