import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
@testable import RunwayKit
@testable import RunwayServer
import RunwayHTTP
import RunwayStore
import RunwayTestKit
import Testing

/// One App Store transaction carried by two notifications (other UUIDs, other types) that arrive at the same instant
/// is paid once: on SQLite through one server, on PostgreSQL through two servers on one database.
@Suite("One commission per transaction under concurrency")
struct CommissionRaceTests {
    /// An app with an App Store surface, a program paying 30% under `duration`, and one bound purchase token, served by one
    /// process on SQLite and two on PostgreSQL.
    struct Fixture {
        let backend: StoreBackend
        let location: StorageLocation
        let servers: [ServerProcess]
        let signer = AppStoreTestSigner()
        let bundle = "com.example.race"
        let appleId: Int64 = 7_654_322
        let notificationPath: String
        let token: String
        let admin: [String: String]
        let client: [String: String]
        let workspaceId: String
        let affiliateId: String
        var ports: [UInt16] { [servers[0].port, servers.last!.port] }

        init(_ backend: StoreBackend, duration: String) async throws {
            self.backend = backend
            let directory = TemporaryDirectory()
            let rootFile = directory.path("root.der")
            try Data(signer.root.der).write(to: URL(fileURLWithPath: rootFile))
            location = try await backend.makeLocation()
            let environment = ["LINKRUNWAY_APP_STORE_ROOT": rootFile, "LINKRUNWAY_RATE_LIMIT_ADDRESS": "0", "LINKRUNWAY_RATE_LIMIT_KEY": "0",
                               "LINKRUNWAY_APPLE_ADS_URL": "http://127.0.0.1:1"]
            var servers = [try await ServerProcess(databaseURL: location.url, environment: environment)]
            if backend.name == StoreBackend.postgres.name { servers.append(try await ServerProcess(databaseURL: location.url, environment: environment)) }
            self.servers = servers
            let port = servers[0].port
            let admin = ["Authorization": "Bearer \(try #require(servers[0].printedAdminKey))"]
            self.admin = admin
            func call<T: Decodable>(_ path: String, _ body: (any Encodable)? = nil, headers: [String: String] = admin, as type: T.Type) async throws -> T {
                let text = try body.map { try TestClient.json($0) }
                let response = try await offloaded {
                    try RawHTTPConnection(port: port).request(text == nil ? "GET" : "POST", path, headers: headers, body: text ?? "")
                }
                return try JSONDecoder().decode(type, from: Data(response.body.utf8))
            }
            let workspace = try await call("/v1/workspaces", as: Page<Workspace>.self).items[0].id
            workspaceId = workspace
            let app = try await call("/v1/apps", CreateAppRequest(workspaceId: workspace, name: "R", teamId: "ABCDE12345", bundleId: bundle, appStoreId: String(appleId)),
                                     as: App.self)
            notificationPath = try await call("/v1/apps/\(app.id)/app-store-surfaces", CreateSurfaceRequest(environment: "production"), as: CreatedSurface.self)
                .surface.notificationPath
            let affiliate = try await call("/v1/affiliates", CreateAffiliateRequest(workspaceId: workspace, name: "Racer"), as: Affiliate.self)
            affiliateId = affiliate.id
            let commission = CommissionRule(kind: "percent", basisPoints: 3000, duration: duration)
            let program = try await call("/v1/affiliate-programs", CreateProgramRequest(appId: app.id, name: "P", commission: commission, holdDays: 30),
                                         as: AffiliateProgram.self)
            _ = try await call("/v1/affiliates/\(affiliate.id)/codes", CreateAffiliateCodeRequest(programId: program.id, code: "racer"), as: AffiliateCode.self)
            let key = try await call("/v1/keys", CreateKeyRequest(kind: .publishable, appId: app.id), as: CreatedKey.self).secret
            client = ["Authorization": "Bearer \(key)"]
            token = try await call("/v1/app-store/bind", BindRequest(refCode: "RACER"), headers: ["Authorization": "Bearer \(key)"], as: BindResponse.self).appAccountToken
        }

        /// A payment notification of `type` for the signed transaction, as its body.
        func body(_ type: String, transaction: String, at now: Int64) -> String {
            #"{"signedPayload":"\#(signer.notification(type, bundleId: bundle, appAppleId: appleId, transaction: transaction, signedDate: now))"}"#
        }

        /// Sends the bodies at the same instant, one to each server, and decodes the answers.
        func race(_ bodies: [String], trial: Int) async throws -> [AppStoreNotificationResult] {
            try await CommissionRaceTests.atOnce(ports: ports, path: notificationPath, headers: [:], bodies: bodies).map { answer in
                #expect(answer.status == 200, "trial \(trial): \(answer.status) \(answer.body)")
                return try JSONDecoder().decode(AppStoreNotificationResult.self, from: Data(answer.body.utf8))
            }
        }

        /// Stops the servers and reads the commissions per transaction, the accruals, and the postings that do not balance.
        func finish() async throws -> (perTransaction: [Int64], accruals: Int, unbalanced: Int) {
            for server in servers { _ = try await server.stop(signal: SIGTERM) }
            let store = try backend.open(location.url, nil)
            let result = try await store.read { db in
                (try db.query("SELECT transaction_id, COUNT(*) AS n FROM commissions GROUP BY transaction_id").map { try $0.int("n") },
                 try db.query("SELECT id FROM ledger_postings WHERE kind = 'accrual'").count,
                 try db.query("SELECT posting_id, SUM(amount) AS total FROM ledger_entries GROUP BY posting_id").filter { try $0.int("total") != 0 }.count)
            }
            await store.close()
            return result
        }
    }

    @Test("two notifications of one transaction sent at once accrue once, trial after trial, and the ledger balances",
          arguments: StoreBackend.all)
    func twoNotificationsAtOnce(_ backend: StoreBackend) async throws {
        let race = try await Fixture(backend, duration: "lifetime")
        let trials = 15
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        for trial in 0..<trials {
            let transaction = race.signer.transaction(id: "race-\(trial)", original: "race-original", bundleId: race.bundle, token: race.token, purchaseDate: now)
            let results = try await race.race([race.body("DID_RENEW", transaction: transaction, at: now), race.body("OFFER_REDEEMED", transaction: transaction, at: now)],
                                              trial: trial)
            #expect(results.map(\.status.rawValue).sorted() == ["duplicate", "ok"], "trial \(trial): \(results.map(\.status))")
            #expect(results.compactMap(\.amount) == [299], "trial \(trial): one accrual of 30% of 9.99")
        }
        let (perTransaction, accruals, unbalanced) = try await race.finish()
        #expect(perTransaction.count == trials && perTransaction.allSatisfy { $0 == 1 }, "one commission per transaction: \(perTransaction)")
        #expect(accruals == trials)
        #expect(unbalanced == 0, "every posting balances")
    }

    @Test("under a first-payment-only program, two payments of one subscription sent at once: one earns", arguments: StoreBackend.all)
    func firstPaymentAtOnce(_ backend: StoreBackend) async throws {
        let race = try await Fixture(backend, duration: "first")
        let trials = 10
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        for trial in 0..<trials {
            let bodies = (0..<2).map { payment in
                race.body("DID_RENEW", transaction: race.signer.transaction(id: "sub-\(trial)-\(payment)", original: "sub-\(trial)", bundleId: race.bundle,
                                                                           token: race.token, purchaseDate: now), at: now)
            }
            let results = try await race.race(bodies, trial: trial)
            #expect(results.map(\.status) == [.ok, .ok], "trial \(trial): \(results.map(\.status))")
            #expect(results.compactMap(\.amount).sorted() == [0, 299], "trial \(trial): only one payment of the subscription earns")
        }
        let (_, accruals, unbalanced) = try await race.finish()
        #expect(accruals == trials)
        #expect(unbalanced == 0)
    }

    @Test("payouts, INSTALL events, referral codes and Apple Ads claims sent at once are each decided once", arguments: StoreBackend.all)
    func decidedOnce(_ backend: StoreBackend) async throws {
        let race = try await Fixture(backend, duration: "lifetime")
        let ports = race.ports
        let store = try backend.open(race.location.url, nil)
        for trial in 0..<8 {
            // 100 cents payable and two payouts of all of it: one is paid, the other finds nothing left.
            try await store.write { db in
                try db.execute("""
                    INSERT INTO ledger_postings (id, workspace_id, affiliate_id, kind, currency, test, created_at)
                    VALUES (\("lp_planted_\(trial)"), \(race.workspaceId), \(race.affiliateId), 'release', 'USD', \(false), 0)
                    """)
                try db.execute("INSERT INTO ledger_entries (posting_id, line, account, amount) VALUES (\("lp_planted_\(trial)"), 0, 'commission_expense', 100)")
                try db.execute("INSERT INTO ledger_entries (posting_id, line, account, amount) VALUES (\("lp_planted_\(trial)"), 1, 'affiliate_payable', -100)")
            }
            let payouts = try await Self.atOnce(ports: ports, path: "/v1/affiliates/\(race.affiliateId)/payouts", headers: race.admin,
                                                bodies: Array(repeating: try TestClient.json(CreatePayoutRequest(currency: "USD", amount: 100)), count: 2))
            #expect(payouts.map(\.status).sorted() == [201, 409], "trial \(trial): \(payouts.map { "\($0.status) \($0.body)" })")

            let install = "racing-\(trial)"
            let match = try TestClient.json(MatchInstallRequest(installId: install, platform: "ios", consent: true))
            let matched = try await offloaded {
                try RawHTTPConnection(port: ports[0]).request("POST", "/v1/installs/match", headers: race.client, body: match)
            }
            #expect(matched.status == 200)
            let installs = try await Self.atOnce(ports: ports, path: "/v1/events", headers: race.client, bodies: (0..<2).map {
                try TestClient.json(EventRequest(eventId: "install-\(trial)-\($0)", type: "INSTALL", installId: install, timestamp: "2026-01-01T00:00:00Z"))
            })
            #expect(installs.map(\.status).sorted() == [201, 409], "trial \(trial): one INSTALL event per install: \(installs.map { "\($0.status) \($0.body)" })")

            let codes = try await Self.atOnce(ports: ports, path: "/v1/referral-codes", headers: race.client,
                                              bodies: Array(repeating: try TestClient.json(CreateReferralCodeRequest(installId: install)), count: 2))
            #expect(codes.map(\.status).sorted() == [200, 201], "trial \(trial): \(codes.map { "\($0.status) \($0.body)" })")
            let madeCodes = Set(codes.compactMap { try? JSONDecoder().decode(ReferralCode.self, from: Data($0.body.utf8)).code })
            #expect(madeCodes.count == 1, "one referral code per install")

            let claims = try await Self.atOnce(ports: ports, path: "/v1/claims/apple-ads", headers: race.client, bodies: (0..<2).map {
                try TestClient.json(AppleAdsClaimRequest(installId: install, token: "tap-\(trial)-\($0)"))
            })
            #expect(claims.allSatisfy { $0.status == 202 || $0.status == 200 }, "trial \(trial): \(claims.map { "\($0.status) \($0.body)" })")
        }
        let (payable, installEvents, claims) = try await store.read { db in
            (try Ledger.balances(db, affiliateId: AffiliateId(rawValue: race.affiliateId)).first { $0.currency == "USD" && !$0.test }?.payable,
             try db.query("SELECT install_id FROM events WHERE type = 'INSTALL'").count,
             try db.query("SELECT install_id FROM apple_ads_claims").count)
        }
        await store.close()
        #expect(payable == 0, "never overdrawn")
        #expect(installEvents == 8 && claims == 8)
        _ = try await race.finish()
    }


    /// Sends each body on a connection of its own (the i-th to `ports[i]`), released together once every connection is open.
    static func atOnce(ports: [UInt16], path: String, headers: [String: String], bodies: [String]) async throws -> [RawHTTPConnection.Response] {
        let start = DispatchSemaphore(value: 0)
        let ready = DispatchSemaphore(value: 0)
        async let answers = withThrowingTaskGroup(of: RawHTTPConnection.Response.self) { group in
            for (i, body) in bodies.enumerated() {
                group.addTask {
                    try await offloaded {
                        let connection = try RawHTTPConnection(port: ports[i])
                        ready.signal()
                        start.wait()
                        return try connection.request("POST", path, headers: headers, body: body)
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        try await offloaded { for _ in bodies { ready.wait() } }
        for _ in bodies { start.signal() }
        return try await answers
    }
}
