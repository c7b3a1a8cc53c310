import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayStore
import RunwayTestKit
import Synchronization
import Testing

/// SIGKILL under concurrent load on more write paths (install matches, postbacks, App Store notifications and the
/// ledger, affiliate binds, Apple Ads claims, App Attest assertions), then a restart: every acknowledged write is there
/// exactly once.
@Suite("Crash and restart, per write path")
struct CrashPathTests {
    /// Writers on their own connections send `request(writer, i)` until the server dies; returns what was acknowledged
    /// once there are `count` acknowledgements and `enough` holds of them.
    static func load(port: UInt16, writers: Int = 6, until count: Int, enough: @escaping @Sendable ([String]) -> Bool = { _ in true },
                     _ request: @escaping @Sendable (Int, Int) throws -> (path: String, headers: [String: String], body: String, id: String),
                     acknowledged check: @escaping @Sendable (RawHTTPConnection.Response, String) -> String?) async throws -> SharedList {
        let acknowledged = SharedList()
        let threads = (0..<writers).map { writer in
            Thread {
                guard let connection = try? RawHTTPConnection(port: port) else { return }
                for i in 0..<100_000 {
                    guard let next = try? request(writer, i),
                          let response = try? connection.request("POST", next.path, headers: next.headers, body: next.body),
                          let id = check(response, next.id) else { return }
                    acknowledged.append(id)
                }
            }
        }
        threads.forEach { $0.start() }
        let deadline = ContinuousClock.now + .seconds(30)
        while (acknowledged.count < count || !enough(acknowledged.items)) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(acknowledged.count >= count && enough(acknowledged.items), "the writes were not answered")
        return acknowledged
    }


    /// `method path` on its own connection, a wire type (if any) as the body.
    private static func call(_ port: UInt16, headers: [String: String], _ method: String, _ path: String,
                             _ body: (any Encodable)? = nil) async throws -> RawHTTPConnection.Response {
        let text = try body.map { try TestClient.json($0) } ?? ""
        return try await offloaded { try RawHTTPConnection(port: port).request(method, path, headers: headers, body: text) }
    }

    @Test("install matches and postbacks acknowledged before a SIGKILL are stored exactly once", arguments: StoreBackend.all)
    func matchesAndPostbacks(_ backend: StoreBackend) async throws {
        let location = try await backend.makeLocation()
        let server = try await ServerProcess(databaseURL: location.url, environment: ["LINKRUNWAY_RATE_LIMIT_ADDRESS": "0", "LINKRUNWAY_RATE_LIMIT_KEY": "0"])
        let admin = ["Authorization": "Bearer \(try #require(server.printedAdminKey))"]
        let port = server.port
        func call(_ method: String, _ path: String, _ body: (any Encodable)? = nil) async throws -> RawHTTPConnection.Response {
            try await Self.call(port, headers: admin, method, path, body)
        }
        let workspace = try JSONDecoder().decode(Page<Workspace>.self, from: Data(try await call("GET", "/v1/workspaces").body.utf8)).items[0].id
        let app = try JSONDecoder().decode(App.self, from: Data(try await call("POST", "/v1/apps",
            CreateAppRequest(workspaceId: workspace, name: "K", teamId: "ABCDE12345", bundleId: "com.kill.paths", appStoreId: "525463029")).body.utf8))
        let key = try JSONDecoder().decode(CreatedKey.self, from: Data(try await call("POST", "/v1/keys", CreateKeyRequest(kind: .publishable, appId: app.id)).body.utf8))
            .secret

        // Half the writers match installs, half post postbacks (each stored, valid or not, under its own receipt id).
        let acknowledged = try await Self.load(port: port, until: 400, { writer, i in
            if writer % 2 == 0 {
                let install = "kill-\(writer)-\(i)"
                return ("/v1/installs/match", ["Authorization": "Bearer \(key)"], try TestClient.json(MatchInstallRequest(installId: install, platform: "ios", consent: true)),
                        "install:" + install)
            }
            let body = #"{"version":"4.0","ad-network-id":"kill.skadnetwork","source-identifier":"52","app-id":525463029,"transaction-id":"\#(UUID().uuidString.lowercased())","redownload":false,"source-domain":"example.com","fidelity-type":1,"did-win":true,"conversion-value":\#(i % 64),"postback-sequence-index":0,"attribution-signature":"MEUCIQDq9Zk0q7jTgqkP7m0RZ8lx6uVtzKY6SvsvFnrTQ0KxfQIgG4nCzB4X0bVvK7uD2QjTTqz7bJfS4o4j2vS4QqPGK2U="}"#
            return ("/.well-known/skadnetwork/report-attribution/", ["Host": "localhost"], body, "")
        }, acknowledged: { response, _ in
            guard response.status == 200 else { return nil }
            if response.body.contains(#""installId""#) {
                return (try? JSONDecoder().decode(InstallMatch.self, from: Data(response.body.utf8))).map { "install:" + $0.installId }
            }
            return (try? JSONDecoder().decode(PostbackReceipt.self, from: Data(response.body.utf8))).map { "postback:" + $0.id }
        })
        #expect(try await server.stop(signal: SIGKILL) == SIGKILL)
        try await Task.sleep(for: .milliseconds(200))
        let acked = acknowledged.items
        #expect(acked.contains { $0.hasPrefix("install:") } && acked.contains { $0.hasPrefix("postback:") })

        let store = try backend.open(location.url, nil)
        let (stored, rejectionsCounted) = try await store.read { db in
            (try db.query("SELECT install_id AS id FROM installs WHERE app_id = \(app.id)").map { "install:" + (try $0.string("id")) }
                + db.query("SELECT id FROM postbacks").map { "postback:" + (try $0.string("id")) },
             try db.first("SELECT COALESCE(SUM(count), 0) AS n FROM postback_rejections")!.int("n"))
        }
        await store.close()
        let counts = Dictionary(stored.map { ($0, 1) }, uniquingKeysWith: +)
        // These postbacks fail verification: past the day's sample they are counted, not stored.
        let missing = acked.filter { counts[$0] == nil }
        #expect(missing.filter { $0.hasPrefix("install:") }.isEmpty, "acknowledged installs were lost: \(missing.prefix(3))")
        #expect(Int64(missing.filter { $0.hasPrefix("postback:") }.count) <= rejectionsCounted,
                "\(missing.count) of \(acked.count) acknowledged postbacks are neither stored nor counted")
        #expect(counts.values.allSatisfy { $0 == 1 }, "nothing is stored twice")

        // The restarted server gives an acknowledged install the answer it gave before the crash.
        let again = try await ServerProcess(databaseURL: location.url)
        let install = try #require(acked.first { $0.hasPrefix("install:") }).dropFirst("install:".count)
        let answer = try await Self.call(again.port, headers: ["Authorization": "Bearer \(key)"], "POST", "/v1/installs/match",
                                         MatchInstallRequest(installId: String(install), platform: "ios", consent: true))
        #expect(answer.status == 200)
        _ = try await again.stop(signal: SIGTERM)
    }

    @Test("App Store notifications acknowledged before a SIGKILL accrued once each, and the ledger balances", arguments: StoreBackend.all)
    func notificationsAndLedger(_ backend: StoreBackend) async throws {
        let signer = AppStoreTestSigner()
        let directory = TemporaryDirectory()
        let rootFile = directory.path("root.der")
        try Data(signer.root.der).write(to: URL(fileURLWithPath: rootFile))
        let location = try await backend.makeLocation()
        let server = try await ServerProcess(databaseURL: location.url, environment: [
            "LINKRUNWAY_APP_STORE_ROOT": rootFile, "LINKRUNWAY_RATE_LIMIT_ADDRESS": "0", "LINKRUNWAY_RATE_LIMIT_KEY": "0"])
        let admin = ["Authorization": "Bearer \(try #require(server.printedAdminKey))"]
        let port = server.port
        func call<T: Decodable>(_ path: String, _ body: (any Encodable)? = nil, headers: [String: String] = admin, as type: T.Type) async throws -> T {
            let response = try await Self.call(port, headers: headers, body == nil ? "GET" : "POST", path, body)
            return try JSONDecoder().decode(type, from: Data(response.body.utf8))
        }
        let workspace = try await call("/v1/workspaces", as: Page<Workspace>.self).items[0].id
        let bundle = "com.example.killed", appleId: Int64 = 7_654_321
        let app = try await call("/v1/apps", CreateAppRequest(workspaceId: workspace, name: "S", teamId: "ABCDE12345", bundleId: bundle, appStoreId: String(appleId)),
                                 as: App.self)
        let surface = try await call("/v1/apps/\(app.id)/app-store-surfaces", CreateSurfaceRequest(environment: "production"), as: CreatedSurface.self).surface
        let affiliate = try await call("/v1/affiliates", CreateAffiliateRequest(workspaceId: workspace, name: "K"), as: Affiliate.self)
        let commission = CommissionRule(kind: "percent", basisPoints: 3000, duration: "lifetime")
        let program = try await call("/v1/affiliate-programs", CreateProgramRequest(appId: app.id, name: "P", commission: commission, holdDays: 30),
                                     as: AffiliateProgram.self)
        _ = try await call("/v1/affiliates/\(affiliate.id)/codes", CreateAffiliateCodeRequest(programId: program.id, code: "killer"), as: AffiliateCode.self)
        let key = try await call("/v1/keys", CreateKeyRequest(kind: .publishable, appId: app.id), as: CreatedKey.self).secret
        let token = try await call("/v1/app-store/bind", BindRequest(refCode: "KILLER"), headers: ["Authorization": "Bearer \(key)"], as: BindResponse.self)
            .appAccountToken

        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let probe = signer.notification("DID_RENEW", bundleId: bundle, appAppleId: appleId,
                                        transaction: signer.transaction(id: "probe", bundleId: bundle, token: token, purchaseDate: now), signedDate: now)
        let first = try await offloaded { try RawHTTPConnection(port: port).request("POST", surface.notificationPath, body: #"{"signedPayload":"\#(probe)"}"#) }
        #expect(first.status == 200 && first.body.contains(#""amount":299"#), "a renewal accrues 30% of 9.99: \(first.status) \(first.body)")
        let acknowledged = try await Self.load(port: port, until: 150, { writer, i in
            let uuid = UUID().uuidString.lowercased()
            let transaction = signer.transaction(id: "t-\(writer)-\(i)", original: "o-\(writer)-\(i)", bundleId: bundle, token: token,
                                                 price: 9990, currency: "USD", purchaseDate: now)
            let payload = signer.notification("DID_RENEW", uuid: uuid, bundleId: bundle, appAppleId: appleId, transaction: transaction, signedDate: now)
            return (surface.notificationPath, [:], #"{"signedPayload":"\#(payload)"}"#, uuid)
        }, acknowledged: { response, _ in
            guard response.status == 200, let result = try? JSONDecoder().decode(AppStoreNotificationResult.self, from: Data(response.body.utf8)),
                  result.status == .ok, result.amount == 299 else { return nil }
            return result.notificationUUID
        })
        #expect(try await server.stop(signal: SIGKILL) == SIGKILL)
        try await Task.sleep(for: .milliseconds(200))
        let acked = Set(acknowledged.items)

        let store = try backend.open(location.url, nil)
        let (seen, accrued, unbalanced) = try await store.read { db in
            (try db.query("SELECT notification_uuid FROM app_store_notifications").map { try $0.string("notification_uuid") },
             try db.query("SELECT notification_uuid FROM ledger_postings WHERE kind = 'accrual'").map { try $0.optionalString("notification_uuid") ?? "" },
             try db.query("SELECT posting_id, SUM(amount) AS total FROM ledger_entries GROUP BY posting_id").filter { try $0.int("total") != 0 }.count)
        }
        await store.close()
        #expect(acked.isSubset(of: Set(seen)), "\(acked.subtracting(seen).count) acknowledged notifications are missing")
        let accruals = Dictionary(accrued.map { ($0, 1) }, uniquingKeysWith: +)
        #expect(acked.allSatisfy { accruals[$0] == 1 }, "each acknowledged notification accrued exactly once")
        #expect(accruals.values.allSatisfy { $0 == 1 })
        #expect(unbalanced == 0, "every posting of the ledger balances")
    }

    @Test("affiliate binds and Apple Ads claims acknowledged before a SIGKILL are stored exactly once", arguments: StoreBackend.all)
    func bindsAndClaims(_ backend: StoreBackend) async throws {
        let location = try await backend.makeLocation()
        let server = try await ServerProcess(databaseURL: location.url, environment: [
            "LINKRUNWAY_APPLE_ADS_URL": "http://127.0.0.1:1", "LINKRUNWAY_RATE_LIMIT_ADDRESS": "0", "LINKRUNWAY_RATE_LIMIT_KEY": "0"])
        let admin = ["Authorization": "Bearer \(try #require(server.printedAdminKey))"]
        let port = server.port
        func call<T: Decodable>(_ path: String, _ body: (any Encodable)? = nil, as type: T.Type) async throws -> T {
            let response = try await Self.call(port, headers: admin, body == nil ? "GET" : "POST", path, body)
            return try JSONDecoder().decode(type, from: Data(response.body.utf8))
        }
        let workspace = try await call("/v1/workspaces", as: Page<Workspace>.self).items[0].id
        let app = try await call("/v1/apps", CreateAppRequest(workspaceId: workspace, name: "B", teamId: "ABCDE12345", bundleId: "com.kill.binds", appStoreId: "765"),
                                 as: App.self)
        let affiliate = try await call("/v1/affiliates", CreateAffiliateRequest(workspaceId: workspace, name: "K"), as: Affiliate.self)
        let commission = CommissionRule(kind: "percent", basisPoints: 1000, duration: "lifetime")
        let program = try await call("/v1/affiliate-programs", CreateProgramRequest(appId: app.id, name: "P", commission: commission, holdDays: 0),
                                     as: AffiliateProgram.self)
        _ = try await call("/v1/affiliates/\(affiliate.id)/codes", CreateAffiliateCodeRequest(programId: program.id, code: "binder"), as: AffiliateCode.self)
        let key = try await call("/v1/keys", CreateKeyRequest(kind: .publishable, appId: app.id), as: CreatedKey.self).secret
        let client = ["Authorization": "Bearer \(key)"]
        // Every install a claim is for exists before the load.
        for i in 0..<400 {
            _ = try await Self.call(port, headers: client, "POST", "/v1/installs/match", MatchInstallRequest(installId: "c-\(i)", platform: "ios", consent: true))
        }
        let claimed = Atomic<Int>(0)
        // Claims are slower than binds (each asks the AdServices stand-in): wait for some of each.
        let acknowledged = try await Self.load(port: port, writers: 4, until: 150, enough: { items in
            items.contains { $0.hasPrefix("claim:") } && items.contains { $0.hasPrefix("bind:") }
        }, { writer, i in
            if writer % 2 == 0 {
                return ("/v1/app-store/bind", client, try TestClient.json(BindRequest(refCode: "BINDER", installId: "b-\(writer)-\(i)")), "")
            }
            let install = "c-\(claimed.add(1, ordering: .relaxed).newValue % 400)"
            return ("/v1/claims/apple-ads", client, try TestClient.json(AppleAdsClaimRequest(installId: install, token: "tap-\(writer)-\(i)")), install)
        }, acknowledged: { response, _ in
            if response.status == 200, let bind = try? JSONDecoder().decode(BindResponse.self, from: Data(response.body.utf8)) {
                return "bind:" + bind.appAccountToken.lowercased()
            }
            if response.status == 202 || response.status == 200, let claim = try? JSONDecoder().decode(AppleAdsClaim.self, from: Data(response.body.utf8)) {
                return "claim:" + claim.installId
            }
            return nil
        })
        #expect(try await server.stop(signal: SIGKILL) == SIGKILL)
        try await Task.sleep(for: .milliseconds(200))
        let acked = Set(acknowledged.items)
        #expect(acked.contains { $0.hasPrefix("bind:") } && acked.contains { $0.hasPrefix("claim:") })

        let store = try backend.open(location.url, nil)
        let stored = try await store.read { db in
            try db.query("SELECT token FROM app_account_tokens").map { "bind:" + (try $0.string("token")).lowercased() }
                + db.query("SELECT install_id FROM apple_ads_claims WHERE app_id = \(app.id)").map { "claim:" + (try $0.string("install_id")) }
        }
        await store.close()
        let counts = Dictionary(stored.map { ($0, 1) }, uniquingKeysWith: +)
        let missing = acked.filter { counts[$0] == nil }
        #expect(missing.isEmpty, "\(missing.count) of \(acked.count) acknowledged binds and claims were lost: \(missing.prefix(3))")
        #expect(counts.values.allSatisfy { $0 == 1 }, "nothing is stored twice")
    }

    @Test("App Attest assertions acknowledged before a SIGKILL: the counters never go back, and no acknowledged assertion's challenge is left",
          arguments: StoreBackend.all)
    func assertionCounters(_ backend: StoreBackend) async throws {
        let location = try await backend.makeLocation()
        let server = try await ServerProcess(databaseURL: location.url, environment: ["LINKRUNWAY_RATE_LIMIT_ADDRESS": "0", "LINKRUNWAY_RATE_LIMIT_KEY": "0"])
        let admin = ["Authorization": "Bearer \(try #require(server.printedAdminKey))"]
        let port = server.port
        func call(_ method: String, _ path: String, _ body: (any Encodable)? = nil) async throws -> RawHTTPConnection.Response {
            try await Self.call(port, headers: admin, method, path, body)
        }
        let workspace = try JSONDecoder().decode(Page<Workspace>.self, from: Data(try await call("GET", "/v1/workspaces").body.utf8)).items[0].id
        let app = try JSONDecoder().decode(App.self, from: Data(try await call("POST", "/v1/apps",
            CreateAppRequest(workspaceId: workspace, name: "A", teamId: "ABCDE12345", bundleId: "com.kill.attest")).body.utf8))
        let attestation = AttestationSettings(policy: "optional", environments: ["production"])
        #expect(try await call("PATCH", "/v1/apps/\(app.id)", UpdateAppRequest(attestation: attestation)).status == 200)
        let clientKey = try JSONDecoder().decode(CreatedKey.self, from: Data(try await call("POST", "/v1/keys", CreateKeyRequest(kind: .publishable, appId: app.id)).body.utf8))
            .secret

        // One attested key per writer (counters rise within a key), and challenges planted as if each had been asked for.
        let writers = 4, perWriter = 400
        let keys = (0..<writers).map { _ in PrivateKey.generateP256()! }
        let keyIds = keys.map { Data(Digest.sha256($0.publicKey!.ecPoint!)).base64EncodedString() }
        let store = try backend.open(location.url, nil)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try await store.write { db in
            for (writer, key) in keys.enumerated() {
                try db.execute("""
                    INSERT INTO attest_keys (app_id, key_id, install_id, public_key, receipt, environment, counter, created_at, last_used_at)
                    VALUES (\(app.id), \(keyIds[writer]), \("attested-\(writer)"), \(ByteEncoding.hex(key.publicKey!.spki)), '', 'production', 0, \(now), \(now))
                    """)
                for i in 0..<perWriter {
                    try db.execute("INSERT INTO attest_challenges (app_id, challenge, created_at) VALUES (\(app.id), \("c-\(writer)-\(i)"), \(now))")
                }
            }
        }
        await store.close()

        let appId = "ABCDE12345.com.kill.attest"
        let acknowledged = try await Self.load(port: port, writers: writers, until: 200, { writer, i in
            let counter = UInt32(i + 1), challenge = "c-\(writer)-\(i)"
            let authData = Digest.sha256(appId) + [0x40] + withUnsafeBytes(of: counter.bigEndian, Array.init)
            let signature = keys[writer].sign(Digest.sha256(authData + Digest.sha256(challenge)))!
            let assertion = Data(TestCBOR.map([("signature", .bytes(signature)), ("authenticatorData", .bytes(authData))])).base64EncodedString()
            let body = try TestClient.json(AttestAssertRequest(appId: app.id, keyId: keyIds[writer], assertion: assertion, challenge: challenge,
                                                         installId: "attested-\(writer)"))
            return ("/v1/attest/apple/assert", ["Authorization": "Bearer \(clientKey)"], body, "\(writer) \(counter)")
        }, acknowledged: { response, sent in response.status == 201 || response.status == 200 ? sent : nil })
        #expect(try await server.stop(signal: SIGKILL) == SIGKILL)
        try await Task.sleep(for: .milliseconds(200))
        // The highest counter each writer had acknowledged.
        var highest = [Int64](repeating: 0, count: writers)
        for item in acknowledged.items {
            let parts = item.split(separator: " ").compactMap { Int64($0) }
            highest[Int(parts[0])] = max(highest[Int(parts[0])], parts[1])
        }

        let after = try backend.open(location.url, nil)
        let (counters, unspent) = try await after.read { db in
            (try db.query("SELECT key_id, counter FROM attest_keys WHERE app_id = \(app.id)").map { (try $0.string("key_id"), try $0.int("counter")) },
             try db.query("SELECT challenge FROM attest_challenges WHERE app_id = \(app.id)").map { try $0.string("challenge") })
        }
        await after.close()
        let stored = Dictionary(counters, uniquingKeysWith: { a, _ in a })
        for (writer, keyId) in keyIds.enumerated() {
            let counter = stored[keyId] ?? 0
            #expect(counter >= highest[writer], "key \(writer): counter \(counter) below the acknowledged \(highest[writer])")
            let spent = (0..<perWriter).filter { !unspent.contains("c-\(writer)-\($0)") }.count
            // A challenge is spent before its assertion is checked: the one in flight at the kill may be spent without
            // raising the counter (the client asks for a new one), never the other way round.
            #expect(counter <= Int64(spent) && Int64(spent) <= counter + 1, "key \(writer): counter \(counter), challenges spent \(spent)")
        }
    }
}
