import AppleFormats
import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayCrypto
import RunwayHTTP
import RunwayJSON
@testable import RunwayKit
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

@Suite("Affiliates and App Store notifications")
struct AffiliateAPITests {
    struct World {
        let server: TestServer
        let clock: ManualClock
        let signer: AppStoreTestSigner
        let app: App
        let production: CreatedSurface
        let sandbox: CreatedSurface
        let affiliate: Affiliate
        let program: AffiliateProgram
        let code: AffiliateCode
        let client: TestClient
        var workspace: String { server.defaultWorkspace.id }
    }

    static let bundleId = "com.example.affiliate"
    static let appAppleId: Int64 = 1_234_567

    static func world(_ backend: StoreBackend = .sqlite, commission: CommissionRule = CommissionRule(kind: "percent", basisPoints: 3000, duration: "lifetime"),
                      holdDays: Int = 30) async throws -> World {
        let clock = ManualClock(Date())
        let signer = AppStoreTestSigner()
        let server = try await TestServer.start(backend, clock: clock.wall, appStoreRoot: signer.root)
        let workspace = server.defaultWorkspace.id
        let app = try await server.admin.post("/v1/apps", CreateAppRequest(workspaceId: workspace, name: "Subs", teamId: "ABCDE12345", bundleId: bundleId,
                                                                           appStoreId: "\(appAppleId)"))
            .decoded(App.self, status: 201)
        let affiliate = try await server.admin.post("/v1/affiliates", CreateAffiliateRequest(workspaceId: workspace, name: "Alice", externalId: "partner-7"))
            .decoded(Affiliate.self, status: 201)
        let program = try await server.admin.post("/v1/affiliate-programs", CreateProgramRequest(appId: app.id, name: "Creators", commission: commission,
                                                                                                 holdDays: holdDays, offerCode: "ALICE20"))
            .decoded(AffiliateProgram.self, status: 201)
        let code = try await server.admin.post("/v1/affiliates/\(affiliate.id)/codes", CreateAffiliateCodeRequest(programId: program.id, code: "alice"))
            .decoded(AffiliateCode.self, status: 201)
        let key = try await server.createKey(.publishable, app: app.id).secret
        return World(server: server, clock: clock, signer: signer, app: app, production: try await Self.surface(server, app, "production"),
                     sandbox: try await Self.surface(server, app, "sandbox"), affiliate: affiliate, program: program, code: code, client: server.client(key))
    }

    /// An App Store surface of `app` (201 expected).
    static func surface(_ server: TestServer, _ app: App, _ environment: String) async throws -> CreatedSurface {
        try await server.admin.post("/v1/apps/\(app.id)/app-store-surfaces", CreateSurfaceRequest(environment: environment)).decoded(CreatedSurface.self, status: 201)
    }

    static func notify(_ w: World, _ surface: CreatedSurface, _ signedPayload: String) async -> HTTPResponse {
        await w.server.client().post(surface.surface.notificationPath, json: #"{"signedPayload":"\#(signedPayload)"}"#)
    }

    /// `POST /v1/app-store/bind/deferred` from `address`, which the bind matches clicks by.
    static func deferredBind(_ w: World, _ request: DeferredBindRequest, from address: String = "127.0.0.1") async throws -> HTTPResponse {
        await w.client.send("POST", "/v1/app-store/bind/deferred", body: try TestClient.encoded(request), remoteAddress: address)
    }

    static func bind(_ w: World) async throws -> String {
        try await w.client.post("/v1/app-store/bind", BindRequest(refCode: "ALICE")).decoded(BindResponse.self).appAccountToken
    }

    static var nowMilliseconds: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// A payment notification for the world's app.
    static func payment(_ w: World, _ type: String = "DID_RENEW", id: String, original: String? = nil, token: String?, price: Int64 = 9990,
                        currency: String = "USD", freeTrial: Bool = false, uuid: String = UUID().uuidString.lowercased(),
                        environment: String = "Production", purchaseDate: Int64? = nil) -> String {
        let date = purchaseDate ?? w.server.services.clock.nowMilliseconds()
        let transaction = w.signer.transaction(id: id, original: original, bundleId: bundleId, environment: environment, token: token, price: price,
                                               currency: currency, purchaseDate: date, freeTrial: freeTrial)
        return w.signer.notification(type, uuid: uuid, bundleId: bundleId, appAppleId: appAppleId, environment: environment, transaction: transaction,
                                     signedDate: w.server.services.clock.nowMilliseconds())
    }

    static func balance(_ w: World, _ currency: String, test: Bool = false) async throws -> CurrencyBalance? {
        try await w.server.admin.get("/v1/affiliates/\(w.affiliate.id)/balance").decoded(AffiliateBalance.self).balances
            .first { $0.currency == currency && $0.test == test }
    }

    /// Every posting sums to zero, and per currency what the programs cost equals what affiliates hold.
    static func checkLedger(_ server: TestServer) async throws {
        let unbalanced = try await server.store.read { db in
            try db.query("SELECT posting_id, SUM(amount) AS total FROM ledger_entries GROUP BY posting_id").filter { try $0.int("total") != 0 }.count
        }
        #expect(unbalanced == 0, "every posting balances")
        let orphans = try await server.store.read { db in
            try db.first("SELECT COUNT(*) AS n FROM ledger_postings p WHERE NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.posting_id = p.id)")!.int("n")
        }
        #expect(orphans == 0, "no posting without entries")
    }

    @Test("a referred subscription: trial, paid renewals in two currencies, refund, reversal, holding period, payout and clawback",
          arguments: StoreBackend.all)
    func lifecycle(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend)
        let bound = try await w.client.post("/v1/app-store/bind", BindRequest(refCode: "alice", installId: "inst-1")).decoded(BindResponse.self)
        #expect(bound.offerCode == "ALICE20")
        #expect(UUID(uuidString: bound.appAccountToken) != nil)
        let token = bound.appAccountToken
        func result(_ payload: String) async throws -> AppStoreNotificationResult {
            try await Self.notify(w, w.production, payload).decoded(AppStoreNotificationResult.self)
        }
        #expect(try await result(Self.payment(w, "SUBSCRIBED", id: "t1", token: token, freeTrial: true)).status == .trial)
        let renewalUUID = UUID().uuidString.lowercased()
        let renewal = Self.payment(w, id: "t2", original: "t1", token: token, price: 9990, uuid: renewalUUID)
        let paid = try await result(renewal)
        #expect(paid.status == .ok && paid.amount == 299 && paid.currency == "USD", "30% of 9.99 rounded down: \(paid)")
        #expect(try await result(renewal).status == .duplicate, "the same notification UUID again")
        #expect(try await result(Self.payment(w, "OFFER_REDEEMED", id: "t2", original: "t1", token: token)).status == .duplicate,
                "another notification about the same transaction accrues nothing more")
        let yen = try await result(Self.payment(w, id: "t3", original: "t1", token: token, price: 1_200_000, currency: "JPY"))
        #expect(yen.amount == 360 && yen.currency == "JPY", "JPY has no minor unit")
        let dinar = try await result(Self.payment(w, id: "t4", original: "t1", token: token, price: 4_990, currency: "KWD"))
        #expect(dinar.amount == 1497 && dinar.currency == "KWD", "KWD has three decimals")

        let refund = try await result(Self.payment(w, "REFUND", id: "t2", original: "t1", token: token))
        #expect(refund.status == .ok && refund.amount == -299)
        #expect(try await Self.balance(w, "USD")?.pending == 0)
        let reversed = try await result(Self.payment(w, "REFUND_REVERSED", id: "t2", original: "t1", token: token))
        #expect(reversed.status == .ok && reversed.amount == 299)
        #expect(try await Self.balance(w, "USD") == CurrencyBalance(currency: "USD", pending: 299, payable: 0, paid: 0, test: false))

        // Nothing is payable inside the holding period; after it, everything is.
        #expect(try await w.server.admin.post("/v1/affiliates/\(w.affiliate.id)/payouts", CreatePayoutRequest(currency: "USD")).errorCode == "insufficient_balance")
        w.clock.advance(seconds: 31 * 86_400)
        #expect(try await Self.balance(w, "USD") == CurrencyBalance(currency: "USD", pending: 0, payable: 299, paid: 0, test: false))
        let payout = try await w.server.admin.post("/v1/affiliates/\(w.affiliate.id)/payouts", CreatePayoutRequest(currency: "USD", reference: "wire-1"))
            .decoded(LedgerPosting.self, status: 201)
        #expect(payout.kind == "payout" && payout.entries.map(\.amount).reduce(0, +) == 0 && payout.reference == "wire-1")
        #expect(try await Self.balance(w, "USD") == CurrencyBalance(currency: "USD", pending: 0, payable: 0, paid: 299, test: false))

        // A refund after the payout: the affiliate owes it back.
        #expect(try await result(Self.payment(w, "REFUND", id: "t2", original: "t1", token: token)).amount == -299)
        #expect(try await Self.balance(w, "USD") == CurrencyBalance(currency: "USD", pending: 0, payable: -299, paid: 299, test: false))
        #expect(try await Self.balance(w, "JPY")?.payable == 360)

        let report = await w.server.admin.get("/v1/reports/payouts?workspaceId=\(w.workspace)", headers: [("Accept", "text/csv")])
        #expect(report.bodyText.contains("\(w.affiliate.id),Alice,partner-7,JPY,0,360,0,1\r\n"), "\(report.bodyText)")
        #expect(report.bodyText.contains("\(w.affiliate.id),Alice,partner-7,USD,0,-299,299,0\r\n"), "\(report.bodyText)")
        let ledger = try await w.server.admin.get("/v1/affiliates/\(w.affiliate.id)/ledger?limit=200").decoded(Page<LedgerPosting>.self)
        // Postings made within one millisecond have no order between them; the set is what counts.
        #expect(ledger.items.map(\.kind).sorted() == ["accrual", "accrual", "accrual", "clawback", "clawback", "payout", "reaccrual", "release", "release", "release"])
        try await Self.checkLedger(w.server)
        await w.server.stop()
    }

    @Test("every answer of the contract: ignored, ignored_non_production, unattributed, 400 for unverifiable data, 404, 503")
    func statuses() async throws {
        let w = try await Self.world()
        let now = w.server.services.clock.nowMilliseconds()
        let test = w.signer.notification("TEST", bundleId: Self.bundleId, appAppleId: Self.appAppleId, signedDate: now)
        #expect(try await Self.notify(w, w.production, test).decoded(AppStoreNotificationResult.self).status == .ignored)
        let sandbox = Self.payment(w, id: "s1", token: try await Self.bind(w), environment: "Sandbox")
        #expect(try await Self.notify(w, w.production, sandbox).decoded(AppStoreNotificationResult.self).status == .ignoredNonProduction)
        #expect(try await Self.notify(w, w.sandbox, sandbox).decoded(AppStoreNotificationResult.self).status == .ok, "test money on the sandbox surface")
        #expect(try await Self.balance(w, "USD", test: true)?.pending == 299)
        #expect(try await Self.balance(w, "USD") == nil, "test money is kept apart")
        #expect(try await Self.notify(w, w.production, Self.payment(w, id: "n1", token: nil)).decoded(AppStoreNotificationResult.self).status == .unattributed)
        #expect(try await Self.notify(w, w.production, Self.payment(w, id: "n2", token: UUID().uuidString)).decoded(AppStoreNotificationResult.self).status
                == .unattributed, "a token this server never minted")
        let expired = w.signer.notification("EXPIRED", bundleId: Self.bundleId, appAppleId: Self.appAppleId, signedDate: now)
        #expect(try await Self.notify(w, w.production, expired).decoded(AppStoreNotificationResult.self).status == .ignored)

        let otherBundle = w.signer.notification("TEST", bundleId: "com.other", appAppleId: Self.appAppleId, signedDate: now)
        #expect(await Self.notify(w, w.production, otherBundle).errorCode == "app_store_invalid")
        let otherApp = w.signer.notification("TEST", bundleId: Self.bundleId, appAppleId: 99, signedDate: now)
        #expect(await Self.notify(w, w.production, otherApp).errorCode == "app_store_invalid")
        let stranger = AppStoreTestSigner().notification("TEST", bundleId: Self.bundleId, appAppleId: Self.appAppleId, signedDate: now)
        let refused = await Self.notify(w, w.production, stranger)
        #expect(refused.status == 400 && refused.bodyText.contains("VERIFICATION_FAILURE"), "signed under another root")
        for signer in [AppStoreTestSigner(leafOID: false), AppStoreTestSigner(intermediateOID: false)] {
            let unmarked = signer.notification("TEST", bundleId: Self.bundleId, appAppleId: Self.appAppleId, signedDate: now)
            guard case .failure(.verificationFailure(let why)) = AppStoreVerifier(root: signer.root).verify(unmarked) else {
                Issue.record("a chain without Apple's OIDs verified")
                continue
            }
            #expect(why.contains("OID"))
        }
        #expect(await w.server.client().post(w.production.surface.notificationPath, json: "{}").status == 400)
        let garbage = AppStoreNotificationRequest(signedPayload: "a.b.c")
        #expect(try await w.server.client().post(w.production.surface.notificationPath, garbage).status == 400)
        #expect(try await w.server.client().post("/v1/app-store/notifications/sfc_nothing_here", garbage).status == 404)
        let unconfigured = try await TestServer.start()
        let app = try await unconfigured.admin.post("/v1/apps", CreateAppRequest(workspaceId: unconfigured.defaultWorkspace.id, name: "X", teamId: "ABCDE12345",
                                                                                 bundleId: "com.x.y"))
            .decoded(App.self, status: 201)
        let surface = try await Self.surface(unconfigured, app, "sandbox")
        let unavailable = try await unconfigured.client().post(surface.surface.notificationPath, garbage)
        #expect(unavailable.status == 503 && unavailable.errorCode == "app_store_unconfigured")
        #expect(try await unconfigured.admin.post("/v1/apps/\(app.id)/app-store-surfaces", CreateSurfaceRequest(environment: "production")).errorField == "environment",
                "production needs the app's App Store id")
        await unconfigured.stop()
        try await Self.checkLedger(w.server)
        await w.server.stop()
    }

    @Test("forwarded notifications need the surface's HMAC over timestamp and body, within 300 seconds")
    func forwarding() async throws {
        let w = try await Self.world()
        let test = w.signer.notification("TEST", bundleId: Self.bundleId, appAppleId: Self.appAppleId, signedDate: Self.nowMilliseconds)
        let body = try TestClient.encoded(AppStoreNotificationRequest(signedPayload: test))
        func send(secret: String, stamp: Int64, body sent: [UInt8] = body, signed: [UInt8]? = nil) async -> HTTPResponse {
            let mac = Digest.hmacSHA256(key: Array(secret.utf8), message: Array("\(stamp).".utf8) + (signed ?? sent))
            return await w.server.client().send("POST", w.production.surface.forwardingPath,
                                                headers: [("x-ea-timestamp", String(stamp)), ("x-ea-signature", "sha256=" + ByteEncoding.hex(mac))], body: sent)
        }
        let now = Int64(w.clock.now.timeIntervalSince1970)
        let accepted = await send(secret: w.production.forwardingSecret, stamp: now)
        #expect(accepted.status == 200)
        #expect(try accepted.decoded(AppStoreNotificationResult.self).status == .ignored)
        #expect(await send(secret: w.sandbox.forwardingSecret, stamp: now).errorCode == "invalid_signature", "another surface's secret")
        // The window's ends: 300 s either way is in, 301 s is out.
        #expect(await send(secret: w.production.forwardingSecret, stamp: now - 300).status == 200, "300 s old")
        #expect(await send(secret: w.production.forwardingSecret, stamp: now + 300).status == 200, "300 s ahead")
        #expect(await send(secret: w.production.forwardingSecret, stamp: now - 301).status == 401, "too old")
        #expect(await send(secret: w.production.forwardingSecret, stamp: now + 301).status == 401, "too far ahead")
        #expect(await send(secret: w.production.forwardingSecret, stamp: now, signed: body + [32]).status == 401, "the body changed")
        #expect(await w.server.client().post(w.production.surface.forwardingPath, json: String(decoding: body, as: UTF8.self)).status == 401)
        // Times at the ends of the integers are refused, not an overflow (this crashed the server before).
        for stamp in [Int64.min, Int64.max, Int64.min + 1] {
            #expect(await send(secret: w.production.forwardingSecret, stamp: stamp).status == 401, "\(stamp)")
        }
        await w.server.stop()
    }

    @Test("an affiliate's codes are listed, oldest first")
    func codes() async throws {
        let w = try await Self.world()
        _ = try await w.server.admin.post("/v1/affiliates/\(w.affiliate.id)/codes", CreateAffiliateCodeRequest(programId: w.program.id, code: "alice-2"))
            .decoded(AffiliateCode.self, status: 201)
        let codes = try await w.server.admin.get("/v1/affiliates/\(w.affiliate.id)/codes").decoded(Page<AffiliateCode>.self)
        #expect(codes.items.map(\.code) == ["ALICE", "ALICE-2"] && codes.items.allSatisfy { $0.programId == w.program.id } && codes.nextCursor == nil)
        #expect(await w.server.admin.get("/v1/affiliates/aff_none/codes").status == 404)
        await w.server.stop()
    }

    @Test("binds: a code, an affiliate link's signed click id, and a deferred match by address; each refusal with its code")
    func binds() async throws {
        let w = try await Self.world()
        #expect(try await w.client.post("/v1/app-store/bind", BindRequest(refCode: "BOB")).errorCode == "unknown_code")
        #expect(try await w.client.post("/v1/app-store/bind", BindRequest(signedClickId: "x", refCode: "ALICE")).status == 400)
        #expect(await w.client.post("/v1/app-store/bind", json: "{}").status == 400)
        #expect(try await w.client.post("/v1/app-store/bind", BindRequest(signedClickId: "forged.click")).errorCode == "invalid_click")

        let link = try await w.server.admin.post("/v1/affiliates/\(w.affiliate.id)/links", CreateAffiliateLinkRequest(programId: w.program.id, path: "alice"))
            .decoded(Link.self, status: 201)
        let page = await w.server.client().send("GET", "/alice", headers: [("User-Agent", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)")],
                                                remoteAddress: "198.51.100.20")
        let clicked = try #require(page.bodyText.range(of: #"data-click=""#).map { page.bodyText[$0.upperBound...].prefix { $0 != "\"" } })
        let bound = try await w.client.post("/v1/app-store/bind", BindRequest(signedClickId: String(clicked))).decoded(BindResponse.self)
        #expect(bound.offerCode == "ALICE20")
        let stored = try await w.server.store.read { try $0.first("SELECT affiliate_id, method, click_token FROM app_account_tokens WHERE token = \(bound.appAccountToken)")! }
        #expect(try stored.string("affiliate_id") == w.affiliate.id && stored.string("method") == "click" && stored.optionalString("click_token") != nil)
        #expect(link.url.hasSuffix("/alice"))

        // A signed click of another app's affiliate link earns nothing in this app.
        let otherApp = try await w.server.createApp(in: w.workspace)
        let otherProgram = try await w.server.admin.post("/v1/affiliate-programs", CreateProgramRequest(
            appId: otherApp.id, name: "Other", commission: CommissionRule(kind: "percent", basisPoints: 1000, duration: "lifetime"), holdDays: 30
        )).decoded(AffiliateProgram.self, status: 201)
        _ = try await w.server.admin.post("/v1/affiliates/\(w.affiliate.id)/links", CreateAffiliateLinkRequest(programId: otherProgram.id, path: "alice-other"))
            .decoded(Link.self, status: 201)
        let otherPage = await w.server.client().send("GET", "/alice-other", headers: [("User-Agent", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)")],
                                                     remoteAddress: "198.51.100.30")
        let otherClick = try #require(otherPage.bodyText.range(of: #"data-click=""#).map { otherPage.bodyText[$0.upperBound...].prefix { $0 != "\"" } })
        let foreign = try await w.client.post("/v1/app-store/bind", BindRequest(signedClickId: String(otherClick)))
        #expect(foreign.status == 404 && foreign.errorCode == "no_match", "\(foreign.bodyText)")

        func deferred(from address: String) async throws -> HTTPResponse {
            try await Self.deferredBind(w, DeferredBindRequest(surfaceId: w.production.surface.id), from: address)
        }
        #expect(try await deferred(from: "198.51.100.20").decoded(BindResponse.self).offerCode == "ALICE20")
        #expect(try await deferred(from: "198.51.100.21").errorCode == "no_match")
        w.clock.advance(seconds: 61 * 60)
        #expect(try await deferred(from: "198.51.100.20").errorCode == "no_match", "past the program's 60 minutes")
        #expect(try await Self.deferredBind(w, DeferredBindRequest(surfaceId: "sfc_other")).status == 404)

        // A signed click lives seven days: a minute before their end it binds, a minute after it is refused.
        w.clock.advance(seconds: 7 * 86_400 - 61 * 60 - 60)
        #expect(try await w.client.post("/v1/app-store/bind", BindRequest(signedClickId: String(clicked))).status == 200, "a minute before 7 days")
        w.clock.advance(seconds: 120)
        #expect(try await w.client.post("/v1/app-store/bind", BindRequest(signedClickId: String(clicked))).errorCode == "invalid_click", "expired after 7 days")

        // An app that requires App Attest binds only attested installs, so unattested traffic earns nothing.
        _ = try await w.server.admin.patch("/v1/apps/\(w.app.id)", UpdateAppRequest(attestation: AttestationSettings(policy: "required", environments: ["production"])))
            .decoded(App.self)
        w.server.services.apps.forget(appId: w.app.id)
        #expect(try await w.client.post("/v1/app-store/bind", BindRequest(refCode: "ALICE")).errorCode == "attestation_required")
        let expiry = Int64(w.clock.now.timeIntervalSince1970) + 600
        let token = AttestationToken(appId: w.app.id, installId: "inst-9", keyId: "k", environment: "production", expiresAt: expiry).signed(w.server.services.secrets)
        let attested = try await w.client.post("/v1/app-store/bind", BindRequest(refCode: "ALICE", installId: "inst-9", attestation: token))
            .decoded(BindResponse.self)
        #expect(try await w.server.store.read { try $0.first("SELECT attested FROM app_account_tokens WHERE token = \(attested.appAccountToken)")!.bool("attested") })
        #expect(try await w.client.post("/v1/app-store/bind", BindRequest(refCode: "ALICE", installId: "other", attestation: token)).errorCode
                == "attestation_required", "the token is bound to its install")
        await w.server.stop()
    }

    @Test("a deferred bind passes over a click another bind took after the candidates were read", arguments: StoreBackend.all)
    func deferredClaimRace(_ backend: StoreBackend) async throws {
        let location = try await backend.makeLocation()
        let store = try backend.open(location.url, nil)
        _ = try await store.migrate(Schema.migrations)
        @Sendable func click(_ token: String) -> AffiliateRows.AffiliateClick {
            AffiliateRows.AffiliateClick(token: token, createdAt: 1, affiliateId: AffiliateId("aff_r"), programId: ProgramId("prg_r"), offerCode: nil,
                                         deferredMinutes: 60)
        }
        let app = AppId("app_r")
        let (taken, again) = try await store.write { db in
            // Both binds read the same two candidates; the other one claims the first before this one does.
            _ = try AffiliateQueries.claimDeferredClick(db, token: "tok-1", appId: app, claimant: "install:other", now: 1)
            let taken = try BindHandlers.claimFirst(db, [click("tok-1"), click("tok-2")], appId: app, claimant: "install:me", now: 2)
            let again = try BindHandlers.claimFirst(db, [click("tok-1"), click("tok-2")], appId: app, claimant: "install:third", now: 3)
            return (taken?.token, again?.token)
        }
        #expect(taken == "tok-2", "the click the other bind took is not this one's")
        #expect(again == nil, "every candidate is taken")
        await store.close()
    }

    @Test("a deferred bind takes an iPhone or iPad click for one install: not a desktop tap, not everyone behind the address, the install's own click first",
          arguments: StoreBackend.all)
    func deferredClicksClaimedOnce(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend)
        let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)"
        let desktop = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15"
        let first = try await w.server.admin.post("/v1/affiliates/\(w.affiliate.id)/links", CreateAffiliateLinkRequest(programId: w.program.id, path: "tap-one"))
            .decoded(Link.self, status: 201)
        let second = try await w.server.admin.post("/v1/affiliates/\(w.affiliate.id)/links", CreateAffiliateLinkRequest(programId: w.program.id, path: "tap-two"))
            .decoded(Link.self, status: 201)
        func tap(_ path: String, _ agent: String, from address: String) async throws -> String {
            w.clock.advance(seconds: 1)
            _ = await w.server.client().send("GET", path, headers: [("User-Agent", agent)], remoteAddress: address)
            return try await w.server.store.read { db in
                try db.first("SELECT token FROM clicks WHERE kind = 'click' ORDER BY created_at DESC, token LIMIT 1")?.string("token") ?? ""
            }
        }
        func deferred(_ install: String?, from address: String) async throws -> HTTPResponse {
            try await Self.deferredBind(w, DeferredBindRequest(surfaceId: w.production.surface.id, installId: install), from: address)
        }
        func boundClick(_ response: HTTPResponse) async throws -> String? {
            let token = try response.decoded(BindResponse.self).appAccountToken
            return try await w.server.store.read { db in try db.first("SELECT click_token FROM app_account_tokens WHERE token = \(token)")?.optionalString("click_token") }
        }

        // A desktop tap on a campus network earns no bind.
        _ = try await tap("/tap-one", desktop, from: "198.51.100.40")
        #expect(try await deferred("laptop-neighbour", from: "198.51.100.40").errorCode == "no_match")

        // One iPhone tap serves the one install that binds first; a stranger behind the same address gets nothing, and
        // the same install binding again is served the same click.
        let tapped = try await tap("/tap-one", iPhone, from: "198.51.100.41")
        #expect(try await boundClick(await deferred("tapper", from: "198.51.100.41")) == tapped)
        #expect(try await deferred("stranger", from: "198.51.100.41").errorCode == "no_match")
        #expect(try await deferred(nil, from: "198.51.100.41").errorCode == "no_match", "nor a bind that names no install")
        #expect(try await boundClick(await deferred("tapper", from: "198.51.100.41")) == tapped)

        // Two clicks from one address: the install matched to the older one binds that one, not the newest.
        let own = try await tap("/tap-one", iPhone, from: "198.51.100.42")
        w.clock.advance(seconds: 5)
        let newer = try await tap("/tap-two", iPhone, from: "198.51.100.42")
        #expect(own != newer)
        _ = try await w.client.send("POST", "/v1/installs/match",
                                    body: try TestClient.encoded(MatchInstallRequest(installId: "owner", platform: "ios", consent: true, clickToken: own)),
                                    remoteAddress: "198.51.100.42").decoded(InstallMatch.self)
        #expect(try await boundClick(await deferred("owner", from: "198.51.100.42")) == own)
        #expect(try await boundClick(await deferred("neighbour", from: "198.51.100.42")) == newer, "the other click is still there for another")

        // A click matched to an install by its address is that install's: another install's deferred bind gets nothing,
        // the matched install's bind gets that click.
        _ = try await w.server.admin.patch("/v1/apps/\(w.app.id)", UpdateAppRequest(attribution: AttributionSettingsUpdate(probabilisticMinutes: 30)))
            .decoded(App.self)
        let matched = try await tap("/tap-one", iPhone, from: "198.51.100.44")
        let match = try await w.client.send("POST", "/v1/installs/match",
                                            body: try TestClient.encoded(MatchInstallRequest(installId: "by-address", platform: "ios", consent: true)),
                                            remoteAddress: "198.51.100.44").decoded(InstallMatch.self)
        #expect(match.method == "probabilistic" && match.clickId == matched)
        #expect(try await deferred("other-install", from: "198.51.100.44").errorCode == "no_match")
        #expect(try await boundClick(await deferred("by-address", from: "198.51.100.44")) == matched)

        // Many installs behind one address bind at the same instant: one gets the click.
        let contested = try await tap("/tap-two", iPhone, from: "198.51.100.43")
        let answers = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<8 { group.addTask { try await deferred("racer-\(i)", from: "198.51.100.43").status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(answers.filter { $0 == 200 }.count == 1 && answers.filter { $0 == 404 }.count == 7, "\(answers)")
        let binds = try await w.server.store.read { db in
            try db.first("SELECT COUNT(*) AS n FROM app_account_tokens WHERE click_token = \(contested)")?.int("n")
        }
        #expect(binds == 1)
        #expect(first.url.hasSuffix("/tap-one") && second.url.hasSuffix("/tap-two"))
        await w.server.stop()
    }

    @Test("the same notification delivered many times at once accrues once", arguments: StoreBackend.all)
    func concurrentDuplicates(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend)
        let payload = Self.payment(w, id: "c1", token: try await Self.bind(w))
        let statuses = await withTaskGroup(of: String.self) { group in
            for _ in 0..<12 {
                group.addTask { (try? await Self.notify(w, w.production, payload).decoded(AppStoreNotificationResult.self).status.rawValue) ?? "error" }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == "ok" }.count == 1 && statuses.filter { $0 == "duplicate" }.count == 11, "\(statuses)")
        #expect(try await Self.balance(w, "USD")?.pending == 299)
        let accruals = try await w.server.store.read { try $0.first("SELECT COUNT(*) AS n FROM ledger_postings WHERE kind = 'accrual'")!.int("n") }
        #expect(accruals == 1)
        await w.server.stop()
    }

    @Test("first payment only, and payments within N months of the first")
    func durations() async throws {
        let first = try await Self.world(commission: CommissionRule(kind: "fixed", amount: 500, currency: "EUR", duration: "first"))
        let token = try await Self.bind(first)
        let day: Int64 = 86_400_000
        let start = Self.nowMilliseconds
        var amounts: [Int64?] = []
        for (i, date) in [start, start + 30 * day, start + 60 * day].enumerated() {
            amounts.append(try await Self.notify(first, first.production, Self.payment(first, id: "f\(i)", original: "f0", token: token, purchaseDate: date))
                .decoded(AppStoreNotificationResult.self).amount)
        }
        #expect(amounts == [500, 0, 0], "a fixed 5.00 EUR on the first payment only")
        await first.server.stop()

        let months = try await Self.world(commission: CommissionRule(kind: "percent", basisPoints: 5000, duration: "months", months: 2))
        let token2 = try await Self.bind(months)
        amounts = []
        for (i, date) in [start, start + 31 * day, start + 58 * day, start + 62 * day].enumerated() {
            amounts.append(try await Self.notify(months, months.production, Self.payment(months, id: "m\(i)", original: "m0", token: token2, purchaseDate: date))
                .decoded(AppStoreNotificationResult.self).amount)
        }
        #expect(amounts == [499, 499, 499, 0], "half of 9.99, for two calendar months")
        for (rule, field) in [(CommissionRule(kind: "percent", basisPoints: 0, duration: "lifetime"), "commission.basisPoints"),
                              (CommissionRule(kind: "fixed", amount: 100, duration: "lifetime"), "commission.currency"),
                              (CommissionRule(kind: "percent", basisPoints: 10, duration: "months"), "commission.months"),
                              (CommissionRule(kind: "bounty", duration: "lifetime"), "commission.kind")] {
            let refused = try await months.server.admin.post("/v1/affiliate-programs", CreateProgramRequest(appId: months.app.id, name: "X", commission: rule))
            #expect(refused.errorField == field, "\(rule)")
        }
        await months.server.stop()
    }

    @Test("a commission is payable at the end of its holding period, not a second before")
    func holdingPeriodEnd() async throws {
        let w = try await Self.world(holdDays: 30)
        let token = try await Self.bind(w)
        let paid = try await Self.notify(w, w.production, Self.payment(w, id: "h1", token: token, price: 9990)).decoded(AppStoreNotificationResult.self)
        #expect(paid.status == .ok && paid.amount == 299)
        w.clock.advance(seconds: 30 * 86_400 - 1)
        #expect(try await Self.balance(w, "USD") == CurrencyBalance(currency: "USD", pending: 299, payable: 0, paid: 0, test: false), "a second before")
        w.clock.advance(seconds: 1)
        #expect(try await Self.balance(w, "USD") == CurrencyBalance(currency: "USD", pending: 0, payable: 299, paid: 0, test: false), "at the end")
        await w.server.stop()
    }

    @Test("ledger invariants hold over random sequences of notifications, duplicates and payouts")
    func randomSequences() async throws {
        var generator = SeededGenerator(seed: 0x5EED)
        for round in 0..<6 {
            let w = try await Self.world(holdDays: Int.random(in: 0...3, using: &generator))
            let tokens = [try await Self.bind(w), try await Self.bind(w), nil]
            var sent: [String] = []
            var transactions: [String] = []
            for step in 0..<40 {
                let roll = Int.random(in: 0..<100, using: &generator)
                let token = tokens.randomElement(using: &generator)!
                let payload: String
                if roll < 40 || transactions.isEmpty {
                    let id = "r\(round)-\(step)"
                    transactions.append(id)
                    let currency = ["USD", "JPY", "EUR", "KWD"].randomElement(using: &generator)!
                    payload = Self.payment(w, ["SUBSCRIBED", "DID_RENEW", "ONE_TIME_CHARGE"].randomElement(using: &generator)!, id: id, token: token,
                                           price: Int64.random(in: 0...50_000, using: &generator), currency: currency,
                                           freeTrial: Int.random(in: 0..<6, using: &generator) == 0)
                } else if roll < 60 {
                    payload = Self.payment(w, ["REFUND", "REVOKE"].randomElement(using: &generator)!, id: transactions.randomElement(using: &generator)!, token: token)
                } else if roll < 70 {
                    payload = Self.payment(w, "REFUND_REVERSED", id: transactions.randomElement(using: &generator)!, token: token)
                } else if roll < 85, let again = sent.randomElement(using: &generator) {
                    payload = again
                } else {
                    w.clock.advance(seconds: Double(Int.random(in: 0...(2 * 86_400), using: &generator)))
                    if Bool.random(using: &generator) {
                        _ = try await w.server.admin.post("/v1/affiliates/\(w.affiliate.id)/payouts", CreatePayoutRequest(currency: "USD"))
                    }
                    continue
                }
                sent.append(payload)
                let response = await Self.notify(w, w.production, payload)
                #expect(response.status == 200, "\(response.bodyText)")
            }
            try await Self.checkLedger(w.server)
            // The balances are what the live commissions say they are.
            let balances = try await w.server.admin.get("/v1/affiliates/\(w.affiliate.id)/balance").decoded(AffiliateBalance.self).balances
            let live = try await w.server.store.read { db in
                try db.query("SELECT currency, status, SUM(amount) AS total FROM commissions GROUP BY currency, status").map {
                    (try $0.string("currency"), try $0.string("status"), try $0.int("total"))
                }
            }
            for balance in balances {
                let pending = live.filter { $0.0 == balance.currency && $0.1 == "pending" }.map(\.2).reduce(0, +)
                let payable = live.filter { $0.0 == balance.currency && $0.1 == "payable" }.map(\.2).reduce(0, +)
                #expect(balance.pending == pending, "round \(round) \(balance.currency): pending")
                #expect(balance.payable + balance.paid == payable, "round \(round) \(balance.currency): payable and paid cover what was released")
                #expect(balance.pending >= 0 && balance.paid >= 0)
            }
            let perTransaction = try await w.server.store.read { db in
                try db.query("SELECT transaction_id, COUNT(*) AS n FROM commissions WHERE status <> 'reversed' GROUP BY transaction_id").map { try $0.int("n") }
            }
            #expect(perTransaction.allSatisfy { $0 == 1 }, "at most one live commission per transaction")
            await w.server.stop()
        }
    }

    @Test("Apple's own test notifications through the API: TEST is ignored, the sandbox one is dropped by a production surface, the broken ones are 400",
          .enabled(if: AppStoreVectors.available, "../shared/vectors/assn-v2 is absent"))
    func vectorsThroughTheAPI() async throws {
        let root = try #require(AppStoreVerifier.certificate(file: try AppStoreVectors.bytes("apple-library-mock/testCA.der")))
        // The libraries check these at their signedDate (2023); the certificates are valid until 2033.
        let server = try await TestServer.start(appStoreRoot: root)
        let app = try await server.admin.post("/v1/apps", CreateAppRequest(workspaceId: server.defaultWorkspace.id, name: "Example", teamId: "ABCDE12345",
                                                                           bundleId: "com.example", appStoreId: "1234"))
            .decoded(App.self, status: 201)
        let sandbox = try await Self.surface(server, app, "sandbox"), production = try await Self.surface(server, app, "production")
        func send(_ file: String, to surface: CreatedSurface) async throws -> HTTPResponse {
            try await server.client().post(surface.surface.notificationPath, AppStoreNotificationRequest(signedPayload: try AppStoreVectors.jws(file)))
        }
        let test = try await send("apple-library-mock/testNotification.jws", to: sandbox).decoded(AppStoreNotificationResult.self)
        #expect(test.status == .ignored && test.notificationType == "TEST" && test.notificationUUID == "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6")
        #expect(try await send("apple-library-mock/testNotification.jws", to: sandbox).decoded(AppStoreNotificationResult.self).status == .duplicate)
        #expect(try await send("apple-library-mock/testNotification.jws", to: production).decoded(AppStoreNotificationResult.self).status == .ignoredNonProduction)
        let wrongBundle = try await send("apple-library-mock/wrongBundleId.jws", to: sandbox)
        #expect(wrongBundle.status == 400 && wrongBundle.bodyText.contains("INVALID_APP_IDENTIFIER"))
        let missing = try await send("apple-library-mock/missingX5CHeaderClaim.jws", to: sandbox)
        #expect(missing.status == 400 && missing.bodyText.contains("INVALID_JWT_FORMAT"))
        let xcode = try await send("apple-library-mock/xcode-signed-transaction.jws", to: production)
        #expect(xcode.status == 400, "Xcode-signed data never passes in production")
        await server.stop()
    }

    @Test("minor units are written for people in their currency's units")
    func moneyText() {
        #expect(Currency.text(minorUnits: 499, currency: "USD") == "4.99 USD")
        #expect(Currency.text(minorUnits: 5, currency: "EUR") == "0.05 EUR")
        #expect(Currency.text(minorUnits: -1250, currency: "KWD") == "-1.250 KWD")
        #expect(Currency.text(minorUnits: 500, currency: "JPY") == "500 JPY")
        #expect(Currency.text(minorUnits: -7, currency: "USD") == "-0.07 USD")
    }

    @Test("milliunit prices become minor units exactly, by each currency's exponent")
    func currencies() {
        #expect(Currency.minorUnits(milliunits: 9990, currency: "USD") == 999)
        #expect(Currency.minorUnits(milliunits: 1_200_000, currency: "JPY") == 1200)
        #expect(Currency.minorUnits(milliunits: 4990, currency: "KWD") == 4990)
        #expect(Currency.minorUnits(milliunits: 1005, currency: "USD") == 100, "half to even")
        #expect(Currency.minorUnits(milliunits: 1015, currency: "USD") == 102, "half to even")
        #expect(Currency.minorUnits(milliunits: 1500, currency: "JPY") == 2)
        #expect(CommissionRules.amount(CommissionRule(kind: "percent", basisPoints: 3333, duration: "lifetime"), price: 9990, currency: "USD") == Money(minorUnits: 332, currency: "USD"))
    }

    @Test("deleting an install unlinks its affiliate binds; the token and whom it credits stay")
    func deletionUnlinksBinds() async throws {
        let w = try await Self.world()
        _ = try await w.client.post("/v1/installs/match", MatchInstallRequest(installId: "gone", platform: "ios", consent: true)).decoded(InstallMatch.self)
        let bound = try await w.client.post("/v1/app-store/bind", BindRequest(refCode: "alice", installId: "gone")).decoded(BindResponse.self)
        let receipt = try await w.client.post("/v1/installs/gone/forget", json: "{}").decoded(DeletionReceipt.self)
        #expect(receipt.deleted["affiliateBindsUnlinked"] == 1)
        let row = try await w.server.store.read { try $0.first("SELECT install_id, affiliate_id FROM app_account_tokens WHERE token = \(bound.appAccountToken)") }
        #expect(try row?.optionalString("install_id") == nil)
        #expect(try row?.string("affiliate_id") == w.affiliate.id)
        await w.server.stop()
    }
}
