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
        if reply.status == 0 {
            client?.urlProtocol(self, didFailWithError: URLError(.networkConnectionLost))
            return
        }
        if reply.delay > 0 { Thread.sleep(forTimeInterval: reply.delay) }
        let response = HTTPURLResponse(url: url, statusCode: reply.status, httpVersion: "HTTP/1.1",
                                       headerFields: reply.headers.merging(["Content-Type": "application/json"]) { a, _ in a })!
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: Data(reply.json.utf8))
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}
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

    init(_ name: String, refuses: Bool = false) {
        self.name = name
        self.log = Mutex([])
        self.refuses = refuses
    }

    func update(fine: Int, coarse: CoarseValue?, lockWindow: Bool, conversionTag: String?) async throws {
        if refuses { throw URLError(.unsupportedURL) }
        log.withLock { $0.append(Call(framework: name, fine: fine, coarse: coarse, lock: lockWindow, tag: conversionTag)) }
    }
}

/// Both frameworks writing into one log, so their order shows.
final class ConversionLog: Sendable {
    let calls = Mutex<[FakeFramework.Call]>([])
    let skan: Recorder
    let aak: Recorder

    init() {
        skan = Recorder(name: "skadnetwork")
        aak = Recorder(name: "adattributionkit")
        skan.log = self
        aak.log = self
    }

    final class Recorder: ConversionFramework, @unchecked Sendable {
        let name: String
        weak var log: ConversionLog?
        init(name: String) { self.name = name }
        func update(fine: Int, coarse: CoarseValue?, lockWindow: Bool, conversionTag: String?) async throws {
            log?.calls.withLock { $0.append(FakeFramework.Call(framework: name, fine: fine, coarse: coarse, lock: lockWindow, tag: conversionTag)) }
        }
    }

    var all: [FakeFramework.Call] { calls.withLock { $0 } }
}

struct FakeAdServices: AdServicesTokenProvider {
    let token: String
    func attributionToken() throws -> String { token }
}

/// DeviceCheck's App Attest, scripted.
final class FakeAppAttest: AppAttestProvider, @unchecked Sendable {
    enum Failure: Error { case invalidKey, outage, broken }
    let lock = NSLock()
    var generated: [String] = []
    var attested: [(String, Data)] = []
    var asserted: [(String, Data)] = []
    var attestFailures: [Failure] = []
    var assertFailures: [Failure] = []
    var isSupported = true

    func generateKey() async throws -> String {
        lock.withLock {
            let id = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            generated.append(id)
            return id
        }
    }

    func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data {
        try lock.withLock {
            attested.append((keyId, clientDataHash))
            if !attestFailures.isEmpty { throw attestFailures.removeFirst() }
            return Data("attestation-of-\(keyId)".utf8)
        }
    }

    func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data {
        try lock.withLock {
            asserted.append((keyId, clientDataHash))
            if !assertFailures.isEmpty { throw assertFailures.removeFirst() }
            return Data("assertion-by-\(keyId)".utf8)
        }
    }

    func classify(_ error: any Error) -> AppAttestFailure {
        switch error as? Failure {
        case .invalidKey?: return .invalidKey
        case .outage?: return .serviceUnavailable
        default: return .other
        }
    }
}

/// A clock the test moves, and the waits the SDK asked for.
final class TestClock: Sendable {
    let current: Mutex<Date>
    let waits = Mutex<[Double]>([])
    init(_ start: Date = Date(timeIntervalSince1970: 1_790_000_000)) { current = Mutex(start) }
    func advance(_ seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    var now: Date { current.withLock { $0 } }
}

enum Fixture {
    static let key = "lr_pk_" + String(repeating: "a", count: 48)

    static func runway(_ server: StubServer, clock: TestClock = TestClock(), frameworks: [any ConversionFramework] = [],
                       adServices: (any AdServicesTokenProvider)? = nil, appAttest: (any AppAttestProvider)? = nil,
                       platform: String = "ios", suite: String = "linkrunway-test-\(UUID().uuidString)") -> LinkRunway {
        let dependencies = LinkRunwayDependencies(device: DeviceInfo(platform: platform, osVersion: "17.4", language: "en-GB"),
                                                  conversionFrameworks: frameworks, adServices: adServices, appAttest: appAttest,
                                                  now: { clock.now }, sleep: { seconds in clock.waits.withLock { $0.append(seconds) } })
        return LinkRunway(endpoint: server.endpoint, publishableKey: key, suiteName: suite, session: server.session, dependencies: dependencies)
    }

    static func matched(_ click: String = "clk-1") -> StubServer.Reply {
        StubServer.Reply(status: 200, json: #"{"installId":"x","appId":"app_1","matched":true,"method":"referrer","confidence":1,"source":"link","clickId":"\#(click)","path":"/welcome","url":"https://go.example/w","metadata":{"k":"v"},"matchedAt":"2026-01-01T00:00:00.000Z"}"#)
    }

    static let stored = StubServer.Reply(status: 201, json: #"{"eventId":"e","status":"stored"}"#)
}
