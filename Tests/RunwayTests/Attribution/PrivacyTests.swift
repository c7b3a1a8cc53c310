import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayHTTP
@testable import RunwayKit
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

@Suite("Deletion and export")
struct PrivacyTests {
    /// An event of `install`, at the time EventTests gives its events.
    static func event(_ id: String, type: String = "SIGNUP", install: String) -> EventRequest {
        EventRequest(eventId: id, type: type, installId: install, timestamp: "2026-11-01T10:00:00Z")
    }

    /// Every text cell of every table, to prove a value is gone.
    static func everyValue(_ store: any Store) async throws -> [String: [String]] {
        try await store.read { db in
            let tables: [String]
            if db.dialect == .sqlite {
                tables = try db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").map { try $0.string("name") }
            } else {
                tables = try db.query("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'").map { try $0.string("name") }
            }
            var values: [String: [String]] = [:]
            for table in tables {
                for row in try db.query("SELECT * FROM \(raw: table)") {
                    for value in row.values { if case .text(let text) = value { values[table, default: []].append(text) } }
                }
            }
            return values
        }
    }

    @Test("an export answers the same after every table gains a column, as a newer server's migration does beside this one",
          arguments: StoreBackend.all)
    func exportAcrossAddedColumns(_ backend: StoreBackend) async throws {
        let w = try await MatchingTests.world(backend, settings: AttributionSettingsUpdate(probabilisticMinutes: 30))
        defer { Task { await w.server.stop() } }
        let client = w.server.client(w.key)
        _ = await w.server.follow("/promo", userAgent: UserAgents.iPhone)
        _ = try await MatchingTests.match(w, install: "kept")
        _ = try await client.post("/v1/events", Self.event("e1", install: "kept")).decoded(EventResult.self, status: 201)
        _ = try await client.post("/v1/referral-codes", CreateReferralCodeRequest(installId: "kept")).decoded(ReferralCode.self, status: 201)
        // Every reader connection prepares the export's statements (PostgreSQL keeps a plan per connection).
        let before = try await w.server.admin.get("/v1/installs/kept/export").decoded(InstallExport.self)
        for _ in 0..<8 { _ = await w.server.admin.get("/v1/installs/kept/export") }
        try await w.server.store.write { db in
            // Partitioned tables take the column for their partitions.
            let tables = db.dialect == .sqlite
                ? try db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
                : try db.query("""
                    SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
                    """)
            for table in try tables.map({ try $0.string("name") }) { try db.execute("ALTER TABLE \(raw: table) ADD COLUMN added_later TEXT") }
        }
        for _ in 0..<8 {
            let after = await w.server.admin.get("/v1/installs/kept/export")
            #expect(after.status == 200, "a statement whose result changed shape: \(after.bodyText)")
            #expect(try after.decoded(InstallExport.self) == before)
        }
    }

    @Test("deleting an install leaves nothing of it in any table, and the export holds everything first", arguments: StoreBackend.all)
    func deletion(_ backend: StoreBackend) async throws {
        let w = try await MatchingTests.world(backend, settings: AttributionSettingsUpdate(probabilisticMinutes: 30))
        let client = w.server.client(w.key)
        _ = await w.server.follow("/promo", userAgent: UserAgents.iPhone)
        let match = try await MatchingTests.match(w, install: "doomed")
        #expect(match.method == "probabilistic")
        let opened = try await client.post("/v1/resolve", ResolveRequest(url: "https://localhost/promo", platform: "ios", installId: "doomed")).decoded(ResolvedLink.self)
        _ = try await client.post("/v1/events", Self.event("d1", install: "doomed")).decoded(EventResult.self, status: 201)
        _ = try await client.post("/v1/referral-codes", CreateReferralCodeRequest(installId: "doomed")).decoded(ReferralCode.self, status: 201)
        let share = try await client.post("/v1/shares", CreateShareRequest(installId: "doomed", appPath: "/x")).decoded(Share.self, status: 201)
        _ = try await w.server.admin.post("/v1/webhooks", CreateWebhookRequest(workspaceId: w.server.defaultWorkspace.id, url: "https://hooks.example.com/x",
                                                                               topics: ["install", "event"]))
            .decoded(CreatedWebhook.self, status: 201)
        _ = try await client.post("/v1/events", Self.event("d2", type: "LOGIN", install: "doomed")).decoded(EventResult.self, status: 201)
        let ws = w.server.defaultWorkspace.id
        let affiliate = try await w.server.admin.post("/v1/affiliates", CreateAffiliateRequest(workspaceId: ws, name: "A")).decoded(Affiliate.self, status: 201)
        let commission = CommissionRule(kind: "percent", basisPoints: 1000, duration: "lifetime")
        let program = try await w.server.admin.post("/v1/affiliate-programs", CreateProgramRequest(appId: w.app.id, name: "P", commission: commission, holdDays: 0))
            .decoded(AffiliateProgram.self, status: 201)
        _ = try await w.server.admin.post("/v1/affiliates/\(affiliate.id)/codes", CreateAffiliateCodeRequest(programId: program.id, code: "doomcode"))
            .decoded(AffiliateCode.self, status: 201)
        let bind = try await client.post("/v1/app-store/bind", BindRequest(refCode: "DOOMCODE", installId: "doomed")).decoded(BindResponse.self)
        // Another install stays.
        _ = try await MatchingTests.match(w, install: "keeper")
        _ = try await client.post("/v1/events", Self.event("k1", install: "keeper")).decoded(EventResult.self, status: 201)

        let export = try await w.server.admin.get("/v1/installs/doomed/export").decoded(InstallExport.self)
        #expect(export.attribution?.match == match)
        #expect(export.events.map(\.eventId) == ["d1", "d2"])
        #expect(Set(export.visits.map(\.token)) == [match.clickId!, opened.clickToken])
        #expect(export.referralCodes.count == 1)
        #expect(export.sharedLinkIds == [share.linkId])
        #expect(export.affiliateBinds.map(\.appAccountToken).map { $0.lowercased() } == [bind.appAccountToken.lowercased()])
        #expect(export.affiliateBinds.first?.affiliateId == affiliate.id)
        #expect(export.webhookDeliveries.map(\.topic) == ["event"], "the queued payload of its LOGIN event (the webhook came after d1)")
        #expect(export.webhookDeliveries.allSatisfy { $0.payload.contains("doomed") && $0.status == "pending" })

        // A claim a server of an earlier version kept in `click_claims` (as during a rolling upgrade) goes too.
        try await w.server.store.write { db in
            try db.execute("INSERT INTO click_claims (token, app_id, install_id, claimed_at) VALUES ('tok-of-old-server', \(w.app.id), 'doomed', 0)")
        }
        let before = try await Self.everyValue(w.server.store)
        #expect(before.values.joined().contains { $0.contains("doomed") })
        let receipt = try await client.post("/v1/installs/doomed/forget", json: "{}").decoded(DeletionReceipt.self)
        #expect(receipt.deleted["installs"] == 1 && receipt.deleted["events"] == 2 && receipt.deleted["clicks"] == 2)
        #expect(receipt.deleted["referralCodes"] == 1 && receipt.deleted["sharesUnlinked"] == 1 && receipt.deleted["clickClaims"] == 1)
        #expect((receipt.deleted["webhookDeliveries"] ?? 0) >= 1)

        let after = try await Self.everyValue(w.server.store)
        for (table, values) in after {
            #expect(!values.contains { $0.contains("doomed") }, "\(table) still mentions the install")
            let leftover = values.filter { $0.contains(match.clickId!) || $0.contains(opened.clickToken) }
            #expect(leftover.isEmpty, "\(table) still holds its click tokens: \(leftover)")
        }
        #expect(after.values.joined().contains { $0 == "keeper" }, "other installs stay")
        #expect(await w.server.follow("/\(share.path)", userAgent: UserAgents.desktop).status != 404, "the shared link keeps working")
        // Deleting again is harmless and says nothing was left.
        let again = try await w.server.admin.send("DELETE", "/v1/installs/doomed?appId=\(w.app.id)").decoded(DeletionReceipt.self)
        #expect(again.deleted.values.allSatisfy { $0 == 0 })
        await w.server.stop()
    }

    @Test("a publishable key forgets or re-matches an install made with a secret only with that secret; the first secret sent stays", arguments: StoreBackend.all)
    func installSecrets(_ backend: StoreBackend) async throws {
        let w = try await MatchingTests.world(backend)
        let client = w.server.client(w.key)
        func match(_ install: String, secret: String?) async throws -> HTTPResponse {
            try await client.post("/v1/installs/match", MatchInstallRequest(installId: install, platform: "ios", consent: true, installSecret: secret))
        }
        func forget(_ install: String, secret: String?) async -> HTTPResponse {
            await client.send("POST", "/v1/installs/\(install)/forget", headers: secret.map { [("LinkRunway-Install-Secret", $0)] } ?? [], body: Array("{}".utf8))
        }
        #expect(try await match("mine", secret: "the-device-secret-0001").status == 200)
        let stranger = try await match("mine", secret: "someone-elses-secret-02")
        #expect(stranger.errorCode == "install_secret_mismatch" && !stranger.bodyText.contains("method"), "a later match cannot replace the secret, nor read the answer")
        #expect(try await match("mine", secret: nil).errorCode == "install_secret_mismatch")
        #expect(try await match("mine", secret: "the-device-secret-0001").status == 200, "the device itself asks again")
        #expect(await forget("mine", secret: nil).errorCode == "install_secret_mismatch")
        #expect(await forget("mine", secret: "someone-elses-secret-02").errorCode == "install_secret_mismatch")
        #expect(await w.server.admin.get("/v1/installs/mine/attribution").status == 200, "nothing was deleted")
        #expect(try await forget("mine", secret: "the-device-secret-0001").decoded(DeletionReceipt.self).deleted["installs"] == 1)
        #expect(try await w.server.store.read { try $0.query("SELECT * FROM install_secrets").count } == 0, "the secret goes with the install")

        // An install from an SDK that sends no secret can be forgotten as before, until one is sent.
        #expect(try await match("legacy", secret: nil).status == 200)
        #expect(try await match("legacy", secret: "short").errorField == "installSecret")
        #expect(try await match("legacy", secret: "adopted-later-secret-03").status == 200)
        #expect(await forget("legacy", secret: nil).status == 403)
        #expect(await forget("legacy", secret: "adopted-later-secret-03").status == 200)
        #expect(try await match("older", secret: nil).status == 200)
        #expect(await forget("older", secret: nil).status == 200)

        // An hour after its match, an install without a secret takes none, and its answer is no longer given to a
        // re-match: someone who learnt the install id cannot lock the device out of forgetting it, nor read it.
        #expect(try await match("late", secret: nil).status == 200)
        #expect(try await match("late", secret: nil).status == 200, "the SDK's own retry, soon after")
        w.clock.advance(seconds: 3_601)
        #expect(try await match("late", secret: "squatters-secret-000004").errorCode == "install_secret_mismatch")
        #expect(try await match("late", secret: nil).errorCode == "install_secret_mismatch")
        #expect(try await w.server.store.read { try $0.query("SELECT * FROM install_secrets WHERE install_id = 'late'").count } == 0)
        #expect(await forget("late", secret: nil).status == 200, "the device can still forget it")
        await w.server.stop()
    }
}
