import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayHTTP
@testable import RunwayKit
@testable import RunwayServer
import RunwayTestKit
import Testing

@Suite("Events")
struct EventTests {
    /// An event of `install` at a fixed time.
    static func event(_ id: String, type: String = "SIGNUP", install: String = "inst-e", name: String? = nil, amount: Int64? = nil,
                      currency: String? = nil, app: String? = nil) -> EventRequest {
        EventRequest(eventId: id, type: type, name: name, installId: install, timestamp: "2026-11-01T10:00:00Z", amount: amount, currency: currency,
                     appId: app)
    }

    /// An event as JSON text with `extra` (text such as `,"colour":"red"`) added: for what the wire type cannot carry.
    static func json(_ event: EventRequest, extra: String = "") throws -> String {
        String(String(decoding: try TestClient.encoded(event), as: UTF8.self).dropLast()) + extra + "}"
    }

    @Test("events are stored once per id, carry the install's attribution, and revenue needs a server key", arguments: StoreBackend.all)
    func ingestion(_ backend: StoreBackend) async throws {
        let w = try await MatchingTests.world(backend)
        let client = w.server.client(w.key)
        _ = try await client.post("/v1/resolve", ResolveRequest(url: "https://localhost/promo", platform: "ios", installId: "inst-e")).decoded(ResolvedLink.self)
        _ = try await MatchingTests.match(w, install: "inst-e")

        let stored = try await client.post("/v1/events", Self.event("e1")).decoded(EventResult.self, status: 201)
        #expect(stored.status == "stored")
        #expect(stored.attribution == EventAttribution(method: "referrer", source: "link", linkId: w.link.id, campaign: "spring", channel: nil, feature: nil))
        let retry = try await client.post("/v1/events", Self.event("e1")).decoded(EventResult.self, status: 200)
        #expect(retry.status == "duplicate")

        let custom = try await client.post("/v1/events", Self.event("e2", type: "CUSTOM"))
        #expect(custom.errorField == "name")
        #expect(try await client.post("/v1/events", Self.event("e2", type: "CUSTOM", name: "level_10")).status == 201)
        let revenue = try await client.post("/v1/events", Self.event("e3", type: "PURCHASE", amount: 4999, currency: "EUR"))
        #expect(revenue.status == 403)
        #expect(revenue.errorCode == "revenue_requires_server_key")

        let server = w.server.client(try await w.server.createKey(.server, workspace: w.server.defaultWorkspace.id).secret)
        let app = w.app.id
        #expect(try await server.post("/v1/events", Self.event("e3", type: "PURCHASE", amount: 4999, currency: "EUR", app: app)).status == 201)
        // An amount with a fraction, which the wire type cannot carry.
        let fraction = try Self.json(Self.event("e4", type: "PURCHASE", currency: "EUR", app: app), extra: #","amount":49.99"#)
        #expect(await server.post("/v1/events", json: fraction).errorField == "amount")
        #expect(try await server.post("/v1/events", Self.event("e4", type: "PURCHASE", amount: 4999, currency: "euro", app: app)).errorField == "currency")
        #expect(try await server.post("/v1/events", Self.event("e4", type: "REFUND", currency: "EUR", app: app)).errorField == "amount")
        #expect(try await server.post("/v1/events", Self.event("e4", type: "SIGNUP")).errorField == "appId")
        // A server key of another workspace cannot write revenue into this workspace's app, however it names it.
        let stranger = try await w.server.createWorkspace("Stranger")
        let strangerKey = w.server.client(try await w.server.createKey(.server, workspace: stranger.id).secret)
        let foreign = try await strangerKey.post("/v1/events", Self.event("e4", type: "PURCHASE", amount: 100, currency: "EUR", app: app))
        #expect(foreign.status == 400 && foreign.errorField == "appId", "\(foreign.bodyText)")
        #expect(try await client.post("/v1/events", Self.event("e4", install: "nobody")).errorCode == "unknown_install")
        #expect(try await client.post("/v1/events", Self.event("bad id")).errorField == "eventId")
        #expect(try await client.post("/v1/events", Self.event("e5", type: "TELEPORT")).errorField == "type")

        let rows = try await w.server.store.read { try $0.query("SELECT event_id, type, amount, currency, method, link_id FROM events ORDER BY event_id") }
        #expect(try rows.map { try $0.string("event_id") } == ["e1", "e2", "e3"])
        #expect(try rows[2].optionalInt("amount") == 4999 && rows[2].optionalString("currency") == "EUR")
        #expect(try rows.allSatisfy { try $0.string("method") == "referrer" && $0.optionalString("link_id") == w.link.id })
        await w.server.stop()
    }

    /// Events read the part of the install they need by its own columns: each must land where the full record has it.
    @Test("the install an event reads is the stored install's attribution and figures' facts, field by field", arguments: StoreBackend.all)
    func eventInstall(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        let app = try await server.createApp(in: server.defaultWorkspace.id)
        var record = InstallRecord(appId: app.id, installId: "every-field", workspaceId: app.workspaceId, platform: "ios", osVersion: "26.1",
                                   language: "fr", method: "referrer", confidence: 1, source: "apple_ads", explanation: "{}", simulated: true,
                                   matchedAt: 1_700_000_000_000)
        (record.linkId, record.campaign, record.channel, record.feature) = ("lnk_1", "spring", "mail", "share")
        (record.appleAdsCampaignId, record.appleAdsAdGroupId, record.appleAdsKeywordId) = ("61000", "62000", "63000")
        (record.variant, record.qr) = ("blue", true)
        let bare = InstallRecord(appId: app.id, installId: "few-fields", workspaceId: app.workspaceId, platform: "android", osVersion: nil,
                                 language: nil, method: "unmatched", confidence: 0, source: "organic", explanation: "{}", simulated: false,
                                 matchedAt: 1_700_000_000_000)
        for install in [record, bare] {
            let (stored, forEvents) = try await server.store.write { db in
                _ = try AttributionQueries.insertInstall(db, install)
                return (try AttributionQueries.install(db, appId: app.id, installId: install.installId),
                        try AttributionQueries.eventInstall(db, appId: app.id, installId: install.installId))
            }
            #expect(stored == install)
            #expect(forEvents == install.forEvents)
        }
        #expect(record.forEvents.attribution == EventAttribution(method: "referrer", source: "apple_ads", linkId: "lnk_1", campaign: "spring", channel: "mail",
                                                                  feature: "share", appleAdsCampaignId: "61000", appleAdsAdGroupId: "62000",
                                                                  appleAdsKeywordId: "63000", variant: "blue", qr: true))
        await server.stop()
    }

    @Test("INSTALL creates an unmatched install when none was matched, and comes once per install")
    func installEvent() async throws {
        let w = try await MatchingTests.world()
        let client = w.server.client(w.key)
        let first = try await client.post("/v1/events", Self.event("i1", type: "INSTALL", install: "fresh")).decoded(EventResult.self, status: 201)
        #expect(first.attribution?.method == "unmatched")
        #expect(try await client.post("/v1/events", Self.event("i2", type: "INSTALL", install: "fresh")).errorCode == "duplicate_install")
        #expect(try await client.post("/v1/events", Self.event("i1", type: "INSTALL", install: "fresh")).status == 200)
        #expect(try await MatchingTests.match(w, install: "fresh").method == "unmatched")
        // The click token of the link that last opened the app is recorded with the event.
        _ = try await client.post("/v1/events", Self.open("c1", clickToken: "tok-123")).decoded(EventResult.self, status: 201)
        #expect(try await w.server.store.read { try $0.first("SELECT click_token FROM events WHERE event_id = 'c1'")!.optionalString("click_token") } == "tok-123")
        #expect(try await client.post("/v1/events", Self.open("c2", clickToken: "a b")).errorField == "clickToken")
        await w.server.stop()
    }

    /// An OPEN of the install `fresh` by a link's click token.
    static func open(_ id: String, clickToken: String) -> EventRequest {
        EventRequest(eventId: id, type: "OPEN", installId: "fresh", timestamp: "2026-01-01T00:00:00Z", clickToken: clickToken)
    }

    @Test("a batch answers per event and stores the good ones", arguments: StoreBackend.all)
    func batch(_ backend: StoreBackend) async throws {
        let w = try await MatchingTests.world(backend)
        let client = w.server.client(w.key)
        _ = try await MatchingTests.match(w, install: "inst-e")
        _ = try await client.post("/v1/events", Self.event("b0")).decoded(EventResult.self, status: 201)
        // b2 lacks fields and b3 has one no event has: the batch is text.
        let items = try [Self.json(Self.event("b1")), Self.json(Self.event("b0")), #"{"eventId":"b2","type":"SIGNUP"}"#,
                         Self.json(Self.event("b3"), extra: #","colour":"red""#), Self.json(Self.event("b4", type: "PURCHASE", amount: 1, currency: "USD")),
                         Self.json(Self.event("b5", install: "nobody")), Self.json(Self.event("b6", type: "OPEN"))]
        let body = #"{"events":["# + items.joined(separator: ",") + "]}"
        let response = try await client.post("/v1/events/batch", json: body).decoded(EventBatchResponse.self)
        #expect(response.results.map(\.status) == ["stored", "duplicate", "rejected", "rejected", "rejected", "rejected", "stored"])
        #expect(response.results[2].error?.code == "missing_field")
        #expect(response.results[3].error?.code == "unknown_field")
        #expect(response.results[3].error?.field == "events[3].colour")
        #expect(response.results[4].error?.code == "revenue_requires_server_key")
        #expect(response.results[5].error?.code == "unknown_install")
        #expect((response.stored, response.duplicates, response.rejected) == (2, 1, 4))
        let ids = try await w.server.store.read { try $0.query("SELECT event_id FROM events ORDER BY event_id").map { try $0.string("event_id") } }
        #expect(ids == ["b0", "b1", "b6"])
        // A hundred events, one stored before in the statements' second run of ids (64, then 32, then 4), one twice:
        // the first of an id in a batch is stored, the second is a duplicate, as one by one.
        _ = try await client.post("/v1/events", Self.event("n70")).decoded(EventResult.self, status: 201)
        let hundred = EventBatchRequest(events: (0..<99).map { Self.event("n\($0)") } + [Self.event("n3")])
        let results = try await client.post("/v1/events/batch", hundred).decoded(EventBatchResponse.self).results.map(\.status)
        #expect(results.indices.filter { results[$0] == "duplicate" } == [70, 99])
        #expect(results.filter { $0 == "stored" }.count == 98)
        let stored = try await w.server.store.read { try $0.first("SELECT COUNT(*) AS n FROM events WHERE event_id LIKE 'n%'")?.int("n") }
        #expect(stored == 99)

        // Forgetting the install forgets its events' ids: each may be sent again (for a new install of the same id).
        let receipt = try await w.server.admin.send("DELETE", "/v1/installs/inst-e?appId=\(w.app.id)").decoded(DeletionReceipt.self)
        #expect(receipt.deleted["events"] == 102 && receipt.deleted["eventIds"] == 102)
        _ = try await MatchingTests.match(w, install: "inst-e")
        #expect(try await client.post("/v1/events/batch", EventBatchRequest(events: [Self.event("b1"), Self.event("n3")]))
            .decoded(EventBatchResponse.self).results.map(\.status) == ["stored", "stored"])

        let tooMany = EventBatchRequest(events: (0...500).map { Self.event("m\($0)") })
        #expect(try await client.post("/v1/events/batch", tooMany).errorField == "events")
        #expect(await client.post("/v1/events/batch", json: "{\"events\":[").errorCode == "invalid_json")
        await w.server.stop()
    }
}
