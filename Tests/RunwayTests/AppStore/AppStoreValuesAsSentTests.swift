import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayJSON
import RunwayTestKit
import Testing

/// Every value Apple enumerates, given a value no document names yet: the notification is answered as its type says,
/// never refused, and the value is stored as sent and shown by `GET /v1/apps/{appId}/app-store/notifications`.
@Suite("App Store values Apple adds later")
struct AppStoreValuesAsSentTests {
    typealias T = AffiliateAPITests
    typealias N = AppStoreNotifications2026Tests

    static func list(_ w: T.World, _ query: String = "") async throws -> Page<AppStoreNotificationRecord> {
        try await w.server.admin.get("/v1/apps/\(w.app.id)/app-store/notifications\(query)").decoded(Page<AppStoreNotificationRecord>.self)
    }

    @Test("invented values of every enumerated field are kept as sent: a payment still earns, a refund still claws back, unknown types stay ignored",
          arguments: StoreBackend.all)
    func inventedValues(_ backend: StoreBackend) async throws {
        let w = try await T.world(backend)
        let token = try await T.bind(w)
        let now = w.server.services.clock.nowMilliseconds()
        // The signer's transactions name a type of their own: this one is written out, with a product type no document names.
        let transaction = w.signer.sign(.object([
            ("transactionId", "f1"), ("originalTransactionId", "o-f1"), ("bundleId", .string(T.bundleId)), ("productId", "premium.monthly"),
            ("purchaseDate", .number(String(now))), ("type", "Future Product Kind"), ("environment", "Production"), ("price", 9990),
            ("currency", "USD"), ("signedDate", .number(String(now))), ("appAccountToken", .string(token.uppercased())), ("offerType", 9),
            ("offerDiscountType", "FUTURE_DISCOUNT"), ("offerPeriod", "P7W"), ("inAppOwnershipType", "FUTURE_OWNERSHIP"), ("transactionReason", "FUTURE_REASON"), ("storefront", "ZZZ"),
            ("billingPlanType", "FUTURE_PLAN"),
        ]))
        let paid = try await N.result(w, w.signer.notification("DID_RENEW", bundleId: T.bundleId, appAppleId: T.appAppleId, transaction: transaction,
                                                               signedDate: now))
        #expect(paid.status == .ok && paid.amount == 299, "a payment with values no document names still earns")
        w.clock.advance(seconds: 1)
        let refund = try await N.result(w, N.notification(w, "REFUND", id: "f1", token: token, fields: [
            ("revocationDate", .number(String(w.server.services.clock.nowMilliseconds()))), ("revocationType", "FUTURE_REVOCATION"),
            ("revocationReason", 7), ("revocationPercentage", 50_000),
        ]))
        #expect(refund.status == .ok && refund.amount == -299, "a revocation of a kind not known yet takes back all of it")
        w.clock.advance(seconds: 1)
        let unknown = w.signer.notification("FUTURE_NOTIFICATION", subtype: "FUTURE_SUBTYPE", bundleId: T.bundleId, appAppleId: T.appAppleId,
                                            signedDate: w.server.services.clock.nowMilliseconds())
        #expect(try await N.result(w, unknown).status == .ignored)

        let listed = try await Self.list(w)
        #expect(listed.items.map(\.notificationType) == ["FUTURE_NOTIFICATION", "REFUND", "DID_RENEW"], "newest first")
        let payment = try #require(listed.items.first { $0.notificationType == "DID_RENEW" })
        #expect(payment.status == "ok" && payment.environment == "Production" && payment.transactionId == "f1")
        #expect(payment.transactionType == "Future Product Kind" && payment.offerType == 9 && payment.offerDiscountType == "FUTURE_DISCOUNT")
        #expect(payment.offerPeriod == "P7W" && payment.inAppOwnershipType == "FUTURE_OWNERSHIP" && payment.transactionReason == "FUTURE_REASON")
        #expect(payment.storefront == "ZZZ" && payment.billingPlanType == "FUTURE_PLAN")
        let revoked = try #require(listed.items.first { $0.notificationType == "REFUND" })
        #expect(revoked.revocationType == "FUTURE_REVOCATION" && revoked.revocationReason == "7" && revoked.revocationPercentage == 50_000)
        let ignored = try #require(listed.items.first)
        #expect(ignored.subtype == "FUTURE_SUBTYPE" && ignored.status == "ignored" && ignored.reason == nil)
        try await T.checkLedger(w.server)
        await w.server.stop()
    }

    @Test("an external purchase token's type (CORE_TECHNOLOGY or one Apple adds) is kept as sent; the token's environment is Apple's libraries' reading of its id",
          arguments: StoreBackend.all)
    func tokenTypes(_ backend: StoreBackend) async throws {
        let w = try await T.world(backend)
        let now = w.server.services.clock.nowMilliseconds()
        func token(_ id: String, _ type: String?) -> String {
            var members: [(String, JSONValue)] = [("externalPurchaseId", .string(id)), ("tokenCreationDate", .number(String(now))),
                                                  ("appAppleId", .number(String(T.appAppleId))), ("bundleId", .string(T.bundleId))]
            if let type { members.append(("tokenType", .string(type))) }
            return w.signer.notification("EXTERNAL_PURCHASE_TOKEN", subtype: "UNREPORTED", body: [("externalPurchaseToken", .object(members))],
                                         signedDate: now)
        }
        #expect(try await N.result(w, token("b2158121-7af9-49d4-9561-1f588205523e", "CORE_TECHNOLOGY")).status == .ignored)
        #expect(try await N.result(w, token("c3158121-7af9-49d4-9561-1f588205523e", "FUTURE_TOKEN_TYPE")).status == .ignored)
        #expect(try await N.result(w, token("d4158121-7af9-49d4-9561-1f588205523e", nil)).status == .ignored, "only custom link tokens name a type")
        #expect(try await N.result(w, token("SANDBOX_e5158121-7af9-49d4-9561-1f588205523e", "ACQUISITION")).status == .ignoredNonProduction)
        #expect(try await N.result(w, token("SANDBOX_f6158121-7af9-49d4-9561-1f588205523e", "SERVICES"), at: w.sandbox).status == .ignored)
        let production = await T.notify(w, w.sandbox, token("a7158121-7af9-49d4-9561-1f588205523e", "ACQUISITION"))
        #expect(production.status == 400 && production.bodyText.contains("INVALID_ENVIRONMENT"), "a production token is not the sandbox surface's")

        let listed = try await Self.list(w, "?notificationType=EXTERNAL_PURCHASE_TOKEN")
        #expect(Set(listed.items.compactMap(\.tokenType)) == ["CORE_TECHNOLOGY", "FUTURE_TOKEN_TYPE", "ACQUISITION", "SERVICES"])
        #expect(listed.items.count == 5 && listed.items.allSatisfy { $0.subtype == "UNREPORTED" })
        #expect(listed.items.filter { $0.environment == "Sandbox" }.count == 2)
        await w.server.stop()
    }

    @Test("an environment that is neither Production nor Sandbox is recorded at a sandbox surface as ignored, with the reason, never refused",
          arguments: StoreBackend.all)
    func otherEnvironments(_ backend: StoreBackend) async throws {
        let w = try await T.world(backend)
        let now = w.server.services.clock.nowMilliseconds()
        for environment in ["FutureEnvironment", "Xcode"] {
            let payload = w.signer.notification("DID_RENEW", bundleId: T.bundleId, appAppleId: nil, environment: environment, signedDate: now)
            let answer = try await N.result(w, payload, at: w.sandbox)
            #expect(answer.status == .ignored && answer.reason == "other_environment", "\(environment)")
            #expect(try await N.result(w, payload, at: w.sandbox) == AppStoreNotificationResult(status: .duplicate, notificationUUID: answer.notificationUUID,
                                                                                                notificationType: "DID_RENEW"))
        }
        let production = w.signer.notification("TEST", bundleId: T.bundleId, appAppleId: T.appAppleId, environment: "Production", signedDate: now)
        #expect(await T.notify(w, w.sandbox, production).errorCode == "app_store_invalid", "Production at a sandbox surface stays Apple's refusal")
        let listed = try await Self.list(w, "?status=ignored")
        #expect(Set(listed.items.compactMap(\.environment)) == ["FutureEnvironment", "Xcode"] && listed.items.allSatisfy { $0.reason == "other_environment" })
        await w.server.stop()
    }

    @Test("the list pages newest first with a cursor, filters, reaches only the key's own apps, and an unknown app is 404",
          arguments: StoreBackend.all)
    func paging(_ backend: StoreBackend) async throws {
        let w = try await T.world(backend)
        let now = w.server.services.clock.nowMilliseconds()
        for n in 0..<5 {
            w.clock.advance(seconds: 1)
            let payload = w.signer.notification(n % 2 == 0 ? "TEST" : "PRICE_CHANGE", bundleId: T.bundleId, appAppleId: T.appAppleId,
                                                signedDate: now + Int64(n) * 1000)
            _ = try await N.result(w, payload)
        }
        var seen: [String] = [], cursor: String? = nil
        repeat {
            let page = try await Self.list(w, "?limit=2" + (cursor.map { "&cursor=\($0)" } ?? ""))
            #expect(page.items.count <= 2)
            seen += page.items.map(\.notificationUUID)
            cursor = page.nextCursor
        } while cursor != nil
        let all = try await Self.list(w)
        #expect(seen == all.items.map(\.notificationUUID) && Set(seen).count == 5)
        #expect(all.items.map(\.receivedAt) == all.items.map(\.receivedAt).sorted(by: >))
        #expect(try await Self.list(w, "?notificationType=TEST").items.count == 3)
        // Another app of the workspace sees its own notifications only, and this app none of them.
        let other = try await w.server.admin.post("/v1/apps", CreateAppRequest(workspaceId: w.workspace, name: "Other", teamId: "ABCDE12345", bundleId: "com.example.other"))
            .decoded(App.self, status: 201)
        let surface = try await w.server.admin.post("/v1/apps/\(other.id)/app-store-surfaces", CreateSurfaceRequest(environment: "sandbox"))
            .decoded(CreatedSurface.self, status: 201)
        let theirs = w.signer.notification("TEST", bundleId: "com.example.other", appAppleId: nil, environment: "Sandbox", signedDate: now)
        #expect(try await N.result(w, theirs, at: surface).status == .ignored)
        let listed = try await w.server.admin.get("/v1/apps/\(other.id)/app-store/notifications").decoded(Page<AppStoreNotificationRecord>.self)
        #expect(listed.items.map(\.surfaceId) == [surface.surface.id])
        #expect(try await Self.list(w).items.count == 5)
        #expect(await w.server.admin.get("/v1/apps/app_missing/app-store/notifications").status == 404)
        #expect(await w.server.admin.get("/v1/apps/\(w.app.id)/app-store/notifications?cursor=nonsense").errorCode == "invalid_query")
        await w.server.stop()
    }
}
