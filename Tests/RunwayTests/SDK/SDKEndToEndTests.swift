import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LinkRunway
import RunwayHTTP
import RunwayServer
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

        func call(_ method: String, _ path: String, _ json: String? = nil, headers: [String: String] = [:]) async throws -> (Int, [String: Any]) {
            var request = URLRequest(url: URL(string: base + path)!)
            request.httpMethod = method
            request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
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
        let (created, app) = try await admin.call("POST", "/v1/apps", #"{"workspaceId":"\#(workspace)","name":"Runway","teamId":"ABCDE12345","bundleId":"com.example.runway","appStoreId":"525463029","attribution":{"probabilisticMinutes":60}}"#)
        #expect(created == 201)
        let appId = try #require(app["id"] as? String)
        _ = try await admin.call("POST", "/v1/links", #"{"workspaceId":"\#(workspace)","appId":"\#(appId)","path":"summer","appPath":"/promo/summer","campaign":"summer"}"#)
        _ = try await admin.call("PUT", "/v1/apps/\(appId)/conversion-schema", #"{"rules":[{"type":"INSTALL","fine":0},{"type":"SIGNUP","fine":12,"coarse":"medium"},{"type":"PURCHASE","minAmount":4999,"fine":40,"coarse":"high"}]}"#)
        let publishable = try #require((try await admin.call("POST", "/v1/keys", #"{"kind":"publishable","appId":"\#(appId)"}"#)).1["secret"] as? String)

        // A person taps the link on an iPhone (from this machine's address): the click is stored before the redirect.
        var tap = URLRequest(url: URL(string: base + "/summer")!)
        tap.setValue("localhost", forHTTPHeaderField: "Host")
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
        #expect(share.url.hasPrefix("https://localhost/"))
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
}

/// Reads a redirect's status instead of following it.
final class RedirectCatcher: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    static func status(of request: URLRequest) async throws -> Int {
        let session = URLSession(configuration: .ephemeral, delegate: RedirectCatcher(), delegateQueue: nil)
        let (_, response) = try await session.data(for: request)
        return (response as! HTTPURLResponse).statusCode
    }
}
