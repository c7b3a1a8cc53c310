import AppleFormats
import Foundation
import LinkRunwayAPI
@testable import RunwayConsole
import RunwayJSON
import RunwayTestKit
import Testing

/// Installs from education or enterprise stores (iOS 27's `AppTransaction.all`, each signed by Apple with its
/// `storeType`) left out of the funnel with `stores=consumer`, and out of the commissions of a program that pays for
/// consumer stores only. An install with no known store, or with any other store beside those two, stays in.
@Suite("Consumer stores only")
struct ConsumerStoresTests {
    typealias T = AffiliateAPITests
    typealias N = AppStoreNotifications2026Tests

    /// Matches `installId` with Apple-signed app transactions of `stores` (the first one also proves its id).
    static func install(_ w: T.World, _ installId: String, appTransactionId: String, stores: [String]) async throws {
        let now = w.server.services.clock.nowMilliseconds()
        let signed = stores.map { store in
            w.signer.appTransaction(id: appTransactionId, bundleId: T.bundleId, appAppleId: T.appAppleId, signedDate: now, storeType: store)
        }
        let request = MatchInstallRequest(installId: installId, platform: "ios", consent: true, signedAppTransaction: signed.first,
                                          signedAppTransactions: signed.isEmpty ? nil : signed)
        let match = try await w.client.post("/v1/installs/match", request).decoded(InstallMatch.self)
        #expect(match.storeTypes == (stores.isEmpty ? nil : Set(stores).sorted()))
    }

    @Test("stores=consumer leaves out installs whose app transactions named only education or enterprise stores, and their events; unknown stores stay in",
          arguments: StoreBackend.all)
    func funnel(_ backend: StoreBackend) async throws {
        let w = try await T.world(backend)
        let stores: [(String, [String])] = [("s-edu", ["EDUCATION"]), ("s-both", ["ENTERPRISE", "EDUCATION"]), ("s-mixed", ["CONSUMER", "EDUCATION"]),
                                            ("s-none", []), ("s-future", ["FUTURE_STORE"]), ("s-consumer", ["CONSUMER"])]
        for (n, (install, types)) in stores.enumerated() {
            try await Self.install(w, install, appTransactionId: "66000000000000010\(n)", stores: types)
            #expect(try await w.client.post("/v1/events", EventTests.event("ev-\(install)", install: install)).status == 201)
        }
        func report(_ query: String) async throws -> FunnelReport {
            try await w.server.admin.get("/v1/reports/funnel?workspaceId=\(w.workspace)&groupBy=campaign\(query)").decoded(FunnelReport.self)
        }
        let all = try await report("")
        #expect(all.rows.reduce(0) { $0 + $1.installs } == 6 && all.rows.reduce(0) { $0 + ($1.events["SIGNUP"] ?? 0) } == 6 && all.stores == "all")
        let consumer = try await report("&stores=consumer")
        #expect(consumer.rows.reduce(0) { $0 + $1.installs } == 4, "s-edu and s-both are left out")
        #expect(consumer.rows.reduce(0) { $0 + ($1.events["SIGNUP"] ?? 0) } == 4 && consumer.stores == "consumer")
        let simulatedToo = try await report("&stores=consumer&includeSimulated=true")
        #expect(simulatedToo.rows.reduce(0) { $0 + ($1.events["SIGNUP"] ?? 0) } == 4)
        #expect(await w.server.admin.get("/v1/reports/funnel?workspaceId=\(w.workspace)&stores=education").errorCode == "invalid_query")
        await w.server.stop()
    }

    @Test("a consumer-stores-only program pays nothing for a purchase of an education or enterprise install (ignored, non_consumer_store); other programs and installs earn",
          arguments: StoreBackend.all)
    func commissions(_ backend: StoreBackend) async throws {
        let w = try await T.world(backend)
        let program = try await w.server.admin.post("/v1/affiliate-programs", CreateProgramRequest(
            appId: w.app.id, name: "Consumers", commission: CommissionRule(kind: "percent", basisPoints: 3000, duration: "lifetime"), consumerStoresOnly: true
        )).decoded(AffiliateProgram.self, status: 201)
        #expect(program.consumerStoresOnly && !w.program.consumerStoresOnly)
        _ = try await w.server.admin.post("/v1/affiliates/\(w.affiliate.id)/codes", CreateAffiliateCodeRequest(programId: program.id, code: "consumers"))
            .decoded(AffiliateCode.self, status: 201)
        func bind(_ code: String, _ install: String) async throws -> String {
            try await w.client.post("/v1/app-store/bind", BindRequest(refCode: code, installId: install)).decoded(BindResponse.self).appAccountToken
        }
        try await Self.install(w, "c-edu", appTransactionId: "660000000000000201", stores: ["EDUCATION", "ENTERPRISE"])
        try await Self.install(w, "c-mixed", appTransactionId: "660000000000000202", stores: ["EDUCATION", "CONSUMER"])
        try await Self.install(w, "c-unknown", appTransactionId: "660000000000000203", stores: [])

        let refused = try await N.result(w, N.notification(w, "SUBSCRIBED", id: "k1", token: try await bind("consumers", "c-edu")))
        #expect(refused.status == .ignored && refused.reason == "non_consumer_store" && refused.amount == nil)
        let renewal = try await N.result(w, N.notification(w, "DID_RENEW", id: "k2", fields: [("appTransactionId", "660000000000000201")]))
        #expect(renewal.status == .ignored && renewal.reason == "non_consumer_store", "a renewal found through the proven app transaction too")
        let mixed = try await N.result(w, N.notification(w, "SUBSCRIBED", id: "k3", token: try await bind("consumers", "c-mixed")))
        #expect(mixed.status == .ok && mixed.amount == 299, "a consumer store among them: it stays in")
        let unknown = try await N.result(w, N.notification(w, "SUBSCRIBED", id: "k4", token: try await bind("consumers", "c-unknown")))
        #expect(unknown.status == .ok && unknown.amount == 299, "no store known: it stays in")
        let anonymous = try await w.client.post("/v1/app-store/bind", BindRequest(refCode: "consumers")).decoded(BindResponse.self).appAccountToken
        #expect(try await N.result(w, N.notification(w, "SUBSCRIBED", id: "k5", token: anonymous)).status == .ok, "no install: it stays in")
        let otherProgram = try await N.result(w, N.notification(w, "SUBSCRIBED", id: "k6", token: try await bind("alice", "c-edu")))
        #expect(otherProgram.status == .ok && otherProgram.amount == 299, "a program without the setting pays as before")
        let refund = try await N.result(w, N.notification(w, "REFUND", id: "k1", token: try await bind("consumers", "c-edu")))
        #expect(refund.amount == nil || refund.amount == 0, "nothing accrued, nothing to take back")

        #expect(try await T.balance(w, "USD")?.pending == 299 * 4)
        let listed = try await AppStoreValuesAsSentTests.list(w, "?status=ignored")
        #expect(Set(listed.items.map(\.transactionId)) == ["k1", "k2"] && listed.items.allSatisfy { $0.reason == "non_consumer_store" })
        try await T.checkLedger(w.server)
        await w.server.stop()
    }

    @Test("the console's overview leaves them out with its box, and the program form and list carry the setting", arguments: StoreBackend.all)
    func console(_ backend: StoreBackend) async throws {
        let w = try await T.world(backend)
        try await Self.install(w, "v-edu", appTransactionId: "660000000000000301", stores: ["EDUCATION"])
        try await Self.install(w, "v-consumer", appTransactionId: "660000000000000302", stores: ["CONSUMER"])
        let visitor = ConsoleTests.Visitor(w.server.application)
        _ = await visitor.signIn(key: w.server.adminKey)
        let all = await visitor.send("GET", "/console?ws=\(w.workspace)").bodyText
        let consumer = await visitor.send("GET", "/console?ws=\(w.workspace)&stores=consumer").bodyText
        #expect(ConsoleOverviewTests.tiles(all).dropFirst().first == "2" && ConsoleOverviewTests.tiles(consumer).dropFirst().first == "1")
        #expect(consumer.contains("name=\"stores\" value=\"consumer\" checked") && consumer.contains("education or enterprise stores only are left out"))
        #expect(consumer.contains("stores=consumer&amp;from=") || consumer.contains("stores=consumer&from="), "the presets keep the box")
        let page = await visitor.send("GET", "/console/affiliates?ws=\(w.workspace)").bodyText
        #expect(page.contains("name=\"consumerStoresOnly\"") && page.contains("<td>all</td>"))
        await w.server.stop()
    }
}
