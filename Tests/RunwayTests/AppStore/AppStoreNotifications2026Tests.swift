import AppleFormats
import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
import RunwayHTTP
import RunwayJSON
@testable import RunwayKit
import RunwayStore
import RunwayTestKit
import Testing

/// What App Store Server Notifications and transactions added in 2025–26, with payloads built as Apple documents them
/// (https://developer.apple.com/documentation/appstoreservernotifications/app-store-server-notifications-changelog),
/// and the verdicts where the server differs from Apple's libraries.
@Suite("App Store notifications, 2025–26")
struct AppStoreNotifications2026Tests {
    typealias T = AffiliateAPITests

    static func result(_ w: T.World, _ payload: String, at surface: CreatedSurface? = nil) async throws -> AppStoreNotificationResult {
        try await T.notify(w, surface ?? w.production, payload).decoded(AppStoreNotificationResult.self)
    }

    /// A notification of `type` about a transaction with Apple's newer fields.
    static func notification(_ w: T.World, _ type: String = "DID_RENEW", id: String, token: String? = nil, price: Int64 = 9990,
                             fields: [(String, JSONValue)] = [], renewalInfo: String? = nil) -> String {
        let now = w.server.services.clock.nowMilliseconds()
        let transaction = w.signer.transaction(id: id, original: "o-\(id.prefix(2))", bundleId: T.bundleId, token: token, price: price,
                                               purchaseDate: now, extra: fields)
        return w.signer.notification(type, bundleId: T.bundleId, appAppleId: T.appAppleId, transaction: transaction, renewalInfo: renewalInfo,
                                     signedDate: now)
    }

    @Test("RESCIND_CONSENT: the app transaction is verified, its binds, install link and user ids go, the ledger keeps its amounts, and later notifications are not processed",
          arguments: StoreBackend.all)
    func rescindConsent(_ backend: StoreBackend) async throws {
        let w = try await T.world(backend)
        let appTransaction = "704289572311469613"
        _ = try await w.client.post("/v1/installs/match", MatchInstallRequest(installId: "kid-1", platform: "ios", consent: true, appTransactionId: appTransaction))
            .decoded(InstallMatch.self)
        let bound = try await w.client.post("/v1/app-store/bind", BindRequest(refCode: "alice", installId: "kid-1")).decoded(BindResponse.self)
        let paid = try await Self.result(w, Self.notification(w, id: "r1", token: bound.appAccountToken, fields: [("appTransactionId", .string(appTransaction))]))
        #expect(paid.status == .ok && paid.amount == 299)

        let now = w.server.services.clock.nowMilliseconds()
        func rescind(_ signer: AppStoreTestSigner, uuid: String = UUID().uuidString.lowercased()) -> String {
            let signed = signer.appTransaction(id: appTransaction, bundleId: T.bundleId, appAppleId: T.appAppleId, signedDate: now)
            return w.signer.notification("RESCIND_CONSENT", uuid: uuid, body: [("appData", .object([
                ("appAppleId", .number(String(T.appAppleId))), ("bundleId", .string(T.bundleId)), ("environment", "Production"),
                ("signedAppTransactionInfo", .string(signed)),
            ]))], signedDate: now)
        }
        let forged = await T.notify(w, w.production, rescind(AppStoreTestSigner()))
        #expect(forged.status == 400 && forged.bodyText.contains("signedAppTransactionInfo VERIFICATION_FAILURE"), "\(forged.bodyText)")

        let rescinded = try await Self.result(w, rescind(w.signer))
        #expect(rescinded.status == .consentRescinded && rescinded.notificationType == "RESCIND_CONSENT")
        let (binds, install, commission, notifications) = try await w.server.store.read { db in
            (try db.first("SELECT COUNT(*) AS n FROM app_account_tokens WHERE token = \(bound.appAccountToken)")!.int("n"),
             try db.first("SELECT app_transaction_id FROM installs WHERE install_id = 'kid-1'")!,
             try db.first("SELECT app_account_token, app_transaction_id, amount, status FROM commissions WHERE transaction_id = 'r1'")!,
             try db.first("SELECT COUNT(*) AS n FROM app_store_notifications WHERE app_transaction_id IS NOT NULL")!.int("n"))
        }
        #expect(binds == 0, "the bind is deleted")
        #expect(try install.optionalString("app_transaction_id") == nil, "the install no longer leads to the app transaction")
        #expect(try commission.string("app_account_token") == ConsentRescission.unlinkedToken && commission.optionalString("app_transaction_id") == nil)
        #expect(try commission.int("amount") == 299 && commission.string("status") == "pending", "money owed stays")
        #expect(notifications == 0)
        #expect(try await T.balance(w, "USD")?.pending == 299)

        let later = try await Self.result(w, Self.notification(w, id: "r2", token: bound.appAccountToken, fields: [("appTransactionId", .string(appTransaction))]))
        #expect(later.status == .consentRescinded && later.amount == nil, "nothing more is processed for it")
        let refund = try await Self.result(w, Self.notification(w, "REFUND", id: "r1", fields: [("appTransactionId", .string(appTransaction))]))
        #expect(refund.status == .consentRescinded)
        #expect(try await Self.result(w, rescind(w.signer)).status == .consentRescinded, "a second rescission changes nothing more")
        try await T.checkLedger(w.server)
        await w.server.stop()
    }

    @Test("types and fields the server does not know are recorded as ignored, never refused: PRICE_CHANGE, METADATA_UPDATE, MIGRATION, a type with no data, extra body fields",
          arguments: StoreBackend.all)
    func unknownTypes(_ backend: StoreBackend) async throws {
        let w = try await T.world(backend)
        let now = w.server.services.clock.nowMilliseconds()
        for type in ["PRICE_CHANGE", "METADATA_UPDATE", "MIGRATION", "SOMETHING_APPLE_ADDS_IN_2027"] {
            let payload = w.signer.notification(type, subtype: "NEW_SUBTYPE", bundleId: T.bundleId, appAppleId: T.appAppleId, signedDate: now)
            #expect(try await Self.result(w, payload).status == .ignored, "\(type)")
        }
        let bare = w.signer.notification("MIGRATION", body: [("advancedCommerceData", .object([("anything", 1)]))], signedDate: now)
        let recorded = try await Self.result(w, bare)
        #expect(recorded.status == .ignored && recorded.notificationType == "MIGRATION", "no data object at all")
        let withFields = await w.server.client().post(w.production.surface.notificationPath,
                                                      json: #"{"signedPayload":"\#(Self.notification(w, "PRICE_CHANGE", id: "u1", fields: [("futureField", "x")]))","futureKey":1}"#)
        #expect(try withFields.decoded(AppStoreNotificationResult.self).status == .ignored)
        let rows = try await w.server.store.read { try $0.first("SELECT COUNT(*) AS n FROM app_store_notifications WHERE status = 'ignored'")!.int("n") }
        #expect(rows == 6)
        await w.server.stop()
    }

    /// A notification of `type` about transaction `id` of the subscription first bought as `original`.
    static func subscription(_ w: T.World, _ type: String, id: String, original: String, token: String? = nil,
                             fields: [(String, JSONValue)] = []) -> String {
        let now = w.server.services.clock.nowMilliseconds()
        let transaction = w.signer.transaction(id: id, original: original, bundleId: T.bundleId, token: token, purchaseDate: now, extra: fields)
        return w.signer.notification(type, bundleId: T.bundleId, appAppleId: T.appAppleId, transaction: transaction, signedDate: now)
    }

    @Test("a migrated subscription keeps its referrer: MIGRATION (or the changelog's MIGRATE) names the id before, and later payments without a token earn for the same affiliate",
          arguments: StoreBackend.all)
    func migratedSubscriptions(_ backend: StoreBackend) async throws {
        let w = try await T.world(backend)
        for (spelling, n) in [("MIGRATION", "1"), ("MIGRATE", "2")] {
            let token = try await T.bind(w)
            let first = try await Self.result(w, Self.subscription(w, "SUBSCRIBED", id: "pre-\(n)", original: "before-\(n)", token: token))
            #expect(first.status == .ok && first.amount == 299)
            let previous: [(String, JSONValue)] = [("previousOriginalTransactionId", .string("before-\(n)"))]
            let migrated = try await Self.result(w, Self.subscription(w, spelling, id: "mig-\(n)", original: "after-\(n)", fields: previous))
            #expect(migrated.status == .ignored && migrated.notificationType == spelling, "a migration is no payment")
            // Renewals of the migrated subscription carry neither the token nor, necessarily, the id before.
            let renewed = try await Self.result(w, Self.subscription(w, "DID_RENEW", id: "post-\(n)", original: "after-\(n)"))
            #expect(renewed.status == .ok && renewed.amount == 299, "\(spelling): the referrer followed the migration")
            let again = try await Self.result(w, Self.subscription(w, "DID_RENEW", id: "post2-\(n)", original: "after-\(n)", fields: previous))
            #expect(again.status == .ok && again.amount == 299)
        }
        let stranger = try await Self.result(w, Self.subscription(w, "DID_RENEW", id: "x-1", original: "never-bound",
                                                                  fields: [("previousOriginalTransactionId", .string("also-never"))]))
        #expect(stranger.status == .unattributed, "a subscription no bind led to earns nothing")
        let (affiliates, recorded) = try await w.server.store.read { db in
            (try db.query("SELECT DISTINCT affiliate_id FROM commissions").count,
             try db.first("SELECT previous_original_transaction_id FROM app_store_notifications WHERE transaction_id = 'mig-1'")?.optionalString("previous_original_transaction_id"))
        }
        #expect(affiliates == 1 && recorded == "before-1")
        #expect(try await T.balance(w, "USD")?.pending == 299 * 6)
        try await T.checkLedger(w.server)
        await w.server.stop()
    }

    @Test("multiseat: the purchaser's commission counts its seats, an assigned seat earns nothing, and taking a seat back is no refund",
          arguments: StoreBackend.all)
    func multiseat(_ backend: StoreBackend) async throws {
        let w = try await T.world(backend)
        let token = try await T.bind(w)
        let bought = try await Self.result(w, Self.subscription(w, "SUBSCRIBED", id: "seat-1", original: "seats", token: token,
                                                                fields: [("quantity", 5), ("inAppOwnershipType", "PURCHASED")]))
        #expect(bought.status == .ok && bought.amount == 299 * 5, "five seats")
        // A member's seat, even one whose own device was bound to the affiliate.
        let memberToken = try await T.bind(w)
        let member = try await Self.result(w, Self.subscription(w, "SUBSCRIBED", id: "member-1", original: "member", token: memberToken,
                                                                fields: [("inAppOwnershipType", "ASSIGNED")]))
        #expect(member.status == .ignored && member.amount == nil)
        let revoked = try await Self.result(w, Self.subscription(w, "REVOKE", id: "seat-1", original: "seats", token: token, fields: [
            ("revocationDate", .number(String(w.server.services.clock.nowMilliseconds()))), ("revocationType", "ASSIGNMENT_REVOKE"),
        ]))
        #expect(revoked.status == .ignored && revoked.amount == nil, "a seat taken back changes the seats, not the money")
        #expect(try await T.balance(w, "USD")?.pending == 299 * 5)
        let huge = await T.notify(w, w.production, Self.subscription(w, "SUBSCRIBED", id: "seat-2", original: "seats-2", token: token,
                                                                     fields: [("quantity", 1_000_001)]))
        #expect(huge.status == 400 && huge.bodyText.contains("outside Apple's format"), "more than a million seats is refused, never multiplied")
        let stored = try await w.server.store.read { db in
            try db.query("SELECT quantity, in_app_ownership_type FROM app_store_notifications WHERE notification_type = 'SUBSCRIBED' AND transaction_id IN ('seat-1', 'member-1')")
                .map { "\(try $0.optionalInt("quantity").map(String.init) ?? "-")/\(try $0.optionalString("in_app_ownership_type") ?? "-")" }
        }
        #expect(Set(stored) == ["5/PURCHASED", "-/ASSIGNED"], "\(stored)")
        try await T.checkLedger(w.server)
        await w.server.stop()
    }

    @Test("a prorated refund claws back its share, rounded down in the affiliate's favour; a full refund after it takes the rest; a reversal returns it all",
          arguments: StoreBackend.all)
    func proratedRefunds(_ backend: StoreBackend) async throws {
        let w = try await T.world(backend)
        let token = try await T.bind(w)
        #expect(try await Self.result(w, Self.notification(w, id: "p1", token: token)).amount == 299)
        func refund(_ type: String, _ percentage: Int64?) -> String {
            var fields: [(String, JSONValue)] = [("revocationDate", .number(String(w.server.services.clock.nowMilliseconds()))),
                                                 ("revocationReason", 0), ("revocationType", .string(type))]
            if let percentage { fields.append(("revocationPercentage", .number(String(percentage)))) }
            return Self.notification(w, "REFUND", id: "p1", token: token, fields: fields)
        }
        let half = try await Self.result(w, refund("REFUND_PRORATED", 50_000))
        #expect(half.status == .ok && half.amount == -149, "half of 2.99 is 1.495: 1.49 is taken back, the affiliate keeps the fraction")
        #expect(try await T.balance(w, "USD")?.pending == 150)
        #expect((try await Self.result(w, refund("REFUND_PRORATED", 50_000)).amount ?? 0) == 0, "the same share again takes nothing more")
        #expect(try await Self.result(w, refund("REFUND_PRORATED", 66_667)).amount == -50, "two thirds of 2.99 is 1.99333…: 1.99 in all")
        let full = try await Self.result(w, refund("REFUND_FULL", nil))
        #expect(full.amount == -100)
        #expect(try await T.balance(w, "USD")?.pending == 0)
        let reversed = try await Self.result(w, Self.notification(w, "REFUND_REVERSED", id: "p1", token: token))
        #expect(reversed.amount == 299)
        #expect(try await T.balance(w, "USD")?.pending == 299)

        // A partly refunded commission releases what is left of it.
        #expect(try await Self.result(w, Self.notification(w, id: "p2", token: token)).amount == 299)
        let quarter = Self.notification(w, "REFUND", id: "p2", token: token, fields: [("revocationType", "REFUND_PRORATED"), ("revocationPercentage", 25_000)])
        #expect(try await Self.result(w, quarter).amount == -74)
        w.clock.advance(seconds: 31 * 86_400)
        #expect(try await T.balance(w, "USD") == CurrencyBalance(currency: "USD", pending: 0, payable: 299 + 225, paid: 0, test: false))
        #expect(Ledger.prorated(299, share: 33_333) == 99 && Ledger.prorated(Int64.max / 2, share: 50_000) > 0)
        try await T.checkLedger(w.server)
        await w.server.stop()
    }

    @Test("monthly payments of a 12-month commitment accrue one by one, with the committed total beside each in the answer and the ledger",
          arguments: StoreBackend.all)
    func commitment(_ backend: StoreBackend) async throws {
        let w = try await T.world(backend)
        let token = try await T.bind(w)
        let expires = w.server.services.clock.nowMilliseconds() + 300 * 86_400_000
        func month(_ n: Int) -> String {
            Self.notification(w, n == 1 ? "SUBSCRIBED" : "DID_RENEW", id: "c\(n)", token: token, fields: [
                ("billingPlanType", "MONTHLY_WITH_12_MONTH_COMMITMENT"),
                ("commitmentInfo", .object([("billingPeriodNumber", .number(String(n))), ("totalBillingPeriods", 12),
                                            ("commitmentExpiresDate", .number(String(expires))), ("commitmentPrice", 119_880)])),
            ])
        }
        let first = try await Self.result(w, month(1))
        #expect(first.amount == 299)
        #expect(first.commitment == CommissionCommitment(billingPlanType: "MONTHLY_WITH_12_MONTH_COMMITMENT", billingPeriodNumber: 1, totalBillingPeriods: 12,
                                                         committedAmount: 3596, expiresAt: Timestamp.iso(expires)), "30% of 119.88")
        #expect(try await Self.result(w, month(2)).commitment?.billingPeriodNumber == 2)
        let ledger = try await w.server.admin.get("/v1/affiliates/\(w.affiliate.id)/ledger").decoded(Page<LedgerPosting>.self)
        let accruals = ledger.items.filter { $0.kind == "accrual" }
        #expect(accruals.count == 2 && accruals.allSatisfy { $0.commitment?.committedAmount == 3596 && $0.commitment?.totalBillingPeriods == 12 })
        #expect(try await T.balance(w, "USD")?.pending == 598, "each monthly payment earns on its own")
        let fixed = CommissionRule(kind: "fixed", amount: 100, currency: "EUR", duration: "lifetime")
        #expect(CommissionRules.committedAmount(fixed, commitment: AppStoreTransaction.Commitment(totalBillingPeriods: 12), currency: "USD") == 1200)
        await w.server.stop()
    }

    @Test("appTransactionId joins a purchase without a token to the install that proved it with its signed app transaction; offers are recorded, ONE_TIME included",
          arguments: StoreBackend.all)
    func appTransactionJoin(_ backend: StoreBackend) async throws {
        let w = try await T.world(backend)
        let signed = w.signer.appTransaction(id: "880000000000000001", bundleId: T.bundleId, appAppleId: T.appAppleId,
                                             signedDate: w.server.services.clock.nowMilliseconds())
        _ = try await AppTransactionOwnershipTests.match(w, "j-1", signed: signed)
        _ = try await w.client.post("/v1/app-store/bind", BindRequest(refCode: "alice", installId: "j-1")).decoded(BindResponse.self)
        let offer: [(String, JSONValue)] = [("appTransactionId", "880000000000000001"), ("offerType", 2), ("offerDiscountType", "ONE_TIME"),
                                            ("offerPeriod", "P1M")]
        let joined = try await Self.result(w, Self.notification(w, id: "j1", fields: offer))
        #expect(joined.status == .ok && joined.amount == 299, "no appAccountToken, joined by the app transaction")
        let stranger = try await Self.result(w, Self.notification(w, id: "j2", fields: [("appTransactionId", "880000000000000999")]))
        #expect(stranger.status == .unattributed)
        let row = try await w.server.store.read { db in
            try db.first("SELECT app_transaction_id, offer_type, offer_discount_type, offer_period FROM app_store_notifications WHERE transaction_id = 'j1'")!
        }
        #expect(try row.optionalString("app_transaction_id") == "880000000000000001" && row.optionalInt("offer_type") == 2)
        #expect(try row.optionalString("offer_discount_type") == "ONE_TIME" && row.optionalString("offer_period") == "P1M")
        let commission = try await w.server.store.read { try $0.first("SELECT app_transaction_id FROM commissions WHERE transaction_id = 'j1'")! }
        #expect(try commission.optionalString("app_transaction_id") == "880000000000000001")
        // Renewal info names the app transaction too, and is kept with the notification.
        let now = w.server.services.clock.nowMilliseconds()
        let renewal = w.signer.renewalInfo(original: "o-j3", appTransactionId: "880000000000000003", signedDate: now)
        let change = Self.notification(w, "DID_CHANGE_RENEWAL_STATUS", id: "j3", renewalInfo: renewal)
        #expect(try await Self.result(w, change).status == .ignored)
        let kept = try await w.server.store.read { try $0.first("SELECT app_transaction_id FROM app_store_notifications WHERE transaction_id = 'j3'")! }
        #expect(try kept.optionalString("app_transaction_id") != nil)
        await w.server.stop()
    }

    @Test("our verdicts: a sandbox notification without appAppleId at a production surface is ignored_non_production; a forged renewal info is refused",
          arguments: StoreBackend.all)
    func verdicts(_ backend: StoreBackend) async throws {
        let w = try await T.world(backend)
        let now = w.server.services.clock.nowMilliseconds()
        let sandbox = w.signer.notification("TEST", bundleId: T.bundleId, appAppleId: nil, environment: "Sandbox", signedDate: now)
        #expect(try await Self.result(w, sandbox).status == .ignoredNonProduction, "Apple omits appAppleId in sandbox")
        #expect(try await Self.result(w, sandbox, at: w.sandbox).status == .ignored, "and the sandbox surface takes it")
        let otherBundle = w.signer.notification("TEST", bundleId: "com.other", appAppleId: nil, environment: "Sandbox", signedDate: now)
        #expect(await T.notify(w, w.production, otherBundle).errorCode == "app_store_invalid", "another app's stays refused")

        let token = try await T.bind(w)
        let forged = AppStoreTestSigner().renewalInfo(original: "o-v1", signedDate: now)
        let refused = await T.notify(w, w.production, Self.notification(w, id: "v1", token: token, renewalInfo: forged))
        #expect(refused.status == 400 && refused.bodyText.contains("signedRenewalInfo VERIFICATION_FAILURE"), "\(refused.bodyText)")
        let wrongEnvironment = w.signer.renewalInfo(original: "o-v1", environment: "Sandbox", signedDate: now)
        #expect(await T.notify(w, w.production, Self.notification(w, id: "v1", token: token, renewalInfo: wrongEnvironment)).status == 400)
        let genuine = w.signer.renewalInfo(original: "o-v1", signedDate: now)
        #expect(try await Self.result(w, Self.notification(w, id: "v1", token: token, renewalInfo: genuine)).status == .ok)
        await w.server.stop()
    }
}
