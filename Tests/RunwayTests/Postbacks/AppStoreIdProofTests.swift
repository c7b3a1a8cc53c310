import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
import RunwayCrypto
import RunwayDevTools
import RunwayHTTP
import RunwayJSON
import RunwayStore
import RunwayTestKit
import Testing

/// App Store ids are not first come, first served: postbacks follow the app that proved its id, are kept unrouted
/// until one does, and move to it when it does.
@Suite("App Store ids proven before postbacks follow them")
struct AppStoreIdProofTests {
    static let appStoreId: Int64 = 525_463_029
    static let bundleId = "com.example.ads"

    struct World {
        let server: TestServer
        let signer: AppStoreTestSigner
        let squatterKey: String
        let ownerKey: String
        let squatter: App
        let owner: App
    }

    /// Two workspaces name the same App Store id with server keys, the squatter first; neither has proven it.
    static func world(_ backend: StoreBackend) async throws -> World {
        let signer = AppStoreTestSigner()
        let server = try await TestServer.start(backend, appStoreRoot: signer.root)
        let squatterKey = try await server.createKey(.server, workspace: try await server.createWorkspace("Squatter").id).secret
        let ownerKey = try await server.createKey(.server, workspace: try await server.createWorkspace("Owner").id).secret
        // The same bundle id under another team: a signed app transaction of the real app verifies for it too.
        let squatter = try await server.client(squatterKey).post("/v1/apps", Self.app("Squat", team: "ZZZZZ99999")).decoded(App.self, status: 201)
        let forwarding = PostbackSettings(acceptDevelopment: false, forwardUrls: ["https://partner.example.com/pb"], campaigns: [])
        let owner = try await server.client(ownerKey).post("/v1/apps", Self.app("Ads", team: "ABCDE12345", postbacks: forwarding)).decoded(App.self, status: 201)
        return World(server: server, signer: signer, squatterKey: squatterKey, ownerKey: ownerKey, squatter: squatter, owner: owner)
    }

    /// An app named `name` of `team` with this bundle id and App Store id.
    static func app(_ name: String, team: String, postbacks: PostbackSettings? = nil) -> CreateAppRequest {
        CreateAppRequest(name: name, teamId: team, bundleId: bundleId, appStoreId: String(appStoreId), postbacks: postbacks)
    }

    static func postback(_ w: World, _ file: String) async throws -> PostbackReceipt {
        try await PostbackAPITests.post(PostbackAPITests.World(server: w.server, clock: ManualClock(Date()), app: w.owner),
                                        PostbackAPITests.skadPath, try PostbackVectors.bytes("skadnetwork/postbacks/\(file)")).decoded(PostbackReceipt.self)
    }

    static func routedTo(_ w: World, _ receipt: PostbackReceipt) async throws -> String? {
        try await w.server.store.read { db in try db.first("SELECT app_id FROM postbacks WHERE id = \(receipt.id)")!.optionalString("app_id") }
    }

    static func status(_ w: World, key: String, app: App) async throws -> AppStoreIdStatus {
        try await PostbackAPITests.storeIdStatus(w.server.client(key), app.id)
    }

    /// A verified TEST notification at the owner's production surface.
    static func notify(_ w: World, app: App, key: String) async throws -> AppStoreNotificationResult {
        let surface = try await w.server.client(key).post("/v1/apps/\(app.id)/app-store-surfaces", CreateSurfaceRequest(environment: "production"))
            .decoded(CreatedSurface.self, status: 201)
        let payload = w.signer.notification("TEST", bundleId: bundleId, appAppleId: appStoreId, signedDate: w.server.services.clock.nowMilliseconds())
        return try await w.server.client().post(surface.surface.notificationPath, json: #"{"signedPayload":"\#(payload)"}"#)
            .decoded(AppStoreNotificationResult.self)
    }

    @Test("naming an App Store id first takes nothing; postbacks wait unrouted, a signed app transaction proves it weakly, a notification takes it and its postbacks",
          .enabled(if: PostbackVectors.available, "../shared/vectors is absent"), arguments: StoreBackend.all)
    func proofs(_ backend: StoreBackend) async throws {
        let w = try await Self.world(backend)
        #expect(w.squatter.appStoreIdRouting == "awaiting_proof" && w.owner.appStoreIdRouting == "awaiting_proof")
        let waiting = try await Self.postback(w, "com.example-2.1.json")
        #expect(waiting.status == "valid")
        #expect(try await Self.routedTo(w, waiting) == nil, "nobody proved the id: kept unrouted")

        // The squatter holds a customer's signed app transaction of the real app and matches with it.
        let squatterApp = try await w.server.createKey(.publishable, app: w.squatter.id).secret
        let signed = w.signer.appTransaction(id: "990000000000000001", bundleId: Self.bundleId, appAppleId: Self.appStoreId,
                                             signedDate: w.server.services.clock.nowMilliseconds())
        _ = try await w.server.client(squatterApp).post("/v1/installs/match", MatchInstallRequest(installId: "sq-1", platform: "ios", consent: true, signedAppTransaction: signed))
            .decoded(InstallMatch.self)
        let weak = try await Self.status(w, key: w.squatterKey, app: w.squatter)
        #expect(weak.proven && weak.proof == "app_transaction")
        #expect(try await Self.routedTo(w, waiting) == w.squatter.id, "the unrouted postback moved with the proof")

        // The owner's production surface receives Apple's notification: a stronger proof takes the id and its postbacks.
        #expect(try await Self.notify(w, app: w.owner, key: w.ownerKey).status == .ignored)
        let owned = try await Self.status(w, key: w.ownerKey, app: w.owner)
        #expect(owned.proven && owned.proof == "notification")
        #expect(try await !Self.status(w, key: w.squatterKey, app: w.squatter).proven)
        #expect(try await Self.routedTo(w, waiting) == w.owner.id)
        // Each app says where its id's postbacks go, in the API (and so on the console's app page).
        #expect(try await w.server.client(w.ownerKey).get("/v1/apps/\(w.owner.id)").decoded(App.self).appStoreIdRouting == "this_app")
        let lost = try await w.server.client(w.squatterKey).get("/v1/apps/\(w.squatter.id)").decoded(App.self)
        #expect(lost.appStoreIdRouting == "another_app")
        let listed = try await w.server.client(w.squatterKey).get("/v1/apps").decoded(Page<App>.self)
        #expect(listed.items.map(\.appStoreIdRouting) == ["another_app"])
        // The console's app pages say it in words.
        let (visitor, _) = await ConsoleAppStoreTests.visitor(w.server)
        let lostPage = await visitor.send("GET", "/console/apps/\(w.squatter.id)?ws=\(w.squatter.workspaceId)")
        #expect(lostPage.status == 200 && lostPage.bodyText.contains(#"<dd id="app-store-id-routing">Another app proved App Store id \#(Self.appStoreId) and receives its postbacks."#),
                "\(lostPage.bodyText)")
        let ownPage = await visitor.send("GET", "/console/apps/\(w.owner.id)?ws=\(w.owner.workspaceId)")
        #expect(ownPage.bodyText.contains(#"<dd id="app-store-id-routing">Postbacks for App Store id \#(Self.appStoreId) come to this app.</dd>"#))
        let forwards = try await w.server.store.read { db in
            try db.first("SELECT COUNT(*) AS n FROM postback_forwards WHERE postback_id = \(waiting.id) AND app_id = \(w.owner.id)")!.int("n")
        }
        #expect(forwards == 1, "the moved postback is forwarded to the owner's partner, as on arrival")
        let next = try await Self.postback(w, "com.example-2.2.json")
        #expect(try await Self.routedTo(w, next) == w.owner.id)
        #expect(try await Self.postback(w, "com.example-2.1.json").status == "duplicate", "a replay after the move is still a duplicate")

        // The squatter's weaker proof again takes nothing; the squatter's own notifications cannot name the app.
        _ = try await w.server.client(squatterApp).post("/v1/installs/match", MatchInstallRequest(installId: "sq-2", platform: "ios", consent: true, signedAppTransaction: signed))
            .decoded(InstallMatch.self)
        #expect(try await Self.status(w, key: w.ownerKey, app: w.owner).proof == "notification")

        // An admin may assert the id; a second admin assertion elsewhere is 409 and names nobody.
        let asserted = try await w.server.admin.post("/v1/apps/\(w.squatter.id)/app-store-id/prove", json: "{}").decoded(AppStoreIdStatus.self)
        #expect(asserted.proven && asserted.proof == "admin" && asserted.postbacksMoved == 3, "the two postbacks and the replay")
        let again = await w.server.admin.post("/v1/apps/\(w.owner.id)/app-store-id/prove", json: "{}")
        #expect(again.status == 409 && again.errorCode == "app_identity_taken" && !again.bodyText.contains(w.squatter.id))
        #expect(await w.server.client(w.ownerKey).post("/v1/apps/\(w.owner.id)/app-store-id/prove", json: "{}").status == 403, "a server key cannot assert")
        await w.server.stop()
    }

    @Test("the App Store Server API proves an App Store id: Apple's TEST notification, asked for with the app's In-App Purchase key, routes the id to the app; another key proves nothing",
          arguments: StoreBackend.all)
    func serverAPIProof(_ backend: StoreBackend) async throws {
        let signer = AppStoreTestSigner()
        let key = try #require(PrivateKey.generateP256())
        let issuer = "57246542-96fe-1a63-e053-0824d011072a", keyId = "2X9R4HXF34"
        let fake = try FakeAppStoreServerAPI(
            credentials: .init(issuerId: issuer, keyId: keyId, bundleId: Self.bundleId, publicKey: try #require(key.publicKey)),
            testNotification: { signer.notification("TEST", bundleId: Self.bundleId, appAppleId: Self.appStoreId, signedDate: Int64(Date().timeIntervalSince1970 * 1000)) },
            statusNotFoundTimes: 1, logger: Logger(level: .error))
        let server = try await TestServer.start(backend, appStoreRoot: signer.root, appStoreAPIURL: fake.baseURL)
        let squatterKey = try await server.createKey(.server, workspace: try await server.createWorkspace("Squatter").id).secret
        let ownerKey = try await server.createKey(.server, workspace: try await server.createWorkspace("Owner").id).secret
        func app(_ key: String, team: String) async throws -> App {
            let app = try await server.client(key).post("/v1/apps", Self.app("A", team: team)).decoded(App.self, status: 201)
            _ = try await server.client(key).post("/v1/apps/\(app.id)/app-store-surfaces", CreateSurfaceRequest(environment: "production")).decoded(CreatedSurface.self, status: 201)
            return app
        }
        func setKey(_ client: TestClient, _ app: App, _ pem: String) async throws {
            let body = try TestClient.encoded(SetAppStoreKeyRequest(issuerId: issuer, keyId: keyId, privateKey: pem))
            _ = try await client.send("PUT", "/v1/apps/\(app.id)/app-store-key", body: Array(body)).decoded(AppStoreKeyStatus.self)
        }
        let squatter = try await app(squatterKey, team: "ZZZZZ99999")
        let owner = try await app(ownerKey, team: "ABCDE12345")
        let ownerClient = server.client(ownerKey), squatterClient = server.client(squatterKey)
        #expect(await ownerClient.post("/v1/apps/\(owner.id)/app-store/test-notification", json: "{}").errorCode == "app_store_key_missing")

        // The squatter's key is not the developer's: Apple refuses it, and nothing is proven.
        try await setKey(squatterClient, squatter, try #require(PrivateKey.generateP256()?.pem))
        #expect(await squatterClient.post("/v1/apps/\(squatter.id)/app-store/test-notification", json: "{}").errorCode == "app_store_key_rejected")
        #expect(try await server.services.apps.apps(appStoreId: String(Self.appStoreId)).isEmpty, "postbacks stay unrouted")

        try await setKey(ownerClient, owner, try #require(key.pem))
        let tested = try await ownerClient.post("/v1/apps/\(owner.id)/app-store/test-notification", json: "{}").decoded(AppStoreTestNotificationResult.self)
        #expect(tested.notificationStatus == .ignored && tested.appStoreId.proven && tested.appStoreId.proof == "notification", "\(tested)")
        #expect(try await server.services.apps.apps(appStoreId: String(Self.appStoreId)).map(\.appId) == [owner.id])
        #expect(try await !Self.status(World(server: server, signer: signer, squatterKey: squatterKey, ownerKey: ownerKey, squatter: squatter, owner: owner),
                                       key: squatterKey, app: squatter).proven)
        await fake.server.shutdown(grace: .seconds(1))
        await server.stop()
    }
}
