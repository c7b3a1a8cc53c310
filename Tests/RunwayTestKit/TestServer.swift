import Foundation
import LinkRunwayAPI
import RunwayCapabilities
import RunwayConsole
import RunwayCrypto
import RunwayGeo
import RunwayHTTP
import RunwayJSON
import RunwayKit
import RunwayOutbound
import RunwayServer
import RunwayStore

/// An in-process server on a temporary SQLite file (or a PostgreSQL schema): migrated, bootstrapped, composed as
/// `linkrunway serve` composes it (`ServerComposition`), reached through the test client instead of libmicrohttpd.
package struct TestServer: Sendable {
    package let location: StorageLocation
    package let store: any Store
    package let services: ServerServices
    package let application: HTTPApplication
    /// The workers `linkrunway serve` runs beside the requests; not started here (tests drive them step by step).
    package let workers: [any Service]
    package let adminKey: String
    package let defaultWorkspace: Workspace
    package let logs: LogSink

    package static func start(_ backend: StoreBackend = .sqlite, clock: WallClock = .system, monotonic: MonotonicClock = .system,
                      maxBodyBytes: Int = 1024 * 1024,
                      appleAdsURL: String = "http://127.0.0.1:1", appAttestRoot: Certificate? = nil,
                      appStoreRoot: Certificate? = nil, rateLimits: RateLimitSettings = RateLimitSettings(),
                      appleAdsTimeoutSeconds: Double = 10, appleAdsInlineSeconds: Double = AppleAdsSettings().inlineSeconds,
                      outbound: OutboundPolicy = OutboundPolicy(),
                      metricsToken: String? = nil, dnsServer: TXTLookup.Server? = nil, appStoreAPIURL: String? = nil,
                      extraAutomatedClients: [AutomatedClientPattern] = [], countries: CountryDatabase? = nil) async throws -> TestServer {
        let location = try await backend.makeLocation()
        let metrics = MetricsRegistry()
        let store = try backend.open(location.url, StoreMetrics(metrics: metrics))
        _ = try await store.migrate(Schema.migrations)
        guard let bootstrap = try await Bootstrap.run(store: store, clock: clock) else { fatalError("a new database must bootstrap") }
        // As `ServerRuntime.start` does: no older server runs on a new database.
        _ = try await YearRowsBuild.run(store, now: clock.nowMilliseconds())
        let logs = LogSink.memory()
        let box = SecretBox(key: SecureRandom.bytes(32))!
        var configuration = ServerConfiguration()
        configuration.http.maxBodyBytes = maxBodyBytes
        configuration.rateLimits = rateLimits
        configuration.outbound = outbound
        configuration.capabilities[AppleAdsSettings.self].url = appleAdsURL
        configuration.capabilities[AppleAdsSettings.self].timeoutSeconds = appleAdsTimeoutSeconds
        configuration.capabilities[AppleAdsSettings.self].inlineSeconds = appleAdsInlineSeconds
        configuration.capabilities[OperationsSettings.self].metricsToken = metricsToken
        configuration.capabilities[LinksSettings.self].dnsServer = dnsServer
        configuration.capabilities[LinksSettings.self].extraAutomatedClients = extraAutomatedClients
        configuration.capabilities[LinksSettings.self].countries = countries
        configuration.capabilities[AppStoreAPISettings.self].url = appStoreAPIURL
        let composition = ServerComposition(configuration, store: store, secrets: try await InstanceSecrets.load(store, box: box), box: box,
                                            roots: AppleTrustRoots(appAttest: appAttestRoot, appStore: appStoreRoot), clock: clock,
                                            monotonic: monotonic, logger: Logger(level: .info, sink: logs), metrics: metrics)
        return TestServer(location: location, store: store, services: composition.services, application: composition.application,
                          workers: composition.workers, adminKey: bootstrap.adminKey, defaultWorkspace: bootstrap.workspace, logs: logs)
    }

    package func client(_ key: String? = nil) -> TestClient { TestClient(application, bearer: key) }
    package var admin: TestClient { client(adminKey) }

    package func stop() async { await store.close() }

    // MARK: Fixtures made through the API

    package func createWorkspace(_ name: String = "Acme") async throws -> Workspace {
        try await admin.post("/v1/workspaces", CreateWorkspaceRequest(name: name)).decoded(Workspace.self, status: 201)
    }

    /// An app; in the default workspace it is `com.example.app`, App Store id 123456789. An App Store id and a team and
    /// bundle id belong to one workspace, so another workspace's app gets its own unless they are given.
    package func createApp(in workspace: String, bundleId: String? = nil, teamId: String = "ABCDE12345", appStoreId: String? = nil) async throws -> App {
        let own = workspace == defaultWorkspace.id
        func digits(_ text: String) -> String { String(text.utf8.reduce(UInt64(5381)) { ($0 &* 33) &+ UInt64($1) } % 1_000_000_000) }
        let bundle = bundleId ?? (own ? "com.example.app" : "com.example.app.w\(digits(workspace))")
        let storeId = appStoreId ?? (own && bundle == "com.example.app" ? "123456789" : "9\(digits(workspace + "|" + bundle))")
        return try await admin.post("/v1/apps", CreateAppRequest(workspaceId: workspace, name: "Example", teamId: teamId, bundleId: bundle,
                                                                 appStoreId: storeId, platforms: [.ios, .tvos]))
            .decoded(App.self, status: 201)
    }

    package func createKey(_ kind: KeyKind, workspace: String? = nil, app: String? = nil) async throws -> CreatedKey {
        try await admin.post("/v1/keys", CreateKeyRequest(kind: kind, workspaceId: workspace, appId: app)).decoded(CreatedKey.self, status: 201)
    }
}

package struct UnexpectedResponse: Error, CustomStringConvertible {
    package let description: String
    package init(description: String) { self.description = description }
}

extension TestClient {
    /// Encodes wire types with their keys sorted: `JSONEncoder` otherwise orders them differently from one run (even
    /// one call) to the next, and a retry must send the same bytes for its idempotency key.
    package static func encoded(_ body: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Array(try encoder.encode(body))
    }

    /// `encoded` as text, for a raw request to a server process.
    package static func json(_ body: some Encodable) throws -> String {
        String(decoding: try encoded(body), as: UTF8.self)
    }

    /// Sends a wire type as the JSON body: the way to write a request whose shape is not itself under test.
    package func post<Body: Encodable>(_ target: String, _ body: Body, headers: [(String, String)] = []) async throws -> HTTPResponse {
        await post(target, json: String(decoding: try Self.encoded(body), as: UTF8.self), headers: headers)
    }

    /// `GET path` (a readiness check), asked again on a 503 up to five times, 300 ms apart: a loaded machine can take
    /// past `/readyz`'s two seconds, and a load balancer asks again too.
    package func check(_ path: String, headers: [(String, String)] = [], from address: String = "127.0.0.1") async -> HTTPResponse {
        var response = await send("GET", path, headers: headers, remoteAddress: address)
        for _ in 1..<5 where response.status == 503 {
            try? await Task.sleep(for: .milliseconds(300))
            response = await send("GET", path, headers: headers, remoteAddress: address)
        }
        return response
    }

    /// The status `check` ends with.
    package func checkStatus(_ path: String, headers: [(String, String)] = [], from address: String = "127.0.0.1") async -> Int {
        await check(path, headers: headers, from: address).status
    }

    /// `PATCH` with a wire type as the JSON body.
    package func patch<Body: Encodable>(_ target: String, _ body: Body) async throws -> HTTPResponse {
        await send("PATCH", target, body: try Self.encoded(body))
    }
}

extension HTTPResponse {
    /// Decodes the body after checking the status; the error shows the body when either fails.
    package func decoded<T: Decodable>(_ type: T.Type, status expected: Int = 200) throws -> T {
        guard status == expected else { throw UnexpectedResponse(description: "expected \(expected), got \(status): \(bodyText)") }
        do {
            return try JSONDecoder().decode(type, from: Data(body))
        } catch {
            throw UnexpectedResponse(description: "cannot decode \(T.self) from \(bodyText): \(error)")
        }
    }

    /// The error code of an error body, or nil.
    package var errorCode: String? { (try? JSONDecoder().decode(ErrorBody.self, from: Data(body)))?.error.code }
    package var errorField: String? { (try? JSONDecoder().decode(ErrorBody.self, from: Data(body)))?.error.field }

    package var json: JSONValue? { try? JSONParser().parse(body) }
}
