import AppleFormats
import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
import RunwayHTTP
import RunwayJSON
import RunwayStore
import RunwayTestKit
import Testing

/// A purchase without an appAccountToken is credited through its app transaction id only to the install that proved
/// the id with Apple's signed app transaction, first: the id a client reports, a replayed signed app transaction and
/// one signed by anyone but Apple move no money.
@Suite("App transactions proven by Apple's signature")
struct AppTransactionOwnershipTests {
    typealias T = AffiliateAPITests

    static func match(_ w: T.World, _ installId: String, reported: String? = nil, signed: String? = nil) async throws -> InstallMatch {
        var members: [(String, JSONValue)] = [("installId", .string(installId)), ("platform", "ios"), ("consent", true)]
        if let reported { members.append(("appTransactionId", .string(reported))) }
        if let signed { members.append(("signedAppTransaction", .string(signed))) }
        return try await w.client.post("/v1/installs/match", json: JSONValue.object(members).serialized()).decoded(InstallMatch.self)
    }

    static func bind(_ w: T.World, _ code: String, installId: String) async throws {
        _ = try await w.client.post("/v1/app-store/bind", json: #"{"refCode":"\#(code)","installId":"\#(installId)"}"#).decoded(BindResponse.self)
    }

    /// A renewal on another device: no appAccountToken, only the app transaction id.
    static func renewal(_ w: T.World, id: String, appTransactionId: String) async throws -> AppStoreNotificationResult {
        try await AppStoreNotifications2026Tests.result(w, AppStoreNotifications2026Tests.notification(
            w, id: id, fields: [("appTransactionId", .string(appTransactionId))]))
    }

    static func owners(_ w: T.World) async throws -> [String: String] {
        try await w.server.store.read { db in
            try db.query("SELECT app_transaction_id, install_id FROM app_transaction_owners").reduce(into: [:]) {
                $0[try $1.string("app_transaction_id")] = try $1.string("install_id")
            }
        }
    }

    @Test("AppTransaction.all's signed transactions keep the stores Apple named with the install; forged or foreign ones, and a returning id's, count for nothing",
          arguments: StoreBackend.all)
    func storeTypes(_ backend: StoreBackend) async throws {
        let w = try await T.world(backend)
        let now = w.server.services.clock.nowMilliseconds()
        let consumer = w.signer.appTransaction(id: "770000000000000101", bundleId: T.bundleId, appAppleId: T.appAppleId, signedDate: now,
                                               storeType: "CONSUMER")
        let education = w.signer.appTransaction(id: "770000000000000102", bundleId: T.bundleId, appAppleId: T.appAppleId, signedDate: now,
                                                storeType: "EDUCATION")
        let foreign = w.signer.appTransaction(id: "770000000000000103", bundleId: "com.example.other", appAppleId: T.appAppleId, signedDate: now,
                                              storeType: "ENTERPRISE")
        let odd = w.signer.appTransaction(id: "770000000000000104", bundleId: T.bundleId, appAppleId: T.appAppleId, signedDate: now,
                                          storeType: "<b>x</b>")
        let all = JSONValue.array([.string(education), .string(foreign), .string(odd), .string(consumer), "not a jws"])
        let body = JSONValue.object([("installId", "store-types-1"), ("platform", "ios"), ("consent", true), ("signedAppTransaction", .string(consumer)),
                                     ("signedAppTransactions", all), ("appAttestSupported", false)])
        let match = try await w.client.post("/v1/installs/match", json: body.serialized()).decoded(InstallMatch.self)
        #expect(match.storeTypes == ["CONSUMER", "EDUCATION"], "the foreign app's and the malformed type are not kept")
        #expect(match.appAttestSupported == false)
        let again = try await w.client.post("/v1/installs/match", json: body.serialized()).decoded(InstallMatch.self)
        #expect(again.storeTypes == ["CONSUMER", "EDUCATION"] && again.appAttestSupported == false, "stored with the install")
        #expect(w.server.services.metrics.render().contains("linkrunway_app_attest_unsupported_total 2"))

        let returning = JSONValue.object([("installId", "store-types-2"), ("platform", "ios"), ("consent", true), ("returning", true),
                                          ("signedAppTransactions", .array([.string(education)]))])
        let registered = try await w.client.post("/v1/installs/match", json: returning.serialized()).decoded(InstallMatch.self)
        #expect(registered.storeTypes == nil && registered.appAttestSupported == nil)
        let tooMany = JSONValue.object([("installId", "store-types-3"), ("platform", "ios"), ("consent", true),
                                        ("signedAppTransactions", .array(Array(repeating: .string(consumer), count: 9)))])
        #expect(await w.client.post("/v1/installs/match", json: tooMany.serialized()).errorCode == "invalid_field")
    }

    @Test("a reported id moves no money; the first install to prove an id owns it; a replayed or forged proof takes nothing and is recorded",
          arguments: StoreBackend.all)
    func ownership(_ backend: StoreBackend) async throws {
        let w = try await T.world(backend)
        let mallory = try await w.server.admin.post("/v1/affiliates", json: #"{"workspaceId":"\#(w.workspace)","name":"Mallory"}"#)
            .decoded(Affiliate.self, status: 201)
        _ = try await w.server.admin.post("/v1/affiliates/\(mallory.id)/codes", json: #"{"programId":"\#(w.program.id)","code":"mallory"}"#)
            .decoded(AffiliateCode.self, status: 201)
        let now = w.server.services.clock.nowMilliseconds()
        let victimId = "770000000000000001"
        let signed = w.signer.appTransaction(id: victimId, bundleId: T.bundleId, appAppleId: T.appAppleId, signedDate: now)

        // The attacker knows the customer's id and reports it first, with their own code bound.
        _ = try await Self.match(w, "attacker-1", reported: victimId)
        try await Self.bind(w, "mallory", installId: "attacker-1")
        #expect(try await Self.renewal(w, id: "t1", appTransactionId: victimId).status == .unattributed, "a reported id credits nobody")

        // The customer's device proves the id with Apple's signature and binds the real affiliate.
        _ = try await Self.match(w, "customer-1", signed: signed)
        try await Self.bind(w, "alice", installId: "customer-1")
        let paid = try await Self.renewal(w, id: "t2", appTransactionId: victimId)
        #expect(paid.status == .ok && paid.amount == 299)
        #expect(try await Self.owners(w)[victimId] == "customer-1")

        // Replaying the customer's signed app transaction from another install is a dispute, not a transfer.
        _ = try await Self.match(w, "attacker-2", signed: signed)
        try await Self.bind(w, "mallory", installId: "attacker-2")
        #expect(try await Self.renewal(w, id: "t3", appTransactionId: victimId).status == .ok)
        let disputes = try await w.server.store.read { db in
            try db.query("SELECT install_id, owner_install_id FROM app_transaction_disputes WHERE app_transaction_id = \(victimId)")
                .map { "\(try $0.string("install_id"))>\(try $0.string("owner_install_id"))" }
        }
        #expect(disputes == ["attacker-2>customer-1"])

        // Signed by anyone but Apple's chain, for another app, or by StoreKit Testing: no claim, and the match still answers.
        let forged = AppStoreTestSigner().appTransaction(id: "770000000000000002", bundleId: T.bundleId, appAppleId: T.appAppleId, signedDate: now)
        let otherApp = w.signer.appTransaction(id: "770000000000000003", bundleId: "com.other", appAppleId: T.appAppleId, signedDate: now)
        let otherStoreId = w.signer.appTransaction(id: "770000000000000004", bundleId: T.bundleId, appAppleId: 99, signedDate: now)
        let xcode = w.signer.appTransaction(id: "770000000000000005", bundleId: T.bundleId, appAppleId: nil, environment: "Xcode", signedDate: now)
        for (n, jws) in [forged, otherApp, otherStoreId, xcode].enumerated() {
            #expect(try await Self.match(w, "refused-\(n)", signed: jws).installId == "refused-\(n)")
        }
        #expect(try await Self.owners(w) == [victimId: "customer-1"])
        let mallorys = try await w.server.store.read { db in
            try db.first("SELECT COUNT(*) AS n FROM commissions WHERE affiliate_id = \(mallory.id)")!.int("n")
        }
        #expect(mallorys == 0, "the attacker earned nothing")
        let metrics = w.server.services.metrics.render()
        #expect(metrics.contains(#"linkrunway_app_transactions_total{outcome="refused"} 4"#), "\(metrics)")
        #expect(metrics.contains(#"linkrunway_app_transactions_total{outcome="disputed"} 1"#))

        // A sandbox proof owns the id for sandbox purchases only.
        let sandboxSigned = w.signer.appTransaction(id: "770000000000000006", bundleId: T.bundleId, appAppleId: nil, environment: "Sandbox", signedDate: now)
        _ = try await Self.match(w, "tester-1", signed: sandboxSigned)
        try await Self.bind(w, "alice", installId: "tester-1")
        #expect(try await Self.renewal(w, id: "t4", appTransactionId: "770000000000000006").status == .unattributed)

        // Forgetting the owner gives the id up.
        let forget = await w.client.send("POST", "/v1/installs/customer-1/forget", body: Array("{}".utf8))
        #expect(forget.status == 200, "\(forget.bodyText)")
        #expect(try await Self.owners(w)[victimId] == nil)
        await w.server.stop()
    }
}
