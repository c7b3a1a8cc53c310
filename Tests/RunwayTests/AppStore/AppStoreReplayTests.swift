import AppleFormats
import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayCLI
import RunwayCrypto
@testable import RunwayDevTools
import RunwayHTTP
import RunwayJSON
@testable import RunwayKit
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

/// Replaying App Store notifications from the App Store Server API's history, against the stand-in that checks the
/// JWT as Apple documents it.
@Suite("App Store notification replay")
struct AppStoreReplayTests {
    static let bundleId = "com.example.replay"
    static let appAppleId: Int64 = 7_654_321
    static let issuerId = "57246542-96fe-1a63-e053-0824d011072a"
    static let keyId = "2X9R4HXF34"

    /// A server whose App Store root is a test authority's, an app with a production surface, an affiliate program,
    /// and a stand-in for Apple's API that knows the app's key.
    struct World {
        let server: TestServer
        let signer: AppStoreTestSigner
        let fake: FakeAppStoreServerAPI
        let key: PrivateKey
        let app: App
        let surface: CreatedSurface
        let publishable: TestClient

        var replayPath: String { "/v1/apps/\(app.id)/app-store/replay" }
        var keyPath: String { "/v1/apps/\(app.id)/app-store-key" }
        var now: Int64 { server.services.clock.nowMilliseconds() }

        func setKey(_ key: PrivateKey? = nil, keyId: String = AppStoreReplayTests.keyId) async throws {
            let pem = try #require((key ?? self.key).pem)
            let body = try TestClient.encoded(SetAppStoreKeyRequest(issuerId: issuerId, keyId: keyId, privateKey: pem))
            _ = try await server.admin.send("PUT", keyPath, body: Array(body)).decoded(AppStoreKeyStatus.self)
        }

        func replay(since: Int64, until: Int64? = nil, token: String? = nil, environment: String? = nil) async throws -> HTTPResponse {
            let request = ReplayNotificationsRequest(environment: environment, since: Timestamp.iso(since), until: until.map(Timestamp.iso),
                                                     paginationToken: token)
            return await server.admin.send("POST", replayPath, body: try TestClient.encoded(request))
        }

        /// Every page of the span, added up.
        func replayAll(since: Int64) async throws -> (pages: Int, fetched: Int, new: Int, duplicate: Int, refusals: [ReplayRefusal]) {
            var total = (pages: 0, fetched: 0, new: 0, duplicate: 0, refusals: [ReplayRefusal]())
            var token: String?, until: Int64?
            repeat {
                let page = try await replay(since: since, until: until, token: token).decoded(NotificationReplayPage.self)
                #expect(page.surfaceId == surface.surface.id && page.environment == "production")
                #expect(page.fetched == page.new + page.duplicate + page.refused && page.refused == page.refusals.count)
                total.pages += 1
                total.fetched += page.fetched
                total.new += page.new
                total.duplicate += page.duplicate
                total.refusals += page.refusals
                token = page.paginationToken
                until = ISOTime.milliseconds(page.until)
            } while token != nil
            return total
        }

        func notification(_ type: String = "TEST", uuid: String = UUID().uuidString.lowercased(), bundleId: String = AppStoreReplayTests.bundleId,
                          transaction: String? = nil, minutesAgo: Int64) -> String {
            signer.notification(type, uuid: uuid, bundleId: bundleId, appAppleId: appAppleId, transaction: transaction,
                                signedDate: now - minutesAgo * 60_000)
        }
    }

    static func world(apiURL: String? = nil, pageSize: Int = 20) async throws -> World {
        let signer = AppStoreTestSigner()
        let key = try #require(PrivateKey.generateP256())
        let fake = try FakeAppStoreServerAPI(credentials: .init(issuerId: issuerId, keyId: keyId, bundleId: bundleId, publicKey: try #require(key.publicKey)),
                                             pageSize: pageSize, logger: Logger(level: .error))
        let server = try await TestServer.start(appStoreRoot: signer.root, appStoreAPIURL: apiURL ?? fake.baseURL)
        let workspace = server.defaultWorkspace.id
        let app = try await server.createApp(in: workspace, bundleId: bundleId, appStoreId: String(appAppleId))
        let surface = try await server.admin.post("/v1/apps/\(app.id)/app-store-surfaces", CreateSurfaceRequest(environment: "production"))
            .decoded(CreatedSurface.self, status: 201)
        return World(server: server, signer: signer, fake: fake, key: key, app: app, surface: surface,
                     publishable: server.client(try await server.createKey(.publishable, app: app.id).secret))
    }

    /// Delivers a notification straight to the surface, as Apple does.
    static func deliver(_ w: World, _ signedPayload: String) async -> HTTPResponse {
        await w.server.client().post(w.surface.surface.notificationPath, json: #"{"signedPayload":"\#(signedPayload)"}"#)
    }

    static func stop(_ w: World) async {
        await w.fake.server.shutdown(grace: .seconds(1))
        await w.server.stop()
    }

    @Test("the key is stored sealed and never returned; replay pages through the history, and a second replay only finds duplicates")
    func replayPagesAndIsIdempotent() async throws {
        let w = try await Self.world()
        let hourAgo = w.now - 3_600_000

        // Without a key there is nothing to ask Apple with; without a sandbox surface nothing to replay sandbox to.
        #expect(try await w.replay(since: hourAgo).errorCode == "app_store_key_missing")
        #expect(try await w.server.admin.get(w.keyPath).decoded(AppStoreKeyStatus.self) == AppStoreKeyStatus(configured: false))
        func put(issuerId: String = Self.issuerId, keyId: String = Self.keyId, privateKey: String) async throws -> HTTPResponse {
            let body = try TestClient.encoded(SetAppStoreKeyRequest(issuerId: issuerId, keyId: keyId, privateKey: privateKey))
            return await w.server.admin.send("PUT", w.keyPath, body: Array(body))
        }
        let pem = try #require(w.key.pem)
        #expect(try await put(issuerId: "issuer", privateKey: pem).errorField == "issuerId")
        #expect(try await put(keyId: "short", privateKey: pem).errorField == "keyId")
        #expect(try await put(privateKey: "not a key").errorField == "privateKey")
        let p192 = try #require(PrivateKey.generate(curve: "P-192")?.pem)
        #expect(try await put(privateKey: p192).errorField == "privateKey", "Apple's keys are P-256")
        let set = try await put(privateKey: pem)
        #expect(set.status == 200 && !String(decoding: set.body, as: UTF8.self).contains("PRIVATE"))
        let shown = await w.server.admin.get(w.keyPath)
        #expect(try shown.decoded(AppStoreKeyStatus.self).keyId == Self.keyId && !String(decoding: shown.body, as: UTF8.self).contains("PRIVATE"))
        let stored = try await w.server.store.read { db in try db.first("SELECT private_key FROM app_store_api_keys")?.string("private_key") }
        #expect(stored.map(SecretBox.isSealed) == true && stored?.contains("PRIVATE") == false, "sealed at rest")
        #expect(try await w.replay(since: hourAgo, environment: "sandbox").errorField == "environment")
        #expect(try await w.replay(since: w.now - 181 * 86_400_000).errorField == "since", "Apple keeps 180 days")
        #expect(try await w.replay(since: w.now - 31 * 86_400_000, environment: "sandbox").errorField == "since", "and 30 in sandbox")

        // A purchase referred by an affiliate, whose notification the server missed.
        let affiliate = try await w.server.admin.post("/v1/affiliates", CreateAffiliateRequest(workspaceId: w.server.defaultWorkspace.id, name: "Ann"))
            .decoded(Affiliate.self, status: 201)
        let program = try await w.server.admin.post("/v1/affiliate-programs",
                                                    CreateProgramRequest(appId: w.app.id, name: "P",
                                                                         commission: CommissionRule(kind: "percent", basisPoints: 1000, duration: "lifetime")))
            .decoded(AffiliateProgram.self, status: 201)
        _ = try await w.server.admin.post("/v1/affiliates/\(affiliate.id)/codes", CreateAffiliateCodeRequest(programId: program.id, code: "ann"))
            .decoded(AffiliateCode.self, status: 201)
        let token = try await w.publishable.post("/v1/app-store/bind", BindRequest(refCode: "ann")).decoded(BindResponse.self).appAccountToken
        let purchase = w.signer.transaction(id: "tx-replayed", bundleId: Self.bundleId, token: token, price: 9990, purchaseDate: w.now - 50 * 60_000)

        // 44 notifications of this app (one of them already delivered), and one of another app's, spread over 45 minutes.
        let delivered = w.notification(minutesAgo: 40)
        var history = [w.notification("SUBSCRIBED", transaction: purchase, minutesAgo: 45), delivered,
                       w.notification(bundleId: "com.example.stranger", minutesAgo: 30)]
        history += (1...42).map { w.notification(minutesAgo: Int64($0 % 29)) }
        #expect(w.fake.add(history))
        // Outside the span: not fetched.
        #expect(w.fake.add([w.notification(minutesAgo: 70)]))
        #expect(await Self.deliver(w, delivered).status == 200)

        let first = try await w.replayAll(since: hourAgo)
        #expect(first.pages == 3 && first.fetched == 45, "20 a page: \(first)")
        #expect(first.new == 43 && first.duplicate == 1 && first.refusals.count == 1, "\(first)")
        #expect(first.refusals.first?.code == "app_store_invalid" && first.refusals.first?.message.contains("INVALID_APP_IDENTIFIER") == true,
                "\(first.refusals)")
        let balance = try await w.server.admin.get("/v1/affiliates/\(affiliate.id)/balance").decoded(AffiliateBalance.self)
        #expect(balance.balances.first { $0.currency == "USD" }?.pending == 99, "10% of 9.99, accrued from the replayed SUBSCRIBED")

        let again = try await w.replayAll(since: hourAgo)
        #expect(again.fetched == 45 && again.new == 0 && again.duplicate == 44 && again.refusals.count == 1, "\(again)")
        let unchanged = try await w.server.admin.get("/v1/affiliates/\(affiliate.id)/balance").decoded(AffiliateBalance.self)
        #expect(unchanged.balances.first { $0.currency == "USD" }?.pending == 99, "a replay pays nothing twice")
        #expect(w.fake.refusals.isEmpty, "every token was good: \(w.fake.refusals)")

        // A retry with the same Idempotency-Key gets the first answer.
        let request = try TestClient.encoded(ReplayNotificationsRequest(since: Timestamp.iso(hourAgo), until: Timestamp.iso(w.now)))
        let keyed = await w.server.admin.send("POST", w.replayPath, headers: [("Idempotency-Key", "replay-1")], body: request)
        let retried = await w.server.admin.send("POST", w.replayPath, headers: [("Idempotency-Key", "replay-1")], body: request)
        #expect(keyed.status == 200 && retried.body == keyed.body && retried.headers["Idempotent-Replayed"] == "true")
        await Self.stop(w)
    }

    @Test("a key Apple does not accept is a clear 409, and an API that does not answer a 502")
    func refusedKeyAndUnreachableAPI() async throws {
        let w = try await Self.world()
        let stranger = try #require(PrivateKey.generateP256())
        try await w.setKey(stranger)
        let refused = try await w.replay(since: w.now - 3_600_000)
        #expect(refused.status == 409 && refused.errorCode == "app_store_key_rejected", "\(String(decoding: refused.body, as: UTF8.self))")
        #expect(w.fake.refusals.last == "the signature does not verify with the key")
        try await w.setKey(keyId: "ZZZZZZZZZZ")
        #expect(try await w.replay(since: w.now - 3_600_000).errorCode == "app_store_key_rejected")
        #expect(w.fake.refusals.last == "kid is not the key id")
        await Self.stop(w)

        let down = try await Self.world(apiURL: "http://127.0.0.1:1")
        try await down.setKey()
        let unreachable = try await down.replay(since: down.now - 3_600_000)
        #expect(unreachable.status == 502 && unreachable.errorCode == "app_store_api_failed")
        await Self.stop(down)
    }

    @Test("the stand-in checks every part of the JWT as Apple documents it")
    func standInChecksTheToken() throws {
        let key = try #require(PrivateKey.generateP256())
        let fake = try FakeAppStoreServerAPI(credentials: .init(issuerId: Self.issuerId, keyId: Self.keyId, bundleId: Self.bundleId,
                                                                publicKey: try #require(key.publicKey)), logger: Logger(level: .error))
        defer { Task { await fake.server.shutdown(grace: .seconds(1)) } }
        let good = AppStoreServerAPIToken(issuerId: Self.issuerId, keyId: Self.keyId, bundleId: Self.bundleId, key: key)
        #expect(fake.refusal("Bearer " + (good.signed(now: Date()) ?? "")) == nil, "the server's own token passes")
        let decoded = try CompactJWS.parse(good.signed(now: Date()) ?? "")
        #expect(decoded.header["alg"] == "ES256" && decoded.header["typ"] == "JWT" && decoded.header["kid"]?.stringValue == Self.keyId)
        #expect(decoded.payload["aud"] == "appstoreconnect-v1" && decoded.payload["bid"]?.stringValue == Self.bundleId)

        let now = Int64(Date().timeIntervalSince1970)
        func token(header: JSONValue = ["alg": "ES256", "kid": .string(AppStoreReplayTests.keyId), "typ": "JWT"],
                   iss: String = AppStoreReplayTests.issuerId, aud: String = "appstoreconnect-v1", bid: String = AppStoreReplayTests.bundleId,
                   iat: Int64 = now, exp: Int64 = now + 300, signer: PrivateKey = key) -> String {
            let claims: JSONValue = ["iss": .string(iss), "iat": .number(String(iat)), "exp": .number(String(exp)), "aud": .string(aud), "bid": .string(bid)]
            return "Bearer " + (CompactJWS.sign(payload: claims, header: header, key: signer) ?? "")
        }
        #expect(fake.refusal(token()) == nil)
        #expect(fake.refusal(nil) == "no bearer token")
        #expect(fake.refusal(token(header: ["alg": "ES256", "kid": .string(Self.keyId)])) == "typ is not JWT")
        #expect(fake.refusal(token(header: ["alg": "ES256", "kid": "OTHERKEY01", "typ": "JWT"])) == "kid is not the key id")
        #expect(fake.refusal(token(signer: try #require(PrivateKey.generateP256()))) == "the signature does not verify with the key")
        #expect(fake.refusal(token(iss: "someone")) == "iss is not the issuer id")
        #expect(fake.refusal(token(aud: "appstoreconnect-v2")) == "aud is not appstoreconnect-v1")
        #expect(fake.refusal(token(bid: "com.example.other")) == "bid is not the bundle id")
        #expect(fake.refusal(token(iat: now - 600, exp: now - 1)) == "the token has expired")
        #expect(fake.refusal(token(exp: now + 3601)) == "exp is more than an hour after iat")
        #expect(fake.refusal(token(iat: now + 600, exp: now + 900)) == "iat is in the future")
        #expect(good.signed(now: Date(), lifetimeSeconds: 7200).flatMap { fake.refusal("Bearer " + $0) } == nil, "the lifetime is capped at an hour")
    }

    @Test("app-store key set and replay from the command line, against a real server and the stand-in")
    func commandLine() async throws {
        let signer = AppStoreTestSigner()
        let key = try #require(PrivateKey.generateP256())
        let fake = try FakeAppStoreServerAPI(credentials: .init(issuerId: Self.issuerId, keyId: Self.keyId, bundleId: Self.bundleId,
                                                                publicKey: try #require(key.publicKey)), pageSize: 2, logger: Logger(level: .error))
        let directory = TemporaryDirectory()
        let rootFile = directory.path("root.der")
        try Data(signer.root.der).write(to: URL(fileURLWithPath: rootFile))
        var configuration = ServerConfiguration(database: .sqlite(path: directory.path("replay.db")))
        configuration.http.port = 0
        configuration.logLevel = .error
        configuration.appStoreRootPath = rootFile
        configuration.capabilities[AppStoreAPISettings.self].url = fake.baseURL
        let runtime = try await ServerRuntime.start(configuration, logSink: .memory())
        let environment = ["LINKRUNWAY_URL": "http://127.0.0.1:\(runtime.port)", "LINKRUNWAY_KEY": try #require(runtime.bootstrap?.adminKey),
                           "LINKRUNWAY_PROGRESS": "never"]
        func run(_ arguments: [String]) async -> CLITests.Run { await CLITests.run(arguments, environment: environment) }
        let created = await run(["app", "create", "--name", "Replay", "--team-id", "ABCDE12345", "--bundle-id", Self.bundleId,
                                 "--app-store-id", String(Self.appAppleId), "--json"])
        let app = try JSONDecoder().decode(App.self, from: Data(created.output.utf8))
        #expect(await run(["app-store", "surface", "--app", app.id, "--environment", "production"]).status == 0)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(fake.add((1...5).map { signer.notification("TEST", bundleId: Self.bundleId, appAppleId: Self.appAppleId, signedDate: now - Int64($0) * 60_000) }))

        let keyFile = directory.path("AuthKey_\(Self.keyId).p8")
        try Data(try #require(key.pem).utf8).write(to: URL(fileURLWithPath: keyFile))
        let stored = await run(["app-store", "key", "set", "--app", app.id, "--key-file", keyFile, "--issuer-id", Self.issuerId])
        #expect(stored.status == 0 && stored.output.contains("Stored In-App Purchase key \(Self.keyId)"), "\(stored.errors)")
        #expect(await run(["app-store", "key", "show", "--app", app.id]).output.contains("Key \(Self.keyId) of issuer \(Self.issuerId)"))

        let replayed = await run(["app-store", "replay", "--app", app.id, "--since", "1h", "--json"])
        #expect(replayed.status == 0, "\(replayed.errors)")
        let summary = try JSONParser().parse(replayed.output)
        #expect(summary["pages"]?.int64Value == 3 && summary["fetched"]?.int64Value == 5 && summary["new"]?.int64Value == 5, "\(replayed.output)")
        let again = await run(["app-store", "replay", "--app", app.id, "--since", "1h"])
        #expect(again.output.contains("5 notifications: 0 new, 5 duplicate, 0 refused"), "\(again.output)")

        // Another key with the same id: Apple would answer 401, and the command says what to check.
        let wrongFile = directory.path("wrong.p8")
        try Data(try #require(PrivateKey.generateP256()?.pem).utf8).write(to: URL(fileURLWithPath: wrongFile))
        #expect(await run(["app-store", "key", "set", "--app", app.id, "--key-file", wrongFile, "--issuer-id", Self.issuerId]).status == 64,
                "the key id cannot come from this file's name")
        #expect(await run(["app-store", "key", "set", "--app", app.id, "--key-file", wrongFile, "--key-id", Self.keyId, "--issuer-id", Self.issuerId]).status == 0)
        let rejected = await run(["app-store", "replay", "--app", app.id, "--since", "1h"])
        #expect(rejected.status == 1 && rejected.errors.contains("app_store_key_rejected") && rejected.errors.contains("issuer id"), "\(rejected.errors)")
        #expect(await run(["app-store", "key", "delete", "--app", app.id]).status == 0)
        #expect(await run(["app-store", "key", "show", "--app", app.id]).output.contains("No In-App Purchase key"))
        await fake.server.shutdown(grace: .seconds(1))
        await runtime.stop()
        _ = directory
    }
}
