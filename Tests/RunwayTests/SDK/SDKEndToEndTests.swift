import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LinkRunway
import LinkRunwayAPI
import RunwayCapabilities
import RunwayConsole
import RunwayDevTools
import RunwayHTTP
import RunwayKit
import RunwaySQLite
import RunwayServer
import RunwayStore
import RunwayTestKit
import Synchronization
import Testing

/// The SDK against the real `linkrunway` binary on a real socket with a SQLite file: no stub between them.
@Suite("SDK end to end")
struct SDKEndToEndTests {
    /// SKAdNetwork and AdAttributionKit as recorders (they exist only on devices).
    final class Frameworks: ConversionFramework, @unchecked Sendable {
        let name: String
        let calls = Mutex<[Int]>([])
        init(_ name: String) { self.name = name }
        func update(fine: Int, coarse: CoarseValue?, lockWindow: Bool, conversionTag: String?) async throws { calls.withLock { $0.append(fine) } }
    }

    struct Token: AdServicesTokenProvider {
        func attributionToken() throws -> String { "tap" }
    }

    /// A small admin client for the server under test.
    struct Admin {
        let base: String
        let key: String

        /// Sends `body`, a wire type, as JSON.
        func call(_ method: String, _ path: String, _ body: (any Encodable)? = nil, headers: [String: String] = [:]) async throws -> (Int, [String: Any]) {
            try await call(method, path, json: try body.map { String(decoding: try TestClient.encoded($0), as: UTF8.self) }, headers: headers)
        }

        /// Text is sent with `json:`; here it would be encoded as one JSON string.
        @available(*, unavailable, message: "pass the wire type, or the text as json:")
        func call(_ method: String, _ path: String, _ body: String, headers: [String: String] = [:]) async throws -> (Int, [String: Any]) {
            fatalError("unavailable")
        }

        /// Sends JSON text as it is: a body in Apple's format.
        func call(_ method: String, _ path: String, json: String?, headers: [String: String] = [:]) async throws -> (Int, [String: Any]) {
            var request = URLRequest(url: URL(string: base + path)!)
            request.httpMethod = method
            request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
            // A connection of its own each call: URLSession.shared could otherwise reuse one an earlier test's server (on
            // a port given out again) or this server's idle timeout closed, and a POST on it is not retried.
            request.setValue("close", forHTTPHeaderField: "Connection")
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            if let json {
                request.httpBody = Data(json.utf8)
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            let (data, response) = try await URLSession.shared.data(for: request)
            return ((response as! HTTPURLResponse).statusCode, (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:])
        }
    }

    @Test("a deferred deep link from a real click to the app, then events, conversions, links, Apple Ads and deletion")
    func firstLaunch() async throws {
        let directory = TemporaryDirectory()
        let adServices = try FakeAdServices(logger: Logger(level: .error, sink: .memory()))
        let server = try await ServerProcess(databaseURL: "sqlite:" + directory.path("sdk.db"), environment: ["LINKRUNWAY_APPLE_ADS_URL": adServices.baseURL])
        let base = "http://127.0.0.1:\(server.port)"
        let admin = Admin(base: base, key: try #require(server.printedAdminKey))
        let workspace = try #require(((try await admin.call("GET", "/v1/workspaces")).1["items"] as? [[String: Any]])?.first?["id"] as? String)
        let (created, app) = try await admin.call("POST", "/v1/apps", Deployment.app(in: workspace))
        #expect(created == 201)
        let appId = try #require(app["id"] as? String)
        _ = try await admin.call("POST", "/v1/links", Deployment.link(in: workspace, app: appId))
        _ = try await admin.call("PUT", "/v1/apps/\(appId)/conversion-schema", ConversionSchemaRequest(rules: [
            ConversionRule(type: "INSTALL", fine: 0), ConversionRule(type: "SIGNUP", fine: 12, coarse: "medium"),
            ConversionRule(type: "PURCHASE", minAmount: 4999, fine: 40, coarse: "high"),
        ]))
        let publishable = try #require((try await admin.call("POST", "/v1/keys", CreateKeyRequest(kind: .publishable, appId: appId))).1["secret"] as? String)

        // A person taps the link on an iPhone (from this machine's address, which opens the local domain's links as
        // localhost does): the click is stored before the redirect.
        var tap = URLRequest(url: URL(string: base + "/summer")!)
        tap.setValue("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)", forHTTPHeaderField: "User-Agent")
        let redirect = try await RedirectCatcher.status(of: tap)
        #expect(redirect == 302)

        // First launch of the app.
        let skan = Frameworks("skadnetwork"), aak = Frameworks("adattributionkit")
        let runway = LinkRunway(endpoint: URL(string: base)!, publishableKey: publishable, suiteName: "sdk-e2e-\(UUID())", session: .shared,
                                dependencies: LinkRunwayDependencies(device: DeviceInfo(platform: "ios", osVersion: "17.4", language: "en"),
                                                                     conversionFrameworks: [skan, aak], adServices: Token()))
        await runway.setConsent(true)
        #expect(try await runway.configureConversions(appId: appId) == 1)
        let match = try #require(try await runway.matchInstall())
        #expect(match.matched && match.method == .probabilistic && match.path == "/promo/summer", "\(match)")
        try await runway.install()
        try await runway.track(type: "SIGNUP", userId: "user-1")
        let update = await runway.recordConversion(event: "PURCHASE", amount: 4999)
        #expect(update?.fine == 40 && update?.frameworks == ["skadnetwork", "adattributionkit"])
        #expect(skan.calls.withLock { $0 }.contains(12), "SIGNUP updated the value too")
        let opened = try #require(try await runway.open(URL(string: "https://localhost/summer")!))
        #expect(opened.path == "/promo/summer")
        let share = try await runway.createShare(appPath: "/recipes/42")
        #expect(share.url.hasPrefix("http://localhost:\(server.port)/"), "a local link is printed as one can click it")
        let code = try await runway.createReferralCode(userId: "user-1")
        #expect(!code.code.isEmpty)
        let claim = try #require(try await runway.submitAdServicesToken())
        #expect(claim.status == "attributed" && claim.campaignId != nil)

        // What the server holds.
        let installId = try #require(await runway.installId())
        let (_, explanation) = try await admin.call("GET", "/v1/installs/\(installId)/attribution")
        let matched = try #require(explanation["match"] as? [String: Any])
        #expect(matched["method"] as? String == "probabilistic" && matched["campaign"] as? String == "summer")
        let (_, export) = try await admin.call("GET", "/v1/installs/\(installId)/export")
        let types = (export["events"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }.sorted()
        #expect(types == ["INSTALL", "SIGNUP"])
        #expect((export["appleAds"] as? [String: Any])?["status"] as? String == "attributed")
        #expect((export["referralCodes"] as? [[String: Any]])?.count == 1 && (export["sharedLinkIds"] as? [String])?.count == 1)

        // Someone else with the app's publishable key (anyone can read it from the app) cannot delete this install.
        let forged = try await offloaded {
            try RawHTTPConnection(port: server.port).request("POST", "/v1/installs/\(installId)/forget", headers: ["Authorization": "Bearer \(publishable)"])
        }
        #expect(forged.status == 403 && forged.body.contains("install_secret_mismatch"))
        #expect((try await admin.call("GET", "/v1/installs/\(installId)/attribution")).0 == 200, "still there")

        // The person withdraws consent and asks for deletion: the SDK proves the install is this device's.
        try await runway.forgetInstallation()
        #expect(await runway.installId() == nil)
        #expect((try await admin.call("GET", "/v1/installs/\(installId)/attribution")).0 == 404)
        #expect(try await runway.track(type: "OPEN") == nil, "nothing is sent after withdrawal")
        _ = try await server.stop(signal: SIGTERM)
        await adServices.server.shutdown()
        _ = directory
    }

    /// A clock the test moves (the SDK's schema waits and conversion windows are in its time).
    final class DeviceClock: Sendable {
        let current = Mutex(Date())
        func advance(_ seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
        var now: Date { current.withLock { $0 } }
    }

    /// A server with an app (probabilistic matching on), a link `summer`, a conversion schema and a publishable key.
    struct Deployment {
        let server: ServerProcess
        let base: String
        let admin: Admin
        let workspace: String
        let appId: String
        let publishable: String

        static let schema = ConversionSchemaRequest(rules: [
            ConversionRule(type: "INSTALL", fine: 0), ConversionRule(type: "SIGNUP", fine: 12, coarse: "medium"),
            ConversionRule(type: "CUSTOM", name: "paywall", fine: 20), ConversionRule(type: "CUSTOM", name: "trial", fine: 30, coarse: "high", lockWindow: true),
        ], laterWindows: [LaterWindow(window: 2, rules: [LaterWindowRule(type: "LOGIN", coarse: "high")])])

        /// The app: probabilistic matching for an hour.
        static func app(in workspace: String) -> CreateAppRequest {
            CreateAppRequest(workspaceId: workspace, name: "Runway", teamId: "ABCDE12345", bundleId: "com.example.runway", appStoreId: "525463029",
                             attribution: AttributionSettingsUpdate(probabilisticMinutes: 60))
        }

        /// The link `summer` into the app.
        static func link(in workspace: String, app: String) -> CreateLinkRequest {
            CreateLinkRequest(workspaceId: workspace, appId: app, path: "summer", appPath: "/promo/summer", campaign: "summer")
        }

        static func start(_ directory: TemporaryDirectory, environment: [String: String] = [:]) async throws -> Deployment {
            let server = try await ServerProcess(databaseURL: "sqlite:" + directory.path("sdk.db"), environment: environment)
            let base = "http://127.0.0.1:\(server.port)"
            let admin = Admin(base: base, key: try #require(server.printedAdminKey))
            let workspace = try #require(((try await admin.call("GET", "/v1/workspaces")).1["items"] as? [[String: Any]])?.first?["id"] as? String)
            let (_, app) = try await admin.call("POST", "/v1/apps", Deployment.app(in: workspace))
            let appId = try #require(app["id"] as? String)
            _ = try await admin.call("POST", "/v1/links", Deployment.link(in: workspace, app: appId))
            _ = try await admin.call("PUT", "/v1/apps/\(appId)/conversion-schema", schema)
            let publishable = try #require((try await admin.call("POST", "/v1/keys", CreateKeyRequest(kind: .publishable, appId: appId))).1["secret"] as? String)
            return Deployment(server: server, base: base, admin: admin, workspace: workspace, appId: appId, publishable: publishable)
        }

        /// The app on a device: `suite` is its UserDefaults, so a new instance with the same suite is a later launch. Its
        /// waits between retries are recorded in `sleeps`, and only really waited with `realWaits`.
        func runway(suite: String, clock: DeviceClock, platform: String = "ios", frameworks: [any ConversionFramework] = [],
                    adServices: (any AdServicesTokenProvider)? = nil, appTransaction: (any AppTransactionProvider)? = nil,
                    sleeps: Sleeps? = nil, realWaits: Bool = false) -> LinkRunway {
            LinkRunway(endpoint: URL(string: base)!, publishableKey: publishable, suiteName: suite, session: .shared,
                       dependencies: LinkRunwayDependencies(device: DeviceInfo(platform: platform, osVersion: "17.4", language: "en"),
                                                            conversionFrameworks: frameworks, adServices: adServices, appTransaction: appTransaction,
                                                            now: { clock.now },
                                                            sleep: { seconds in
                                                                sleeps?.values.withLock { $0.append(seconds) }
                                                                if realWaits { try? await Task.sleep(for: .milliseconds(Int(min(seconds, 8) * 1000))) }
                                                            },
                                                            // The fakes answer at once, but the whole suite shares two cores:
                                                            // a detached call can wait seconds for a thread, and the default five
                                                            // would give up on an update the fake then records.
                                                            appleCallTimeout: 60))
        }

        /// The program "Creators" (a fifth of each payment, for life, no hold) and its affiliate Alice with the code `alice`.
        func creators(offerCode: String? = nil) async throws -> (program: String, affiliate: String) {
            let commission = CommissionRule(kind: "percent", basisPoints: 2000, duration: "lifetime")
            let program = try #require((try await admin.call("POST", "/v1/affiliate-programs", CreateProgramRequest(appId: appId, name: "Creators", commission: commission,
                                                                                                                    holdDays: 0, offerCode: offerCode))).1["id"] as? String)
            let affiliate = try #require((try await admin.call("POST", "/v1/affiliates", CreateAffiliateRequest(workspaceId: workspace, name: "Alice"))).1["id"] as? String)
            #expect((try await admin.call("POST", "/v1/affiliates/\(affiliate)/codes", CreateAffiliateCodeRequest(programId: program, code: "alice"))).0 == 201)
            return (program, affiliate)
        }

        /// A person taps `/summer` on an iPhone from this machine's address: the click is stored before the redirect.
        func tap() async throws {
            var request = URLRequest(url: URL(string: base + "/summer")!)
            request.setValue("localhost", forHTTPHeaderField: "Host")
            request.setValue("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)", forHTTPHeaderField: "User-Agent")
            #expect(try await RedirectCatcher.status(of: request) == 302)
        }

        /// Installs counted and events by type, from the funnel report.
        func funnel() async throws -> (installs: Int, events: [String: Int], rows: [[String: Any]]) {
            let (_, report) = try await admin.call("GET", "/v1/reports/funnel?groupBy=source&workspaceId=\(workspace)")
            let rows = report["rows"] as? [[String: Any]] ?? []
            var events: [String: Int] = [:]
            for row in rows { for (type, n) in row["events"] as? [String: Int] ?? [:] { events[type, default: 0] += n } }
            return (rows.compactMap { $0["installs"] as? Int }.reduce(0, +), events, rows)
        }

        func export(_ installId: String) async throws -> (Int, [String: Any], String) {
            var request = URLRequest(url: URL(string: base + "/v1/installs/\(installId)/export")!)
            request.setValue("Bearer \(admin.key)", forHTTPHeaderField: "Authorization")
            let (data, response) = try await URLSession.shared.data(for: request)
            let text = String(decoding: data, as: UTF8.self)
            return ((response as! HTTPURLResponse).statusCode, (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:], text)
        }
    }

    /// The waits the SDK asked for.
    final class Sleeps: Sendable { let values = Mutex<[Double]>([]) }

    struct AppTransactionID: AppTransactionProvider {
        func appTransactionID() async -> String? { "704289572311469613" }
    }

    /// StoreKit on a device: the id and Apple's signed copy of the app transaction.
    struct SignedAppTransaction: AppTransactionProvider {
        let id: String
        let jws: String
        func appTransactionID() async -> String? { id }
        func signedAppTransaction() async -> String? { jws }
    }

    @Test("the SDK sends Apple's signed app transaction with its first match, and a renewal without a token then credits the install's bind")
    func signedAppTransaction() async throws {
        let directory = TemporaryDirectory()
        let signer = AppStoreTestSigner()
        let rootPath = directory.path("app-store-root.der")
        try Data(signer.root.der).write(to: URL(fileURLWithPath: rootPath))
        let d = try await Deployment.start(directory, environment: ["LINKRUNWAY_APP_STORE_ROOT": rootPath])
        _ = try await d.creators()
        let surface = try #require((try await d.admin.call("POST", "/v1/apps/\(d.appId)/app-store-surfaces", CreateSurfaceRequest(environment: "production"))).1["surface"]
            as? [String: Any])
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let id = "704289572311469999"
        let jws = signer.appTransaction(id: id, bundleId: "com.example.runway", appAppleId: 525_463_029, signedDate: now)
        let runway = d.runway(suite: "sdk-e2e-\(UUID())", clock: DeviceClock(), appTransaction: SignedAppTransaction(id: id, jws: jws))
        await runway.setConsent(true)
        _ = try await runway.matchInstall()
        _ = try #require(try await runway.bindAffiliate(refCode: "alice"))

        // A renewal on another device of the account carries no appAccountToken, only the app transaction id.
        let transaction = signer.transaction(id: "e2e-1", bundleId: "com.example.runway", token: nil, purchaseDate: now,
                                             extra: [("appTransactionId", .string(id))])
        let notification = signer.notification("DID_RENEW", bundleId: "com.example.runway", appAppleId: 525_463_029, transaction: transaction,
                                               signedDate: now)
        let path = try #require(surface["notificationPath"] as? String)
        let (status, result) = try await d.admin.call("POST", path, json: #"{"signedPayload":"\#(notification)"}"#)
        #expect(status == 200 && result["status"] as? String == "ok" && result["amount"] as? Int == 199, "\(result)")
        _ = try await d.server.stop(signal: SIGTERM)
        _ = directory
    }

    @Test("consent withdrawn and given again: every call works, the installation is counted once, and nothing ties the two ids")
    func consentGivenAgain() async throws {
        let directory = TemporaryDirectory()
        let adServices = try FakeAdServices(logger: Logger(level: .error, sink: .memory()))
        let d = try await Deployment.start(directory, environment: ["LINKRUNWAY_APPLE_ADS_URL": adServices.baseURL])
        try await d.tap()
        let clock = DeviceClock()
        let skan = Frameworks("skadnetwork")
        let runway = d.runway(suite: "sdk-e2e-\(UUID())", clock: clock, frameworks: [skan], adServices: Token(), appTransaction: AppTransactionID())
        await runway.setConsent(true)
        _ = try await runway.configureConversions(appId: d.appId)
        let first = try #require(try await runway.matchInstall())
        #expect(first.matched && first.method == .probabilistic)
        try await runway.install()
        try await runway.track(type: "SIGNUP", userId: "user-1")
        #expect(try await runway.submitAdServicesToken()?.status == "attributed")
        let oldId = try #require(await runway.installId())

        // The person withdraws consent (without asking for deletion), then gives it again.
        await runway.setConsent(false)
        try await d.tap()  // a click from the same address: the returning id must not take it
        await runway.setConsent(true)
        let newId = try #require(await runway.installId())
        #expect(newId != oldId)
        let again = try #require(try await runway.matchInstall())
        #expect(!again.matched && again.method == .unmatched && again.clickId == nil)
        try await runway.install()
        #expect(try await runway.track(type: "LOGIN")?.status == "stored", "events of the new id are accepted, not unknown_install")
        #expect(try await runway.track(type: "CUSTOM", name: "paywall")?.status == "stored")
        #expect(try await runway.submitAdServicesToken() == nil, "the claim was made once, for the installation")
        #expect(try await runway.createShare(appPath: "/recipes/1").url.hasPrefix("http://localhost:\(d.server.port)/"))

        // The server counted one installation with one INSTALL event; the new id's data says nothing of the old one.
        let funnel = try await d.funnel()
        #expect(funnel.installs == 1 && funnel.events["INSTALL"] == 1 && funnel.events["SIGNUP"] == 1 && funnel.events["LOGIN"] == 1)
        #expect(funnel.rows.first { $0["key"] as? String == "returning" }?["installs"] as? Int == 0)
        let (status, export, text) = try await d.export(newId)
        #expect(status == 200)
        #expect(((export["attribution"] as? [String: Any])?["match"] as? [String: Any])?["source"] as? String == "returning")
        #expect(!text.contains(oldId) && !text.contains(first.clickId ?? "-") && !text.contains("704289572311469613"))
        let (_, oldExport, _) = try await d.export(oldId)
        #expect((oldExport["events"] as? [[String: Any]])?.count == 2, "the old id keeps its INSTALL and SIGNUP")
        _ = try await d.server.stop(signal: SIGTERM)
        await adServices.server.shutdown()
        _ = directory
    }

    @Test("consent given again with no matchInstall(): events, deletion and an Apple Ads claim never made work at once; INSTALL alone then a match counts the installation once")
    func consentGivenAgainWithoutMatch() async throws {
        let directory = TemporaryDirectory()
        let adServices = try FakeAdServices(logger: Logger(level: .error, sink: .memory()))
        let d = try await Deployment.start(directory, environment: ["LINKRUNWAY_APPLE_ADS_URL": adServices.baseURL])
        let clock = DeviceClock()

        // A device whose app never calls matchInstall(): INSTALL registers it, then consent is withdrawn and given again.
        let a = d.runway(suite: "sdk-e2e-\(UUID())", clock: clock, appTransaction: AppTransactionID())
        await a.setConsent(true)
        try await a.install()
        await a.setConsent(false)
        await a.setConsent(true)
        let aId = try #require(await a.installId())
        #expect(try await a.track(type: "LOGIN")?.status == "stored", "tracked straight away, not refused as unknown_install")
        #expect(try await a.track(type: "CUSTOM", name: "paywall")?.status == "stored")
        #expect(await a.sendPendingEvents() == 0)
        let (_, aExport, aText) = try await d.export(aId)
        #expect(((aExport["attribution"] as? [String: Any])?["match"] as? [String: Any])?["source"] as? String == "returning")
        #expect(!aText.contains("704289572311469613"), "no app transaction id with a returning id")

        // Another: INSTALL alone, consent again, and this time the app asks for the match itself.
        let b = d.runway(suite: "sdk-e2e-\(UUID())", clock: clock)
        await b.setConsent(true)
        try await b.install()
        await b.setConsent(false)
        await b.setConsent(true)
        let match = try #require(try await b.matchInstall())
        #expect(!match.matched && match.method == .unmatched)
        try await b.install()
        #expect(try await b.track(type: "LOGIN")?.status == "stored")

        // A third asks for deletion right after new consent, before anything registered the new id.
        let c = d.runway(suite: "sdk-e2e-\(UUID())", clock: clock)
        await c.setConsent(true)
        try await c.install()
        await c.setConsent(false)
        await c.setConsent(true)
        try await c.forgetInstallation()
        #expect(await c.installId() == nil)

        // Three installations, each counted once (the returning ids are left out); one INSTALL event each.
        let funnel = try await d.funnel()
        #expect(funnel.installs == 3 && funnel.events["INSTALL"] == 3 && funnel.events["LOGIN"] == 2, "\(funnel.rows)")
        #expect(funnel.rows.first { $0["key"] as? String == "returning" }?["installs"] as? Int ?? 0 == 0)

        // A fourth made no Apple Ads claim before the withdrawal: the new id makes it, registered first.
        let claimer = d.runway(suite: "sdk-e2e-\(UUID())", clock: clock, adServices: Token())
        await claimer.setConsent(true)
        try await claimer.install()
        await claimer.setConsent(false)
        await claimer.setConsent(true)
        #expect(try await claimer.submitAdServicesToken()?.status == "attributed", "the claim never made is made for the new id")
        let afterClaim = try await d.funnel()
        #expect(afterClaim.installs == 4, "a returning install keeps its source when its claim is attributed: \(afterClaim.rows)")
        _ = try await d.server.stop(signal: SIGTERM)
        await adServices.server.shutdown()
        _ = directory
    }

    @Test("an offline first launch: the match, INSTALL and events wait on the device, reach the server later with their own ids and times, and conversions follow")
    func offlineFirstLaunch() async throws {
        let directory = TemporaryDirectory()
        var d = try await Deployment.start(directory)
        try await d.tap()
        let port = d.server.port
        _ = try await d.server.stop(signal: SIGTERM)

        // First launch with no server: every call fails and throws the URLError; the events stay on the device.
        let clock = DeviceClock()
        let suite = "sdk-e2e-\(UUID())"
        let skan = Frameworks("skadnetwork")
        let offline = d.runway(suite: suite, clock: clock, frameworks: [skan])
        await offline.setConsent(true)
        let configured = try? await offline.configureConversions(appId: d.appId)
        #expect(configured == nil)
        await #expect(throws: URLError.self) { try await offline.matchInstall() }
        await #expect(throws: URLError.self) { try await offline.install() }
        let openedAt = clock.now
        await #expect(throws: URLError.self) { try await offline.track(type: "OPEN", eventId: "open-1") }
        #expect(await offline.sendPendingEvents() == 2)
        #expect(skan.calls.withLock { $0 } == [0], "the postback registered with the lowest value, offline too")

        // A minute later the server is back (same address); the app is launched again.
        d = Deployment(server: try await ServerProcess(databaseURL: "sqlite:" + directory.path("sdk.db"), port: port), base: d.base, admin: d.admin,
                       workspace: d.workspace, appId: d.appId, publishable: d.publishable)
        clock.advance(60)
        let later = d.runway(suite: suite, clock: clock, frameworks: [skan])
        #expect(try await later.configureConversions(appId: d.appId) == nil, "five minutes have not passed since the failed fetch")
        let match = try #require(try await later.matchInstall())
        #expect(match.matched && match.method == .probabilistic, "the click from before the launch is still found")
        try await later.install()
        #expect(await later.sendPendingEvents() == 0)
        #expect(skan.calls.withLock { $0 } == [0], "no schema yet")

        // Five minutes after the failed fetch, the next event fetches the schema, and values are set from then on.
        clock.advance(300)
        try await later.track(type: "SIGNUP")
        await later.recordConversion(event: "CUSTOM", name: "paywall")
        #expect(skan.calls.withLock { $0 } == [0, 12, 20])

        let installId = try #require(await later.installId())
        let (_, export, _) = try await d.export(installId)
        let events = export["events"] as? [[String: Any]] ?? []
        #expect(events.compactMap { $0["type"] as? String }.sorted() == ["INSTALL", "OPEN", "SIGNUP"])
        let open = try #require(events.first { $0["type"] as? String == "OPEN" })
        #expect(open["eventId"] as? String == "open-1")
        let occurred = try #require((open["occurredAt"] as? String).flatMap { ISO8601DateFormatter.fractional.date(from: $0) })
        #expect(abs(occurred.timeIntervalSince(openedAt)) < 0.01, "the event keeps the time it happened, not the time it was delivered")
        // The app's own id, sent again, is recognised as the same event.
        #expect(try await later.track(type: "OPEN", eventId: "open-1")?.status == "duplicate")
        #expect(try await d.funnel().events["OPEN"] == 1)
        _ = try await d.server.stop(signal: SIGTERM)
        _ = directory
    }

    @Test("the three binds, an Apple Ads claim answered 202 until Apple knows it, a tvOS device, a window that locks, and a later window's coarse value")
    func laterPaths() async throws {
        let directory = TemporaryDirectory()
        let adServices = try FakeAdServices(logger: Logger(level: .error, sink: .memory()))
        let d = try await Deployment.start(directory, environment: ["LINKRUNWAY_APPLE_ADS_URL": adServices.baseURL])
        let (program, affiliate) = try await d.creators(offerCode: "ALICE20")

        // Apple needs a moment for this token: the first answer is 202, the SDK waits as told and asks again.
        struct LateToken: AdServicesTokenProvider { func attributionToken() throws -> String { "late-1" } }
        let clock = DeviceClock()
        let sleeps = Sleeps()
        let skan = Frameworks("skadnetwork"), aak = Frameworks("adattributionkit")
        let runway = d.runway(suite: "sdk-e2e-\(UUID())", clock: clock, frameworks: [skan, aak], adServices: LateToken(), sleeps: sleeps, realWaits: true)
        // An Apple TV, before any click from this address: the match says tvos.
        let tv = d.runway(suite: "sdk-e2e-tv-\(UUID())", clock: DeviceClock(), platform: "tvos")
        await tv.setConsent(true)
        #expect(try await tv.matchInstall()?.matched == false)
        await runway.setConsent(true)
        _ = try await runway.configureConversions(appId: d.appId)
        _ = try await runway.matchInstall()
        try await runway.install()
        let claim = try #require(try await runway.submitAdServicesToken())
        #expect(claim.status == "attributed" && claim.campaignId == "61000", "\(claim)")
        #expect(!sleeps.values.withLock { $0 }.isEmpty && sleeps.values.withLock { $0 }.allSatisfy { $0 >= 1 && $0 <= 30 })

        // The three binds: a typed code, the signed click id an affiliate link's page hands over, and a deferred match of
        // this address's affiliate click on the App Store surface.
        let binding = try #require(try await runway.bindAffiliate(refCode: "ALICE"))
        #expect(binding.offerCode == "ALICE20")
        #expect((try await d.admin.call("POST", "/v1/affiliates/\(affiliate)/links", CreateAffiliateLinkRequest(programId: program, path: "alice"))).0 == 201)
        var tap = URLRequest(url: URL(string: d.base + "/alice")!)
        tap.setValue("localhost", forHTTPHeaderField: "Host")
        tap.setValue("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)", forHTTPHeaderField: "User-Agent")
        let page = try await RedirectCatcher.page(of: tap)
        let signed = try #require(page.range(of: #"data-click=""#).map { String(page[$0.upperBound...].prefix { $0 != "\"" }) })
        let clickBinding = try #require(try await runway.bindAffiliate(signedClickId: signed))
        #expect(clickBinding.offerCode == "ALICE20" && clickBinding.appAccountToken != binding.appAccountToken)
        let surface = try #require(((try await d.admin.call("POST", "/v1/apps/\(d.appId)/app-store-surfaces", CreateSurfaceRequest(environment: "production"))).1["surface"]
            as? [String: Any])?["id"] as? String)
        let deferredBinding = try #require(try await runway.bindAffiliateDeferred(surfaceId: surface))
        #expect(deferredBinding.offerCode == "ALICE20")
        let installId = try #require(await runway.installId())
        let (_, export, _) = try await d.export(installId)
        let tokens = Set((export["affiliateBinds"] as? [[String: Any]] ?? []).compactMap { ($0["appAccountToken"] as? String)?.lowercased() })
        #expect(tokens == Set([binding, clickBinding, deferredBinding].map { $0.appAccountToken.uuidString.lowercased() }))

        // A rule that locks the window reaches AdAttributionKit first; three days later LOGIN's coarse value decides.
        let locked = try #require(await runway.recordConversion(event: "CUSTOM", name: "trial"))
        #expect(locked.lockWindow && locked.frameworks == ["adattributionkit", "skadnetwork"])
        clock.advance(3 * 86_400)
        let later = try #require(await runway.recordConversion(event: "LOGIN"))
        #expect(later.coarse == .high && later.fine == 30, "the window's coarse rule; the fine value stays")

        // The Apple TV, continued: there is nothing to update.
        try await tv.install()
        #expect(await tv.recordConversion(event: "SIGNUP") == nil)
        let tvId = try #require(await tv.installId())
        _ = try await d.server.stop(signal: SIGTERM)
        let store = try SQLiteStore(path: directory.path("sdk.db"))
        let platform = try await store.read { try $0.first("SELECT platform FROM installs WHERE install_id = \(tvId)")?.string("platform") }
        let tvEvents = try await store.read { try $0.query("SELECT type FROM events WHERE install_id = \(tvId)").map { try $0.string("type") } }
        await store.close()
        #expect(platform == "tvos" && tvEvents == ["INSTALL"])
        await adServices.server.shutdown()
        _ = directory
    }
}

extension ISO8601DateFormatter {
    nonisolated(unsafe) static let fractional: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
}

/// Reads a redirect's status instead of following it.
final class RedirectCatcher: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    /// The page answered (not followed if it is a redirect).
    static func page(of request: URLRequest) async throws -> String {
        let session = URLSession(configuration: .ephemeral, delegate: RedirectCatcher(), delegateQueue: nil)
        return String(decoding: try await session.data(for: request).0, as: UTF8.self)
    }

    static func status(of request: URLRequest) async throws -> Int {
        let session = URLSession(configuration: .ephemeral, delegate: RedirectCatcher(), delegateQueue: nil)
        let (_, response) = try await session.data(for: request)
        return (response as! HTTPURLResponse).statusCode
    }
}
