import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import LinkRunway
import Synchronization

/// A fake LinkRunway server behind a URLProtocol: every request is recorded and answered by a handler, so no request
/// leaves the process.
final class StubServer: Sendable {
    struct Request: Sendable {
        let method: String
        let path: String
        let headers: [String: String]
        let raw: Data?

        init(method: String, path: String, headers: [String: String], body: Data?) {
            self.method = method
            self.path = path
            self.headers = headers
            raw = body
        }

        /// The JSON body.
        var body: [String: Any]? { raw.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } }
    }

    struct Reply: Sendable {
        var status: Int
        var json: String
        var headers: [String: String] = [:]
        /// Seconds to hold the answer.
        var delay: Double = 0
        /// Fail the request with this network error instead of answering.
        var error: URLError.Code? = nil
        /// Hold the answer until the test sets this (at most ten seconds).
        var hold: Locked<Bool>? = nil

        static func failure(_ code: URLError.Code) -> Reply { Reply(status: 0, json: "", error: code) }

        /// This answer, held until `release` is set.
        func held(by release: Locked<Bool>) -> Reply {
            var reply = self
            reply.hold = release
            return reply
        }
    }

    let host = "stub-\(UUID().uuidString.lowercased()).example"
    private let recorded = Mutex<[Request]>([])
    private let handler: Mutex<@Sendable (Request) -> Reply>

    init(_ handler: @escaping @Sendable (Request) -> Reply = { _ in Reply(status: 404, json: "{}") }) {
        self.handler = Mutex(handler)
        StubProtocol.servers.withLock { $0[host] = self }
    }

    var endpoint: URL { URL(string: "https://\(host)")! }
    var requests: [Request] { recorded.withLock { $0 } }
    func paths() -> [String] { requests.map { "\($0.method) \($0.path)" } }
    func answer(_ handler: @escaping @Sendable (Request) -> Reply) { self.handler.withLock { $0 = handler } }

    func respond(to request: Request) -> Reply {
        recorded.withLock { $0.append(request) }
        return handler.withLock { $0 }(request)
    }

    var session: URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StubProtocol.self]
        return URLSession(configuration: configuration)
    }
}

final class StubProtocol: URLProtocol {
    static let servers = Mutex<[String: StubServer]>([:])

    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        let url = request.url!
        guard let server = Self.servers.withLock({ $0[url.host ?? ""] }) else {
            client?.urlProtocol(self, didFailWithError: URLError(.cannotConnectToHost))
            return
        }
        var body = request.httpBody
        if body == nil, let stream = request.httpBodyStream {
            stream.open()
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while stream.hasBytesAvailable {
                let n = stream.read(&buffer, maxLength: buffer.count)
                if n <= 0 { break }
                data.append(buffer, count: n)
            }
            stream.close()
            body = data
        }
        var headers: [String: String] = [:]
        for (name, value) in request.allHTTPHeaderFields ?? [:] { headers[name.lowercased()] = value }
        let recorded = StubServer.Request(method: request.httpMethod ?? "GET", path: url.path, headers: headers, body: body)
        let reply = server.respond(to: recorded)
        guard reply.delay > 0 || reply.hold != nil else { return finish(url, reply) }
        // A held or delayed answer waits off URLSession's queue, which every session in the process shares, and on a
        // queue of its own: on Linux the global queue has a thread per core, which Swift's tasks run on too, so two
        // answers sleeping there would stop every task (the test that would release them, and the SDK's deadlines'
        // calls) until they gave up.
        let loading = UncheckedBox(self)
        DispatchQueue(label: "stub-server.held-reply").async {
            if reply.delay > 0 { Thread.sleep(forTimeInterval: reply.delay) }
            if let hold = reply.hold {
                for _ in 0..<2000 where !hold.value { Thread.sleep(forTimeInterval: 0.005) }
            }
            loading.value.finish(url, reply)
        }
    }

    private func finish(_ url: URL, _ reply: StubServer.Reply) {
        if reply.status == 0 {
            client?.urlProtocol(self, didFailWithError: URLError(reply.error ?? .networkConnectionLost))
            return
        }
        let response = HTTPURLResponse(url: url, statusCode: reply.status, httpVersion: "HTTP/1.1",
                                       headerFields: reply.headers.merging(["Content-Type": "application/json"]) { a, _ in a })!
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: Data(reply.json.utf8))
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}
}

struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A recording stand-in for SKAdNetwork or AdAttributionKit.
final class FakeFramework: ConversionFramework, Sendable {
    struct Call: Sendable, Equatable {
        let framework: String
        let fine: Int
        let coarse: CoarseValue?
        let lock: Bool
        let tag: String?
    }

    let name: String
    let log: Mutex<[Call]>
    let refuses: Bool
    let takesReengagementUpdates: Bool

    init(_ name: String, refuses: Bool = false, reengagement: Bool = false) {
        self.name = name
        self.log = Mutex([])
        self.refuses = refuses
        self.takesReengagementUpdates = reengagement
    }

    func update(fine: Int, coarse: CoarseValue?, lockWindow: Bool, conversionTag: String?) async throws {
        if refuses { throw URLError(.unsupportedURL) }
        log.withLock { $0.append(Call(framework: name, fine: fine, coarse: coarse, lock: lockWindow, tag: conversionTag)) }
    }

    var calls: [Call] { log.withLock { $0 } }
}

/// Both frameworks writing into one log, so their order shows. AdAttributionKit takes re-engagement updates when
/// `reengagement` is true (as on iOS 18); SKAdNetwork never does.
final class ConversionLog: Sendable {
    let calls = Mutex<[FakeFramework.Call]>([])
    let skan: Recorder
    let aak: Recorder

    init(reengagement: Bool = false) {
        skan = Recorder(name: "skadnetwork", reengagement: false)
        aak = Recorder(name: "adattributionkit", reengagement: reengagement)
        skan.log = self
        aak.log = self
    }

    final class Recorder: ConversionFramework, @unchecked Sendable {
        let name: String
        let takesReengagementUpdates: Bool
        weak var log: ConversionLog?
        init(name: String, reengagement: Bool) {
            self.name = name
            takesReengagementUpdates = reengagement
        }
        func update(fine: Int, coarse: CoarseValue?, lockWindow: Bool, conversionTag: String?) async throws {
            log?.calls.withLock { $0.append(FakeFramework.Call(framework: name, fine: fine, coarse: coarse, lock: lockWindow, tag: conversionTag)) }
        }
    }

    var all: [FakeFramework.Call] { calls.withLock { $0 } }
    var frameworks: [any ConversionFramework] { [skan, aak] }
}

/// A framework the test holds back: each update waits until the gate is open (or takes `delay` seconds), and the
/// framework records how many updates were in its hands at once.
final class HeldFramework: ConversionFramework, Sendable {
    let name: String
    let delay: Double
    let gate: Mutex<Bool>
    let log = Mutex<[FakeFramework.Call]>([])
    let running = Mutex(0)
    let mostAtOnce = Mutex(0)
    let started = Mutex(0)

    init(_ name: String, open: Bool = true, delay: Double = 0) {
        self.name = name
        self.delay = delay
        gate = Mutex(open)
    }

    func open() { gate.withLock { $0 = true } }

    func update(fine: Int, coarse: CoarseValue?, lockWindow: Bool, conversionTag: String?) async throws {
        started.withLock { $0 += 1 }
        let now = running.withLock { $0 += 1; return $0 }
        mostAtOnce.withLock { $0 = max($0, now) }
        // Held at most ten seconds, so a broken test fails instead of hanging.
        for _ in 0..<5000 where !gate.withLock({ $0 }) { try? await Task.sleep(nanoseconds: 2_000_000) }
        if delay > 0 { try? await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000)) }
        log.withLock { $0.append(FakeFramework.Call(framework: name, fine: fine, coarse: coarse, lock: lockWindow, tag: conversionTag)) }
        running.withLock { $0 -= 1 }
    }

    var calls: [FakeFramework.Call] { log.withLock { $0 } }
}

struct FakeAdServices: AdServicesTokenProvider {
    let token: String
    func attributionToken() throws -> String { token }
}

/// AdServices whose first token call hangs (a blocking call, as `AAAttribution.attributionToken()` is) until released,
/// or for thirty seconds at most; later calls answer at once.
final class HangingAdServices: AdServicesTokenProvider, Sendable {
    let release = DispatchSemaphore(value: 0)
    let calls = Mutex(0)

    func attributionToken() throws -> String {
        if calls.withLock({ $0 += 1; return $0 }) == 1 { _ = release.wait(timeout: .now() + 30) }
        return "late-token"
    }
}

/// StoreKit 2's app transaction id and its signed copy, scripted.
struct FakeAppTransaction: AppTransactionProvider {
    let id: String?
    var jws: String? = nil
    /// What iOS 27's AppTransaction.all would give.
    var all: [String] = []
    /// Each call answers only after this many seconds (StoreKit waiting on the App Store), when set.
    var hangs: Double? = nil
    func appTransactionID() async -> String? { await hang(); return id }
    func signedAppTransaction() async -> String? { await hang(); return jws }
    func signedAppTransactions() async -> [String] { await hang(); return all }
    private func hang() async {
        if let hangs { try? await Task.sleep(nanoseconds: UInt64(hangs * 1_000_000_000)) }
    }
}

/// A provider written before 1.1.1, which knows the id alone.
struct IdOnlyAppTransaction: AppTransactionProvider {
    let id: String
    func appTransactionID() async -> String? { id }
}

/// DeviceCheck's App Attest, scripted.
final class FakeAppAttest: AppAttestProvider, @unchecked Sendable {
    enum Failure: Error { case invalidKey, invalidInput, systemFailure, outage, broken }
    let lock = NSLock()
    var generated: [String] = []
    var attested: [(String, Data)] = []
    var asserted: [(String, Data)] = []
    var attestFailures: [Failure] = []
    var assertFailures: [Failure] = []
    var isSupported = true
    var isExpected = true
    /// The calls that answer only after `hangSeconds` (Apple's service not answering), as `generateKey`, `attestKey`
    /// or `generateAssertion`.
    var hanging: Set<String> = []
    var hangSeconds: Double = 60

    private func hang(_ call: String) async {
        let seconds: Double? = lock.withLock { hanging.contains(call) ? hangSeconds : nil }
        if let seconds { try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000)) }
    }

    // Each call is recorded when it is made, before it hangs.
    func generateKey() async throws -> String {
        let id = lock.withLock {
            let id = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            generated.append(id)
            return id
        }
        await hang("generateKey")
        return id
    }

    func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data {
        lock.withLock { attested.append((keyId, clientDataHash)) }
        await hang("attestKey")
        return try lock.withLock {
            if !attestFailures.isEmpty { throw attestFailures.removeFirst() }
            return Data("attestation-of-\(keyId)".utf8)
        }
    }

    func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data {
        lock.withLock { asserted.append((keyId, clientDataHash)) }
        await hang("generateAssertion")
        return try lock.withLock {
            if !assertFailures.isEmpty { throw assertFailures.removeFirst() }
            return Data("assertion-by-\(keyId)".utf8)
        }
    }

    func classify(_ error: any Error) -> AppAttestFailure {
        switch error as? Failure {
        case .invalidKey?: return .invalidKey
        case .invalidInput?: return .invalidInput
        case .systemFailure?: return .unknownSystemFailure
        case .outage?: return .serviceUnavailable
        default: return .other
        }
    }

    var keys: [String] { lock.withLock { generated } }
}

/// The Keychain of one device: what a backup, a restore or a move to a new device does not carry.
final class FakeDeviceOnlyStore: DeviceOnlyStore {
    let items = Mutex<[String: String]>([:])
    func string(_ name: String) -> String? { items.withLock { $0[name] } }
    func set(_ value: String?, _ name: String) { items.withLock { $0[name] = value } }
    var names: [String] { items.withLock { $0.keys.sorted() } }
}

/// A clock the test moves, and the waits the SDK asked for.
final class TestClock: Sendable {
    let current: Mutex<Date>
    let waits = Mutex<[Double]>([])
    init(_ start: Date = Date(timeIntervalSince1970: 1_790_000_000)) { current = Mutex(start) }
    func advance(_ seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    var now: Date { current.withLock { $0 } }
    var slept: [Double] { waits.withLock { $0 } }
}

enum Fixture {
    static let key = "lr_pk_" + String(repeating: "a", count: 48)

    static func suite() -> String { "linkrunway-test-\(UUID().uuidString)" }

    static func runway(_ server: StubServer, postbackRegistered: Bool = true, clock: TestClock = TestClock(), frameworks: [any ConversionFramework] = [],
                       adServices: (any AdServicesTokenProvider)? = nil, appAttest: (any AppAttestProvider)? = nil,
                       appTransaction: (any AppTransactionProvider)? = nil, platform: String = "ios", key: String = Fixture.key,
                       suite: String = Fixture.suite(), appleCallTimeout: Double = 5, deviceOnly: (any DeviceOnlyStore)? = nil) -> LinkRunway {
        let dependencies = LinkRunwayDependencies(device: DeviceInfo(platform: platform, osVersion: "17.4", language: "en-GB"),
                                                  conversionFrameworks: frameworks, adServices: adServices, appAttest: appAttest,
                                                  appTransaction: appTransaction,
                                                  now: { clock.now }, sleep: { seconds in clock.waits.withLock { $0.append(seconds) } },
                                                  appleCallTimeout: appleCallTimeout, deviceOnly: deviceOnly)
        // Most tests look at the updates their rules make: their installation registered its postbacks already (the
        // registration's own tests pass false).
        if postbackRegistered {
            SDKStorage(suiteName: suite, endpoint: server.endpoint, publishableKey: key).set(true, .postbackRegistered)
        }
        return LinkRunway(endpoint: server.endpoint, publishableKey: key, suiteName: suite, session: server.session, dependencies: dependencies)
    }

    static func matched(_ click: String = "clk-1") -> StubServer.Reply {
        StubServer.Reply(status: 200, json: #"{"installId":"x","appId":"app_1","matched":true,"method":"referrer","confidence":1,"source":"link","clickId":"\#(click)","path":"/welcome","url":"https://go.example/w","metadata":{"k":"v"},"variant":"blue","matchedAt":"2026-01-01T00:00:00.000Z"}"#)
    }

    static let unmatched = StubServer.Reply(status: 200, json: #"{"installId":"x","appId":"app_1","matched":false,"method":"unmatched"}"#)

    static let stored = StubServer.Reply(status: 201, json: #"{"eventId":"e","status":"stored"}"#)

    /// An event's acknowledgement naming the event.
    static func ack(_ request: StubServer.Request) -> StubServer.Reply {
        StubServer.Reply(status: 201, json: #"{"eventId":"\#(request.body?["eventId"] as? String ?? "")","status":"stored"}"#)
    }

    static func resolved(_ click: String = "clk-9") -> StubServer.Reply {
        StubServer.Reply(status: 200, json: #"{"linkId":"lnk_1","url":"https://go.example/x","appPath":"/x","clickToken":"\#(click)","signedClickId":"s"}"#)
    }

    static let boundToken = "6d1f7bd8-5e3a-4e39-9a7a-0f6e1f5c2b11"
    static let bound = StubServer.Reply(status: 200, json: #"{"appAccountToken":"\#(boundToken)","offerCode":"ALICE20"}"#)

    /// A conversion schema (`GET /v1/mobile/config`) with these rules (JSON array text).
    static func config(rules: String, laterWindows: String = "[]", version: Int = 3) -> StubServer.Reply {
        StubServer.Reply(status: 200, json: #"{"appId":"app_1","refreshSeconds":86400,"conversions":{"appId":"app_1","version":\#(version),"createdAt":"2026-01-01T00:00:00.000Z","rules":\#(rules),"laterWindows":\#(laterWindows)}}"#)
    }

    /// A server that answers every endpoint sensibly.
    static func standard(_ request: StubServer.Request) -> StubServer.Reply {
        switch request.path {
        case let path where path.hasPrefix("/v1/mobile/config/"):
            return config(rules: #"[{"type":"INSTALL","fine":0,"coarse":"low"},{"type":"SIGNUP","fine":10,"coarse":"medium"}]"#)
        case "/v1/installs/match": return matched()
        case "/v1/events": return ack(request)
        case "/v1/resolve": return resolved()
        case "/v1/claims/apple-ads":
            return .init(status: 200, json: #"{"installId":"i","status":"attributed","attribution":{"campaignId":"42","adGroupId":"7","keywordId":"9"},"testData":false}"#)
        case "/v1/app-store/bind", "/v1/app-store/bind/deferred": return bound
        case "/v1/shares": return .init(status: 201, json: #"{"linkId":"lnk_s","url":"https://go.example/s/abc"}"#)
        case "/v1/referral-codes": return .init(status: 201, json: #"{"code":"ALICE7"}"#)
        case "/v1/attest/apple/challenge": return .init(status: 201, json: #"{"challenge":"ch-\#(UUID().uuidString)","expiresAt":"2026-01-01T00:05:00.000Z"}"#)
        case "/v1/attest/apple/register", "/v1/attest/apple/assert":
            return .init(status: 201, json: #"{"token":"att-token","expiresAt":"2030-01-01T00:00:00.000Z","environment":"production"}"#)
        case let path where path.hasSuffix("/forget"): return .init(status: 200, json: #"{"deleted":{}}"#)
        default: return .init(status: 404, json: #"{"error":{"code":"not_found"}}"#)
        }
    }

    /// Waits (for real, briefly) until the server has seen `count` requests.
    static func waitForRequests(_ server: StubServer, _ count: Int = 1) async throws {
        for _ in 0..<2500 where server.requests.count < count { try await Task.sleep(nanoseconds: 2_000_000) }
    }
}

extension StubServer {
    /// The requests to one path, in order.
    func requests(to path: String) -> [Request] { requests.filter { $0.path == path } }
    /// The bodies of the events posted, in order.
    var events: [[String: Any]] { requests(to: "/v1/events").compactMap(\.body) }
}

/// The error a call threw.
func thrown(_ call: () async throws -> Void) async -> (any Error)? {
    do {
        try await call()
        return nil
    } catch {
        return error
    }
}

func isInvalidConfiguration(_ error: (any Error)?) -> Bool {
    if case LinkRunwayError.invalidConfiguration? = error as? LinkRunwayError { return true }
    return false
}

/// A value behind a lock, shareable by reference (unlike `Mutex`, which cannot be copied or passed by value).
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    var value: Value { mutex.withLock { $0 } }
    func set(_ value: Value) { mutex.withLock { $0 = value } }
    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result { mutex.withLock { body(&$0) } }
}

extension Array {
    /// The element at `index`, or nil (so a failing test reports instead of crashing).
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
