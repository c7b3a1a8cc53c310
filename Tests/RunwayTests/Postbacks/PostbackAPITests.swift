import AppleFormats
import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayCrypto
import RunwayHTTP
import RunwayJSON
@testable import RunwayKit
import RunwayOutbound
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

@Suite("Postbacks API")
struct PostbackAPITests {
    static let skadPath = "/.well-known/skadnetwork/report-attribution/"
    static let aakPath = "/.well-known/appattribution/report-attribution/"

    struct World {
        let server: TestServer
        let clock: ManualClock
        let app: App
    }

    /// An app whose App Store id is the one in Apple's SKAdNetwork examples.
    static func world(_ backend: StoreBackend = .sqlite, appStoreId: String = "525463029", postbacks: PostbackSettings? = nil,
                      outbound: OutboundPolicy = OutboundPolicy()) async throws -> World {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_790_000_000))
        let server = try await TestServer.start(backend, clock: clock.wall, outbound: outbound)
        let app = try await server.admin.post("/v1/apps", CreateAppRequest(workspaceId: server.defaultWorkspace.id, name: "Ads", teamId: "ABCDE12345",
                                                                           bundleId: "com.example.ads", appStoreId: appStoreId, postbacks: postbacks))
            .decoded(App.self, status: 201)
        return World(server: server, clock: clock, app: app)
    }

    static func post(_ w: World, _ path: String, _ body: [UInt8], host: String = "localhost") async -> HTTPResponse {
        await w.server.client().send("POST", path, headers: [("Host", host)], body: body)
    }

    static func storeIdStatus(_ client: TestClient, _ appId: String) async throws -> AppStoreIdStatus {
        try await client.get("/v1/apps/\(appId)/app-store-id").decoded(AppStoreIdStatus.self)
    }

    @Test("another workspace naming an app's App Store id takes nothing, and a postback goes to the app that proved it whatever Host it arrives on",
          .enabled(if: PostbackVectors.available, "../shared/vectors is absent"))
    func postbacksRoutedByVerifiedFacts() async throws {
        let w = try await Self.world()
        let squatter = try await w.server.createWorkspace("Squatter")
        let squatterKey = try await w.server.createKey(.server, workspace: squatter.id).secret
        let claimed = try await w.server.client(squatterKey).post("/v1/apps", CreateAppRequest(name: "Claim", teamId: "ZZZZZ99999", bundleId: "com.squat.claim",
                                                                                                   appStoreId: "525463029"))
            .decoded(App.self, status: 201)
        let unproven = try await Self.storeIdStatus(w.server.client(squatterKey), claimed.id)
        #expect(!unproven.proven && unproven.proof == nil, "named, not proven")
        let owner = try await Self.storeIdStatus(w.server.admin, w.app.id)
        #expect(owner.proven && owner.proof == "admin", "an admin key's word proves it")
        let sameBundle = try await w.server.client(squatterKey).post("/v1/apps", CreateAppRequest(name: "Mine", teamId: "ABCDE12345", bundleId: "com.example.ads"))
        #expect(sameBundle.errorCode == "app_identity_taken")
        let own = try await w.server.client(squatterKey).post("/v1/apps", CreateAppRequest(name: "Mine", teamId: "ZZZZZ99999", bundleId: "com.squat.ads"))
            .decoded(App.self, status: 201)
        #expect(try await w.server.client(squatterKey).patch("/v1/apps/\(own.id)", UpdateAppRequest(appStoreId: "525463029"))
            .decoded(App.self).appStoreId == "525463029")
        _ = try await w.server.client(squatterKey).post("/v1/domains", CreateLinkDomainRequest(hostname: "squat.example.com")).decoded(LinkDomain.self, status: 201)

        let valid = try PostbackVectors.bytes("skadnetwork/postbacks/com.example-2.1.json")
        let receipt = try await Self.post(w, Self.skadPath, valid, host: "squat.example.com").decoded(PostbackReceipt.self)
        #expect(receipt.status == "valid")
        let stored = try await w.server.store.read { db in try db.first("SELECT app_id, workspace_id FROM postbacks WHERE id = \(receipt.id)")! }
        #expect(try stored.optionalString("app_id") == w.app.id && stored.optionalString("workspace_id") == w.server.defaultWorkspace.id,
                "the Host named the squatter's domain; the signed App Store id decides")

        // Once the holder lets the id go, naming it still proves nothing: its postbacks are kept unrouted.
        _ = try await w.server.admin.patch("/v1/apps/\(w.app.id)", UpdateAppRequest(appStoreId: "525463030")).decoded(App.self)
        #expect(try await !Self.storeIdStatus(w.server.client(squatterKey), own.id).proven)
        let later = try await Self.post(w, Self.skadPath, try PostbackVectors.bytes("skadnetwork/postbacks/com.example-2.2.json"),
                                        host: "squat.example.com").decoded(PostbackReceipt.self)
        let unrouted = try await w.server.store.read { db in try db.first("SELECT app_id FROM postbacks WHERE id = \(later.id)")! }
        #expect(try later.status == "valid" && unrouted.optionalString("app_id") == nil)
        await w.server.stop()
    }

    @Test("postbacks that fail verification keep at most a day's sample per workspace; the rest are counted by reason and still reported",
          arguments: StoreBackend.all)
    func invalidSampleCapped(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend)
        let sent = PostbackReceiver.invalidSamplePerDay + 30
        for i in 0..<sent {
            let body = Array(#"{"version":"4.0","ad-network-id":"spam.example","transaction-id":"junk-\#(i)","attribution-signature":"AAAA"}"#.utf8)
            #expect(try await Self.post(w, Self.skadPath, body).decoded(PostbackReceipt.self).status == "invalid")
        }
        // Unsigned junk on no link domain has a sample of its own, so it cannot crowd out a workspace's.
        _ = await Self.post(w, Self.skadPath, Array("not json".utf8), host: "198.51.100.9")
        let (stored, counted, elsewhere) = try await w.server.store.read { db in
            (try db.first("SELECT COUNT(*) AS n FROM postbacks WHERE status = 'invalid' AND workspace_id = \(w.server.defaultWorkspace.id)")!.int("n"),
             try db.first("SELECT SUM(count) AS n FROM postback_rejections WHERE scope = \(w.server.defaultWorkspace.id)")!.int("n"),
             try db.first("SELECT COUNT(*) AS n FROM postbacks WHERE workspace_id IS NULL")!.int("n"))
        }
        #expect(stored == Int64(PostbackReceiver.invalidSamplePerDay) && counted == 30 && elsewhere == 1)
        let report = try await w.server.admin.get("/v1/reports/postbacks?groupBy=day&workspaceId=\(w.server.defaultWorkspace.id)&from=2026-01-01T00:00:00Z")
            .decoded(PostbackReport.self)
        #expect(report.rows.map(\.invalid) == [sent], "the report counts every one: \(report.rows)")
        // The next day has a sample again.
        w.clock.advance(seconds: 86_400)
        _ = await Self.post(w, Self.skadPath, Array("{}".utf8))
        let today = try await w.server.store.read { db in try db.first("SELECT COUNT(*) AS n FROM postbacks WHERE status = 'invalid'")!.int("n") }
        #expect(today == Int64(PostbackReceiver.invalidSamplePerDay) + 2)
        await w.server.stop()
    }

    @Test("every SKAdNetwork example gets its expected verdict through the receiver, and is stored raw",
          .enabled(if: PostbackVectors.available, "../shared/vectors is absent"), arguments: StoreBackend.all)
    func skadnetworkExamples(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend)
        for expected in PostbackVectors.skadExpected {
            let body = try PostbackVectors.bytes("skadnetwork/\(expected["file"] as! String)")
            // Apple's examples share transaction ids; each one is checked on its own.
            try await w.server.store.write { db in try db.execute("DELETE FROM postback_keys") }
            let receipt = try await Self.post(w, Self.skadPath, body).decoded(PostbackReceipt.self)
            let outcome = expected["expected"] as! String
            #expect(receipt.status == (outcome.hasPrefix("VALID") ? "valid" : "invalid"), "\(expected["file"]!): \(receipt)")
            let stored = try await w.server.store.read { db in try db.first("SELECT body, app_id, status FROM postbacks WHERE id = \(receipt.id)")! }
            #expect(try stored.blob("body") == body, "the raw body is kept byte for byte")
            // Routed by verified facts only: a postback whose signature fails names no app, whatever app id it claims.
            #expect(try stored.optionalString("app_id") == (outcome.hasPrefix("VALID") ? w.app.id : nil))
        }
        await w.server.stop()
    }

    @Test("AdAttributionKit: the development postback counts only for an app that accepts development; the illustration never; re-engagements apart from installs in either spelling",
          .enabled(if: PostbackVectors.available, "../shared/vectors is absent"), arguments: StoreBackend.all)
    func adattributionkitExamples(_ backend: StoreBackend) async throws {
        let development = try PostbackVectors.bytes("adattributionkit/postback-dev-settings-valid.json")
        let production = try await Self.world(backend, appStoreId: "10738027756")
        let refused = try await Self.post(production, Self.aakPath, development).decoded(PostbackReceipt.self)
        #expect(refused.status == "invalid" && refused.reason == "development_key")
        await production.server.stop()

        let testing = try await Self.world(backend, appStoreId: "10738027756", postbacks: PostbackSettings(acceptDevelopment: true))
        let accepted = try await Self.post(testing, Self.aakPath, development).decoded(PostbackReceipt.self)
        #expect(accepted.status == "valid")
        testing.clock.advance(seconds: 1)
        #expect(try await Self.post(testing, Self.aakPath, development).decoded(PostbackReceipt.self).status == "duplicate",
                "the same postback-identifier again")
        testing.clock.advance(seconds: 1)
        let illustration = try await Self.post(testing, Self.aakPath, try PostbackVectors.bytes("adattributionkit/postback-prod-doc-illustration-INVALID.json"))
            .decoded(PostbackReceipt.self)
        #expect(illustration.status == "invalid" && illustration.reason == "signature_mismatch")
        let listed = try await testing.server.admin.get("/v1/postbacks?workspaceId=\(testing.server.defaultWorkspace.id)").decoded(Page<StoredPostback>.self)
        #expect(listed.items.map(\.status) == ["invalid", "duplicate", "valid"], "newest first")
        let valid = try #require(listed.items.last)
        #expect(valid.kid == "apple-development-identifier/1" && valid.environment == "development")
        #expect(valid.conversionType == "re-engagement" && valid.appId == testing.app.id)
        // The development postback and its duplicate are in the sandbox view only; the production report never counts them.
        let report = try await testing.server.admin.get("/v1/reports/postbacks?groupBy=framework&workspaceId=\(testing.server.defaultWorkspace.id)")
            .decoded(PostbackReport.self)
        #expect(report.environment == "production" && report.rows == [PostbackReportRow(key: "adattributionkit", invalid: 1)])
        let sandbox = try await testing.server.admin.get("/v1/reports/postbacks?groupBy=framework&environment=development&workspaceId=\(testing.server.defaultWorkspace.id)")
            .decoded(PostbackReport.self)
        #expect(sandbox.environment == "development")
        // Apple's sample has no country, and a publisher item identifier of 0 (a test build's): both count as withheld.
        let lacking = PostbackMissingFields(countryCode: MissingFieldCount(missing: 1, outOf: 1), marketplaceIdentifier: MissingFieldCount(missing: 0, outOf: 1),
                                            sourceIdentifierDigits: MissingFieldCount(missing: 0, outOf: 1), publisher: MissingFieldCount(missing: 1, outOf: 1))
        #expect(sandbox.rows == [PostbackReportRow(key: "adattributionkit", postbacks: 1, reengagements: 1, withheld: 1, duplicates: 1, missingFields: lacking)])
        // Apple's prose spells the type `reengagement`: stored as sent, counted the same.
        try await testing.server.store.write { db in try db.execute("UPDATE postbacks SET conversion_type = 'reengagement' WHERE id = \(valid.id)") }
        let prose = try await testing.server.admin.get("/v1/reports/postbacks?groupBy=framework&environment=development&workspaceId=\(testing.server.defaultWorkspace.id)")
            .decoded(PostbackReport.self)
        #expect(prose.rows == sandbox.rows)
        await testing.server.stop()
    }

    @Test("development postbacks (either development key, or Apple's development ad network) stay in the sandbox view; country-code and tier group the report",
          .enabled(if: PostbackVectors.available, "../shared/vectors is absent"))
    func sandboxAndCountry() async throws {
        let w = try await Self.world(appStoreId: "10738027756", postbacks: PostbackSettings(acceptDevelopment: true))
        let workspace = w.server.defaultWorkspace.id
        // As Apple documents the stanza: the values, the interaction type and the country beside the signed jws-string,
        // unsigned; the country only at the tier that allows it.
        let signed = try PostbackVectors.bytes("adattributionkit/postback-dev-settings-valid.json")
        let stanza = try JSONParser().parse(signed)
        let withCountry = PostbackVectors.replacing("ad-interaction-type", in: PostbackVectors.replacing("country-code", in: stanza) { _ in .string("US") }) { _ in .string("click") }
        let receipt = try await Self.post(w, Self.aakPath, withCountry.serializedBytes()).decoded(PostbackReceipt.self)
        #expect(receipt.status == "valid", "the country is not signed, so adding it keeps the signature")
        // A production-signed postback can name Apple's development network only in a test; stored before, it was counted.
        try await w.server.store.write { db in
            try db.execute("""
                INSERT INTO postbacks (id, received_at, framework, workspace_id, app_id, body, status, environment, ad_network_id, sequence_index)
                VALUES ('pb_legacy000', \(w.clock.wall.nowMilliseconds()), 'adattributionkit', \(workspace), \(w.app.id), \(Array("{}".utf8)),
                        'valid', 'production', 'development.adattributionkit', 0)
                """)
        }
        let step = try #require(Schema.migrations.first { $0.id == "0025_development_postbacks" })
        try await w.server.store.write { db in try db.execute(SQL(stringLiteral: step.sqlite)) }
        // After the migration, as received: Apple's development ad network under the production key. The signature fails
        // (we cannot sign as Apple), and the stored failure still belongs to the sandbox.
        let illustration = try JSONParser().parse(try PostbackVectors.bytes("adattributionkit/postback-prod-doc-illustration-INVALID.json"))
        let parts = try #require(illustration.objectValue?.first { $0.0 == "jws-string" }?.1.stringValue).split(separator: ".").map(String.init)
        let payload = String(decoding: try #require(ByteEncoding.fromBase64url(parts[1])), as: UTF8.self)
            .replacingOccurrences(of: "test.adattributionkit", with: "development.adattributionkit")
        let renamed = [parts[0], ByteEncoding.base64url(Array(payload.utf8)), parts[2]].joined(separator: ".")
        let forged = try await Self.post(w, Self.aakPath, PostbackVectors.replacing("jws-string", in: illustration) { _ in .string(renamed) }.serializedBytes())
            .decoded(PostbackReceipt.self)
        #expect(forged.status == "invalid" && forged.reason == "signature_mismatch")

        let list = try await w.server.admin.get("/v1/postbacks?environment=development&workspaceId=\(workspace)").decoded(Page<StoredPostback>.self)
        #expect(Set(list.items.map(\.id)) == [receipt.id, forged.id, "pb_legacy000"])
        let stored = try #require(list.items.first { $0.id == receipt.id })
        #expect(stored.countryCode == "US" && stored.tier == "3" && stored.interactionType == "click")
        #expect(try await w.server.admin.get("/v1/postbacks?environment=production&workspaceId=\(workspace)").decoded(Page<StoredPostback>.self).items.isEmpty)
        #expect(await w.server.admin.get("/v1/postbacks?environment=staging&workspaceId=\(workspace)").errorField == "environment")

        let production = try await w.server.admin.get("/v1/reports/postbacks?groupBy=country&workspaceId=\(workspace)").decoded(PostbackReport.self)
        #expect(production.rows.isEmpty, "production never counts development postbacks: \(production.rows)")
        let byCountry = try await w.server.admin.get("/v1/reports/postbacks?groupBy=country&environment=development&workspaceId=\(workspace)")
            .decoded(PostbackReport.self)
        #expect(byCountry.rows.map(\.key) == ["(none)", "US"] && byCountry.rows.map(\.postbacks) == [1, 1])
        let byTier = try await w.server.admin.get("/v1/reports/postbacks?groupBy=tier&environment=development&workspaceId=\(workspace)")
            .decoded(PostbackReport.self)
        #expect(byTier.rows.map(\.key) == ["(none)", "3"])
        #expect(await w.server.admin.get("/v1/reports/postbacks?environment=sandbox&workspaceId=\(workspace)").errorField == "environment")
        await w.server.stop()
    }

    @Test("garbage and oversized bodies: stored as invalid with a reason (never a 500), or 413")
    func badBodies() async throws {
        let w = try await Self.world()
        for (path, body) in [(Self.skadPath, "garbage"), (Self.skadPath, #"{"version":"5.0"}"#), (Self.aakPath, #"{"jws-string":"a.b.c"}"#),
                             (Self.aakPath, "[]"), (Self.skadPath, "")] {
            let response = await Self.post(w, path, Array(body.utf8))
            #expect(response.status == 200)
            #expect(try response.decoded(PostbackReceipt.self).status == "invalid")
        }
        let huge = await Self.post(w, Self.skadPath, Array(repeating: UInt8(ascii: " "), count: PostbackReceiver.maxBodyBytes + 1))
        #expect(huge.status == 413)
        let invalid = try await w.server.admin.get("/v1/postbacks?status=invalid&workspaceId=\(w.server.defaultWorkspace.id)")
            .decoded(Page<StoredPostback>.self)
        #expect(Set(invalid.items.compactMap(\.reason)) == ["unreadable", "unsupported_version", "bad_signature_encoding"])
        await w.server.stop()
    }

    @Test("values decode with the schema version in force when they were set; campaigns get the app's names",
          .enabled(if: PostbackVectors.available, "../shared/vectors is absent"))
    func decoding() async throws {
        let settings = PostbackSettings(campaigns: [PostbackCampaign(adNetworkId: "com.example", sourceIdentifier: "5239", name: "Summer"),
                                                    PostbackCampaign(adNetworkId: "com.example", sourceIdentifier: "42", name: "Launch")])
        let w = try await Self.world(postbacks: settings)
        func setSchema(_ schema: ConversionSchemaRequest) async throws -> ConversionSchema {
            try await w.server.admin.put("/v1/apps/\(w.app.id)/conversion-schema", schema).decoded(ConversionSchema.self, status: 201)
        }
        let v1 = try await setSchema(ConversionSchemaRequest(rules: [ConversionRule(type: "PURCHASE", minAmount: 499, fine: 20, coarse: "high"),
                                                                     ConversionRule(type: "INSTALL", fine: 0, coarse: "low")]))
        w.clock.advance(seconds: 3 * 86_400)
        let v2 = try await setSchema(ConversionSchemaRequest(rules: [ConversionRule(type: "SIGNUP", fine: 20, coarse: "medium"),
                                                                     ConversionRule(type: "PURCHASE", fine: 63, coarse: "high")],
                                                             laterWindows: [LaterWindow(window: 2, rules: [LaterWindowRule(type: "SUBSCRIPTION", coarse: "high")])]))
        #expect((v1.version, v2.version) == (1, 2))

        // Right after v2, a postback's values were still set under v1.
        let early = try await Self.post(w, Self.skadPath, try PostbackVectors.bytes("skadnetwork/postbacks/com.example-2.1.json")).decoded(PostbackReceipt.self)
        w.clock.advance(seconds: 3 * 86_400)
        let late = try await Self.post(w, Self.skadPath, try PostbackVectors.bytes("skadnetwork/postbacks/com.example-4.0.json")).decoded(PostbackReceipt.self)
        let coarse = try await Self.post(w, Self.skadPath, try PostbackVectors.bytes("skadnetwork/postbacks/com.example-4.0-coarse.json")).decoded(PostbackReceipt.self)
        let list = try await w.server.admin.get("/v1/postbacks?appId=\(w.app.id)&workspaceId=\(w.server.defaultWorkspace.id)").decoded(Page<StoredPostback>.self)
        func stored(_ id: String) -> StoredPostback? { list.items.first { $0.id == id } }
        #expect(stored(early.id)?.schemaVersion == 1)
        #expect(stored(early.id)?.decoded == [DecodedConversion(type: "PURCHASE", minAmount: 499)])
        #expect(stored(early.id)?.campaign == "Launch", "campaign-id 42 of com.example")
        #expect(stored(early.id)?.tier == nil, "no tiers before SKAdNetwork 4.0")
        #expect(stored(late.id)?.schemaVersion == 2)
        #expect(stored(late.id)?.decoded == [DecodedConversion(type: "PURCHASE")], "fine 63 under v2")
        #expect(stored(late.id)?.campaign == "Summer")
        #expect(stored(late.id)?.tier == "2")
        #expect(stored(coarse.id)?.decoded == [DecodedConversion(type: "PURCHASE")], "coarse high in the first window")
        #expect(stored(coarse.id)?.campaign == "Summer", "39 is the end of 5239, the only entry ending so")
        #expect(stored(coarse.id)?.tier == "1")

        let byConversion = try await w.server.admin.get("/v1/reports/postbacks?groupBy=conversion&appId=\(w.app.id)&workspaceId=\(w.server.defaultWorkspace.id)&from=2026-01-01T00:00:00Z")
            .decoded(PostbackReport.self)
        #expect(byConversion.rows.map(\.key) == ["PURCHASE", "PURCHASE ≥ 499"])
        #expect(byConversion.rows.map(\.installs) == [2, 1])
        let byTier = try await w.server.admin.get("/v1/reports/postbacks?groupBy=tier&workspaceId=\(w.server.defaultWorkspace.id)&from=2026-01-01T00:00:00Z")
            .decoded(PostbackReport.self)
        #expect(byTier.rows.map(\.key) == ["(none)", "1", "2"])
        #expect(byTier.rows.first { $0.key == "1" }?.coarseValues == 1)
        let csv = await w.server.admin.get("/v1/reports/postbacks?groupBy=campaign&workspaceId=\(w.server.defaultWorkspace.id)&from=2026-01-01T00:00:00Z",
                                           headers: [("Accept", "text/csv")])
        #expect(csv.bodyText.hasPrefix("campaign,postbacks,installs,"))
        #expect(csv.bodyText.contains("\r\nSummer,2,2,0,0,0,0,1,1,0,0,,0,0,0.0,0,0,0.0,1,2,0.5,0,2,0.0\r\n"), "\(csv.bodyText)")
        await w.server.stop()
    }

    @Test("a verified postback is forwarded raw to the app's partners, retried until it lands",
          .enabled(if: PostbackVectors.available, "../shared/vectors is absent"))
    func forwarding() async throws {
        let partner = try WebhookTests.Receiver(failures: 1)
        let w = try await Self.world(postbacks: PostbackSettings(forwardUrls: [partner.url]),
                                     outbound: OutboundPolicy(allowPrivateTargets: true))
        let body = Array(#"{"version":"4.0","ad-network-id":"com.example","source-identifier":"39","app-id":525463029,"transaction-id":"x","redownload":false,"fidelity-type":1,"did-win":true,"postback-sequence-index":0,"attribution-signature":"MEUCIQD4rX6eh38qEhuUKHdap345UbmlzA7KEZ1bhWZuYM8MJwIgMnyiiZe6heabDkGwOaKBYrUXQhKtF3P/ERHqkR/XpuA="}"#.utf8)
        #expect(try await Self.post(w, Self.skadPath, body).decoded(PostbackReceipt.self).status == "invalid")
        let dispatcher = OutboxDispatcher(services: w.server.services, queue: PostbackReceiver.forwardOutbox, settings: .init(baseDelayMilliseconds: 0, timeoutSeconds: 60))
        #expect(try await dispatcher.sendDue() == 0, "an invalid postback is not forwarded")

        let valid = try PostbackVectors.bytes("skadnetwork/postbacks/com.example-2.1.json")
        let receipt = await Self.post(w, Self.skadPath, valid, host: "127.0.0.1:8080")
        #expect(try receipt.decoded(PostbackReceipt.self).status == "valid")
        #expect(try await dispatcher.sendDue() == 1)
        #expect(try await dispatcher.sendDue() == 1, "the partner failed once; the retry is due at once here")
        #expect(try await dispatcher.sendDue() == 0)
        w.clock.advance(seconds: 60)
        let again = try await Self.post(w, Self.skadPath, valid).decoded(PostbackReceipt.self)
        #expect(again.status == "duplicate", "the same transaction of the same network")
        #expect(try await dispatcher.sendDue() == 0, "a duplicate is not forwarded again")
        #expect(partner.requests.count == 2)
        #expect(partner.requests.allSatisfy { $0.body == valid })
        #expect(partner.requests.last?.headers["LinkRunway-Postback"] == (try receipt.decoded(PostbackReceipt.self).id))
        let status = try await w.server.store.read { try $0.first("SELECT status, attempts FROM postback_forwards")! }
        #expect(try status.string("status") == "delivered" && status.int("attempts") == 2)
        await w.server.stop()
        await partner.server.shutdown()
    }

    @Test("one real postback counts once however it is replayed: another unsigned window index before 4.0, other unsigned values, another JSON type",
          .enabled(if: PostbackVectors.available, "../shared/vectors is absent"), arguments: StoreBackend.all)
    func replaysCountOnce(_ backend: StoreBackend) async throws {
        let partner = try WebhookTests.Receiver(failures: 0)
        let w = try await Self.world(backend, postbacks: PostbackSettings(forwardUrls: [partner.url]),
                                     outbound: OutboundPolicy(allowPrivateTargets: true))
        let genuine = try PostbackVectors.bytes("skadnetwork/postbacks/example123-3.0.json")
        guard case .object(let members)? = try? JSONParser().parse(genuine) else { Issue.record("the vector is not an object"); return }
        func replay(_ changes: [(String, JSONValue)]) -> [UInt8] {
            JSONValue.object(members.filter { member in !changes.contains { $0.0 == member.0 } } + changes).serializedBytes()
        }
        #expect(try await Self.post(w, Self.skadPath, genuine).decoded(PostbackReceipt.self).status == "valid")
        // Version 3.0 signs no window index: each of these is the same postback, signature and all.
        let replays: [[(String, JSONValue)]] = [[("postback-sequence-index", .number("1"))], [("postback-sequence-index", .number("2"))],
                                                [("conversion-value", .number("63"))],
                                                [("postback-sequence-index", .number("1")), ("coarse-conversion-value", .string("high"))]]
        for changes in replays {
            let receipt = try await Self.post(w, Self.skadPath, replay(changes)).decoded(PostbackReceipt.self)
            #expect(receipt.status == "duplicate", "\(changes.map(\.0)): \(receipt.status) \(receipt.reason ?? "")")
        }
        let retyped = try await Self.post(w, Self.skadPath, replay([("app-id", .string("525463029"))])).decoded(PostbackReceipt.self)
        #expect(retyped.status == "invalid" && retyped.reason == "wrong_type", "a signed value under another type than Apple's")
        let report = try await w.server.admin.get("/v1/reports/postbacks?groupBy=framework&workspaceId=\(w.server.defaultWorkspace.id)&from=2026-01-01T00:00:00Z")
            .decoded(PostbackReport.self)
        #expect(report.rows.map { $0.postbacks } == [1] && report.rows.map { $0.duplicates } == [4], "\(report.rows)")
        let dispatcher = OutboxDispatcher(services: w.server.services, queue: PostbackReceiver.forwardOutbox, settings: .init(baseDelayMilliseconds: 0, timeoutSeconds: 60))
        #expect(try await dispatcher.sendDue() == 1, "only the first valid copy is forwarded")
        #expect(partner.requests.map { $0.body } == [genuine])
        await w.server.stop()
        await partner.server.shutdown()
    }

    @Test("a postback stored under the key of earlier releases stays a duplicate after the upgrade",
          .enabled(if: PostbackVectors.available, "../shared/vectors is absent"))
    func legacyKeysStillDuplicate() async throws {
        let w = try await Self.world()
        try await w.server.store.write { db in
            try db.execute("""
                INSERT INTO postback_keys (scope, dedup_key, postback_id, received_at)
                VALUES (\(w.server.defaultWorkspace.id), 'skadnetwork|com.example|6aafb7a5-0170-41b5-bbe4-fe71dedf1e30|0', 'pb_old', 1)
                """)
        }
        let receipt = try await Self.post(w, Self.skadPath, try PostbackVectors.bytes("skadnetwork/postbacks/com.example-4.0.json")).decoded(PostbackReceipt.self)
        #expect(receipt.status == "duplicate")
        await w.server.stop()
    }

    @Test("the conversion schema: validated field by field, versioned, and served to the SDK with ETag and 304")
    func schemaAndMobileConfig() async throws {
        let w = try await Self.world()
        let path = "/v1/apps/\(w.app.id)/conversion-schema"
        for (schema, field) in [(ConversionSchemaRequest(rules: []), "rules"),
                                (ConversionSchemaRequest(rules: [ConversionRule(type: "BUY", fine: 1)]), "rules[0].type"),
                                (ConversionSchemaRequest(rules: [ConversionRule(type: "OPEN", fine: 64)]), "rules[0].fine"),
                                (ConversionSchemaRequest(rules: [ConversionRule(type: "OPEN", fine: 1, coarse: "huge")]), "rules[0].coarse"),
                                (ConversionSchemaRequest(rules: [ConversionRule(type: "OPEN", minAmount: -1, fine: 1)]), "rules[0].minAmount"),
                                (ConversionSchemaRequest(rules: [ConversionRule(type: "OPEN", fine: 1)],
                                                         laterWindows: [LaterWindow(window: 1, rules: [LaterWindowRule(type: "OPEN", coarse: "low")])]),
                                 "laterWindows[0].window")] {
            let response = try await w.server.admin.put(path, schema)
            #expect(response.status == 400 && response.errorField == field, "\(schema): \(response.bodyText)")
        }
        let key = try await w.server.createKey(.publishable, app: w.app.id).secret
        let client = w.server.client(key)
        let empty = await client.get("/v1/mobile/config/\(w.app.id)")
        #expect(try empty.decoded(MobileConfig.self).conversions == nil)
        #expect(empty.headers["ETag"] == "\"cs-0\"")
        _ = try await w.server.admin.put(path, ConversionSchemaRequest(rules: [ConversionRule(type: "INSTALL", fine: 0),
                                                                              ConversionRule(type: "PURCHASE", minAmount: 999, fine: 40, coarse: "high", lockWindow: true)]))
            .decoded(ConversionSchema.self, status: 201)
        let config = await client.get("/v1/mobile/config/\(w.app.id)")
        let served = try config.decoded(MobileConfig.self)
        #expect(served.conversions?.version == 1 && served.conversions?.rules.count == 2 && served.refreshSeconds == 86_400)
        #expect(config.headers["ETag"] == "\"cs-1\"" && config.headers["Cache-Control"] == "private, max-age=86400")
        #expect(await client.get("/v1/mobile/config/\(w.app.id)", headers: [("If-None-Match", "\"cs-1\"")]).status == 304)
        #expect(await client.get("/v1/mobile/config/\(w.app.id)", headers: [("If-None-Match", "\"cs-0\"")]).status == 200)
        let other = try await w.server.createApp(in: w.server.defaultWorkspace.id, bundleId: "com.example.other")
        #expect(await client.get("/v1/mobile/config/\(other.id)").errorCode == "app_forbidden")
        let versions = try await w.server.admin.get(path + "/versions").decoded(ConversionSchemaList.self)
        #expect(versions.items.map(\.version) == [1])
        await w.server.stop()
    }

    @Test("ad networks sign impressions that verify with their public key, and record them for view-through")
    func adNetworkSigning() async throws {
        let w = try await Self.world()
        func adNetwork(_ id: String, privateKeyPem: String? = nil) -> CreateAdNetworkRequest {
            CreateAdNetworkRequest(workspaceId: w.server.defaultWorkspace.id, adNetworkId: id, privateKeyPem: privateKeyPem)
        }
        let network = try await w.server.admin.post("/v1/ad-networks", adNetwork("example.adattributionkit")).decoded(AdNetwork.self, status: 201)
        #expect(try await w.server.admin.post("/v1/ad-networks", adNetwork("example.adattributionkit")).status == 409)
        let capitals = try await w.server.admin.post("/v1/ad-networks", adNetwork("Example123.AdAttributionKit"))
        #expect(capitals.errorField == "adNetworkId" && capitals.bodyText.contains("example123.adattributionkit"),
                "ad network ids are lower-case: one with capitals is refused, naming the id to send")
        let publicKey = try #require(PublicKey(spki: Array(Data(base64Encoded: network.publicKey)!)))
        let impressions = "/v1/ad-networks/\(network.id)/impressions"
        let aak = try await w.server.admin.post(impressions, SignImpressionRequest(format: "adattributionkit", sourceIdentifier: 5239, advertisedItemId: 525463029,
                                                                                 publisherItemId: 1234, record: ImpressionRecord(appId: w.app.id, ip: "198.51.100.9")))
            .decoded(SignedImpression.self, status: 201)
        let jws = try CompactJWS.parse(try #require(aak.jws))
        #expect(jws.verifies(with: publicKey))
        #expect(jws.header["kid"]?.stringValue == "example.adattributionkit")
        #expect(jws.payload["source-identifier"] == .number("5239"))
        #expect(aak.recordedImpressionId != nil)
        let recorded = try await w.server.store.read { try $0.first("SELECT network, campaign FROM impressions")! }
        #expect(try recorded.string("network") == "example.adattributionkit" && recorded.string("campaign") == "5239")

        let skan = try await w.server.admin.post(impressions, SignImpressionRequest(format: "skadnetwork-4.0", sourceIdentifier: 12, advertisedItemId: 525463029))
            .decoded(SignedImpression.self, status: 201)
        let message = try #require(skan.signedMessage)
        #expect(message.hasPrefix("4.0\u{2063}example.adattributionkit\u{2063}12\u{2063}525463029\u{2063}"))
        #expect(publicKey.verify(derSignature: Array(Data(base64Encoded: try #require(skan.signature))!), message: Array(message.utf8)))
        #expect(try await w.server.admin.post(impressions, SignImpressionRequest(format: "jpeg", sourceIdentifier: 1, advertisedItemId: 1)).errorField == "format")
        for stamp in [Int64.min, Int64.max] {
            let far = try await w.server.admin.post(impressions, SignImpressionRequest(format: "adattributionkit", sourceIdentifier: 1, advertisedItemId: 1, timestamp: stamp))
            #expect(far.errorField == "timestamp", "a time at the end of the integers is refused, not an overflow")
        }
        #expect(try await w.server.admin.post(impressions, SignImpressionRequest(format: "adattributionkit", sourceIdentifier: 10000, advertisedItemId: 1))
            .errorField == "sourceIdentifier")
        let imported = try #require(PrivateKey.generateP256())
        let brought = try await w.server.admin.post("/v1/ad-networks", adNetwork("mine.skadnetwork", privateKeyPem: imported.pem!))
            .decoded(AdNetwork.self, status: 201)
        #expect(brought.publicKey == Data(imported.publicKey!.spki).base64EncodedString())
        await w.server.stop()
    }
}

private extension TestClient {
    /// `PUT` with a wire type as the JSON body.
    func put(_ target: String, _ body: some Encodable) async throws -> HTTPResponse {
        await send("PUT", target, body: try TestClient.encoded(body))
    }
}
