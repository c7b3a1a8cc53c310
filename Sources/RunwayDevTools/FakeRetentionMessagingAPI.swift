import AppleFormats
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RunwayCrypto
import RunwayHTTP
import RunwayHTTPServer
import RunwayJSON
import Synchronization

/// A stand-in for Apple's Retention Messaging API and for the realtime calls Apple makes, for tests and local demos.
/// Apple's two hosts are two path prefixes here: `/production/inApps/v1/messaging/…` and `/sandbox/inApps/v1/messaging/…`
/// (LinkRunway adds them when `LINKRUNWAY_APP_STORE_API_URL` names a stand-in).
///
/// It keeps what Apple documents (https://developer.apple.com/documentation/retentionmessaging): messages uploaded once
/// each (409 `4090001` again, 404 `4040015` when deleting one it lacks, 403 `4030016` past 2,000, 400 for a header over
/// 66 characters `4000162`, a body over 144 `4000163`, alternative text over 150 `4000175`), reviewed as `PENDING` then
/// `APPROVED` (at once in the sandbox, on `approve` in production); default messages only of approved messages (403
/// `4030017`) and locales it can read (400 `4000164`); a realtime URL that is https (or http on this machine, the
/// stand-in's one liberty) of at most 256 characters (400 `4000215`), in production only after a sandbox performance
/// test passed (403 `4030026`); performance tests in the sandbox against the configured URL, one at a time (400
/// `4000213`), with results `PENDING` until the last request is answered (404 `4040018` for an unknown test).
/// Errors are `{errorCode, errorMessage}`; a bad bearer token is a bare 401, as for `FakeAppStoreServerAPI`.
///
/// `sendRealtime` is what Apple does when a subscriber views a subscription: a signed `DecodedRealtimeRequestBody`
/// posted to the realtime URL, timed against Apple's 700 ms.
public final class FakeRetentionMessagingAPI: Sendable {
    /// How a realtime request reaches the app's server: the status and body of its answer, or nil when none came.
    public typealias Send = @Sendable (_ url: String, _ body: [UInt8]) async -> (status: Int, body: [UInt8])?

    /// One realtime request and what came of it, as Apple's performance test classes results (`SendAttemptResult`).
    public struct RealtimeOutcome: Sendable {
        public let result: String
        public let milliseconds: Int64
        public let body: JSONValue?
    }

    /// Apple's: 700 ms in production.
    public static let appleDeadlineMilliseconds: Int64 = 700
    static let maxItems = 2_000

    public let server: HTTPServer
    private let credentials: FakeAppStoreServerAPI.Credentials
    private let sign: @Sendable (JSONValue) -> String
    private let appAppleId: Int64
    private let send: Send
    private let state = Mutex(State())
    /// Each test's settings, as Apple's `PerformanceTestConfig` names them.
    private let testRequests: Int
    private let testConcurrency: Int
    /// How long an answer may take before it counts as `TIMED_OUT` (tests on a loaded machine give it more).
    private let deadlineMilliseconds: Int64

    struct Message {
        var state: String
        var header: String
        var body: String
    }

    struct TestRun {
        var config: JSONValue
        var target: String
        var outcomes: [RealtimeOutcome] = []
        var total: Int
    }

    struct State {
        /// By environment, then lower-case message id.
        var messages: [String: [String: Message]] = [:]
        var defaults: [String: String] = [:]
        var realtimeURLs: [String: String] = [:]
        var passedTest = false
        var tests: [String: TestRun] = [:]
        var running: String?
    }

    /// `sign` signs a payload as Apple signs App Store data (`AppStoreStandInSigner.sign`, or a test's authority).
    public init(port: UInt16 = 0, credentials: FakeAppStoreServerAPI.Credentials, sign: @escaping @Sendable (JSONValue) -> String, appAppleId: Int64,
                testRequests: Int = 50, testConcurrency: Int = 10, deadlineMilliseconds: Int64 = appleDeadlineMilliseconds, send: Send? = nil,
                logger: Logger) throws {
        self.credentials = credentials
        self.deadlineMilliseconds = deadlineMilliseconds
        self.sign = sign
        self.appAppleId = appAppleId
        self.testRequests = max(1, testRequests)
        self.testConcurrency = max(1, testConcurrency)
        self.send = send ?? Self.overHTTP
        let box = StandInBox<FakeRetentionMessagingAPI>()
        server = box.server(port: port, logger: logger) { fake, request in fake.answer(request) }
        box.standIn = self
        try server.start()
    }

    /// The base URL to configure (`LINKRUNWAY_APP_STORE_API_URL`).
    public var baseURL: String { "http://127.0.0.1:\(server.port)" }

    /// Apple's review of a production message: approved.
    public func approve(messageId: String, environment: String = "production") {
        state.withLock { $0.messages[environment]?[messageId.lowercased()]?.state = "APPROVED" }
    }

    /// The realtime URL configured for `environment`.
    public func realtimeURL(_ environment: String) -> String? { state.withLock { $0.realtimeURLs[environment] } }

    /// Asks the configured realtime URL of `environment` for a message, as Apple does when a subscriber views the
    /// subscription `originalTransactionId`; nil when no URL is configured.
    public func sendRealtime(environment: String, originalTransactionId: String, productId: String, locale: String = "en-US",
                             signedDate: Date = Date()) async -> RealtimeOutcome? {
        guard let url = realtimeURL(environment) else { return nil }
        let body = Self.realtimeBody(sign: sign, originalTransactionId: originalTransactionId, appAppleId: appAppleId, productId: productId,
                                     locale: locale, environment: environment == "sandbox" ? "Sandbox" : "Production", signedDate: signedDate)
        let started = ContinuousClock.now
        let answer = await send(url, body)
        let elapsed = started.duration(to: .now)
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        guard let answer else { return RealtimeOutcome(result: "NO_RESPONSE", milliseconds: milliseconds, body: nil) }
        let json = try? JSONParser(maxDepth: 8).parse(answer.body)
        let result: String
        if milliseconds > deadlineMilliseconds {
            result = "TIMED_OUT"
        } else if answer.status != 200 {
            result = "UNSUCCESSFUL_HTTP_RESPONSE_CODE"
        } else if let json, Self.isResponseBody(json) {
            result = "SUCCESS"
        } else {
            result = "INVALID_RESPONSE"
        }
        return RealtimeOutcome(result: result, milliseconds: milliseconds, body: json)
    }

    /// A realtime retention request's body, `{"signedPayload": …}`, as Apple sends one to `Get Retention Message`: a
    /// `DecodedRealtimeRequestBody` signed by `sign`.
    public static func realtimeBody(sign: (JSONValue) -> String, originalTransactionId: String, appAppleId: Int64, productId: String, locale: String,
                                    environment: String, requestIdentifier: String = UUID().uuidString.lowercased(),
                                    signedDate: Date = Date()) -> [UInt8] {
        let payload: JSONValue = .object([
            ("originalTransactionId", .string(originalTransactionId)), ("appAppleId", .number(String(appAppleId))),
            ("productId", .string(productId)), ("userLocale", .string(locale)), ("requestIdentifier", .string(requestIdentifier)),
            ("environment", .string(environment)), ("signedDate", .number(String(Int64(signedDate.timeIntervalSince1970 * 1000)))),
        ])
        return JSONValue.object([("signedPayload", .string(sign(payload)))]).serializedBytes()
    }

    /// A `RealtimeResponseBody`: exactly one of its kinds, naming a message.
    static func isResponseBody(_ json: JSONValue) -> Bool {
        guard let members = json.objectValue, members.count == 1, let (kind, value) = members.first,
              ["message", "alternateProduct", "promotionalOffer", "advancedCommerceInfo"].contains(kind),
              let id = value["messageIdentifier"]?.stringValue, UUID(uuidString: id) != nil else { return false }
        return kind != "alternateProduct" || value["productId"]?.stringValue != nil
    }

    static let overHTTP: Send = { url, body in
        guard let address = URL(string: url) else { return nil }
        var request = URLRequest(url: address, timeoutInterval: 5)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body)
        guard let (data, response) = try? await URLSession.shared.data(for: request), let http = response as? HTTPURLResponse else { return nil }
        return (http.statusCode, Array(data))
    }

    // MARK: Apple's endpoints

    func answer(_ request: HTTPRequest) -> HTTPResponse {
        if request.method == "POST" && request.path == "/stand-in/realtime" { return realtimeFromOutside(request) }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard let environment = parts.first.map(String.init), ["production", "sandbox"].contains(environment),
              parts.dropFirst().prefix(3).joined(separator: "/") == "inApps/v1/messaging" else { return HTTPResponse(status: 404) }
        let rest = Array(parts.dropFirst(4).map { $0.removingPercentEncoding ?? String($0) })
        guard FakeAppStoreServerAPI.refusal(request.headers["Authorization"], credentials: credentials, now: Date()) == nil else {
            return HTTPResponse(status: 401)
        }
        let body = try? JSONParser(maxDepth: 8).parse(request.body)
        switch (request.method, rest.first ?? "", rest.count) {
        case ("PUT", "message", 2): return uploadMessage(environment, id: rest[1], body)
        case ("GET", "message", 2) where rest[1] == "list": return listMessages(environment)
        case ("DELETE", "message", 2): return deleteMessage(environment, id: rest[1])
        case ("PUT", "default", 3): return setDefault(environment, product: rest[1], locale: rest[2], body)
        case ("DELETE", "default", 3):
            state.withLock { _ = $0.defaults.removeValue(forKey: "\(environment)|\(rest[1])|\(rest[2])") }
            return HTTPResponse(status: 200)
        case ("PUT", "realtime", 2) where rest[1] == "url": return setRealtimeURL(environment, body)
        case ("GET", "realtime", 2) where rest[1] == "url":
            guard let url = realtimeURL(environment) else { return appleError(4040021, "Realtime URL not found.", status: 404) }
            return .json(["realtimeURL": .string(url)])
        case ("POST", "performanceTest", 1) where environment == "sandbox": return startTest(body)
        case ("GET", "performanceTest", 3) where environment == "sandbox" && rest[1] == "result": return testResult(rest[2])
        default: return HTTPResponse(status: 404)
        }
    }

    /// `POST /stand-in/realtime`: makes the realtime call a subscriber's view would, and answers what came of it.
    private func realtimeFromOutside(_ request: HTTPRequest) -> HTTPResponse {
        guard let body = try? JSONParser(maxDepth: 4).parse(request.body), let original = body["originalTransactionId"]?.stringValue,
              let product = body["productId"]?.stringValue else {
            return appleError(4000001, "Give originalTransactionId and productId (and environment, locale).")
        }
        let environment = body["environment"]?.stringValue ?? "production", locale = body["locale"]?.stringValue ?? "en-US"
        let outcome = Mutex<RealtimeOutcome?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result = await self.sendRealtime(environment: environment, originalTransactionId: original, productId: product, locale: locale)
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = outcome.withLock({ $0 }) else { return appleError(4040021, "Realtime URL not found.", status: 404) }
        let answer: JSONValue = ["result": .string(result.result), "milliseconds": .number(String(result.milliseconds)), "answer": result.body ?? .null]
        return .json(answer)
    }

    private func uploadMessage(_ environment: String, id: String, _ body: JSONValue?) -> HTTPResponse {
        guard UUID(uuidString: id) != nil, let header = body?["header"]?.stringValue, let text = body?["body"]?.stringValue else {
            return appleError(4000001, "Invalid request.")
        }
        guard header.count <= 66 else { return appleError(4000162, "Invalid request. The header text is too long.") }
        guard text.count <= 144 else { return appleError(4000163, "Invalid request. The body text is too long.") }
        if let alt = body?["image"]?["altText"]?.stringValue, alt.count > 150 {
            return appleError(4000175, "Invalid request. The alt text is too long.")
        }
        return state.withLock { state in
            let existing = state.messages[environment] ?? [:]
            guard existing[id.lowercased()] == nil else { return appleError(4090001, "Message already exists.", status: 409) }
            guard existing.count < Self.maxItems else { return appleError(4030016, "Maximum number of messages reached.", status: 403) }
            state.messages[environment, default: [:]][id.lowercased()] = Message(state: environment == "sandbox" ? "APPROVED" : "PENDING",
                                                                                   header: header, body: text)
            return HTTPResponse(status: 200)
        }
    }

    private func listMessages(_ environment: String) -> HTTPResponse {
        let items: [JSONValue] = state.withLock { $0.messages[environment] ?? [:] }.sorted { $0.key < $1.key }.map {
            ["messageIdentifier": .string($0.key), "messageState": .string($0.value.state)]
        }
        return .json(["messageIdentifiers": .array(items)])
    }

    private func deleteMessage(_ environment: String, id: String) -> HTTPResponse {
        state.withLock { state in
            guard state.messages[environment]?.removeValue(forKey: id.lowercased()) != nil else {
                return appleError(4040015, "Message not found.", status: 404)
            }
            return HTTPResponse(status: 200)
        }
    }

    private func setDefault(_ environment: String, product: String, locale: String, _ body: JSONValue?) -> HTTPResponse {
        guard locale.range(of: "^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$", options: [.regularExpression, .caseInsensitive]) != nil else {
            return appleError(4000164, "Invalid request. Locale is invalid.")
        }
        guard !product.isEmpty else { return appleError(4000023, "Invalid product id.") }
        guard let id = body?["messageIdentifier"]?.stringValue?.lowercased() else { return appleError(4000001, "Invalid request.") }
        return state.withLock { state in
            guard let message = state.messages[environment]?[id] else { return appleError(4040015, "Message not found.", status: 404) }
            guard message.state == "APPROVED" else { return appleError(4030017, "Message not approved.", status: 403) }
            state.defaults["\(environment)|\(product)|\(locale)"] = id
            return HTTPResponse(status: 200)
        }
    }

    private func setRealtimeURL(_ environment: String, _ body: JSONValue?) -> HTTPResponse {
        guard let url = body?["realtimeURL"]?.stringValue, url.utf8.count <= 256, let parsed = URL(string: url),
              parsed.scheme == "https" || (parsed.scheme == "http" && ["127.0.0.1", "localhost"].contains(parsed.host ?? "")) else {
            return appleError(4000215, "Invalid request. The realtime URL is invalid.")
        }
        return state.withLock { state in
            guard environment == "sandbox" || state.passedTest else {
                return appleError(4030026, "A passing performance test is required before configuring a production URL.", status: 403)
            }
            state.realtimeURLs[environment] = url
            return HTTPResponse(status: 200)
        }
    }

    private func startTest(_ body: JSONValue?) -> HTTPResponse {
        guard let original = body?["originalTransactionId"]?.stringValue, !original.isEmpty else {
            return appleError(4000006, "Invalid transaction id.")
        }
        let requestId = UUID().uuidString.lowercased()
        let config: JSONValue = [
            "maxConcurrentRequests": .number(String(testConcurrency)), "totalRequests": .number(String(testRequests)),
            "totalDuration": .number("60000"), "responseTimeThreshold": .number(String(deadlineMilliseconds)), "successRateThreshold": 95,
        ]
        let started: HTTPResponse? = state.withLock { state in
            guard let target = state.realtimeURLs["sandbox"] else {
                return appleError(4000211, "Invalid request: no realtime URL is configured in the sandbox.")
            }
            guard state.running == nil else { return appleError(4000213, "A performance test is already running.") }
            state.running = requestId
            state.tests[requestId] = TestRun(config: config, target: target, total: testRequests)
            return nil
        }
        if let started { return started }
        Task { await self.run(requestId: requestId, originalTransactionId: original) }
        let answer: JSONValue = ["config": config, "requestId": .string(requestId)]
        return .json(answer)
    }

    /// Sends the test's requests, `testConcurrency` at a time.
    private func run(requestId: String, originalTransactionId: String) async {
        var sent = 0
        while sent < testRequests {
            let batch = min(testConcurrency, testRequests - sent)
            let outcomes = await withTaskGroup(of: RealtimeOutcome?.self) { group in
                for _ in 0..<batch {
                    group.addTask {
                        await self.sendRealtime(environment: "sandbox", originalTransactionId: originalTransactionId, productId: "performance.test")
                    }
                }
                var all: [RealtimeOutcome] = []
                for await outcome in group { all.append(outcome ?? RealtimeOutcome(result: "OTHER", milliseconds: 0, body: nil)) }
                return all
            }
            sent += batch
            state.withLock { $0.tests[requestId]?.outcomes += outcomes }
        }
        state.withLock { state in
            let run = state.tests[requestId]
            let successes = run?.outcomes.filter { $0.result == "SUCCESS" }.count ?? 0
            if successes * 100 >= 95 * testRequests { state.passedTest = true }
            state.running = nil
        }
    }

    private func testResult(_ requestId: String) -> HTTPResponse {
        guard let run = state.withLock({ $0.tests[requestId] }) else { return appleError(4040018, "Performance test not found.", status: 404) }
        let done = run.outcomes.count
        let successes = run.outcomes.filter { $0.result == "SUCCESS" }.count
        let times = run.outcomes.map(\.milliseconds).sorted()
        func percentile(_ p: Int) -> JSONValue {
            guard !times.isEmpty else { return 0 }
            return .number(String(times[min(times.count - 1, (times.count * p + 99) / 100 - 1)]))
        }
        var failures: [(String, JSONValue)] = []
        for result in Set(run.outcomes.map(\.result)).sorted() where result != "SUCCESS" {
            failures.append((result, .number(String(run.outcomes.filter { $0.result == result }.count))))
        }
        let successRate = done == 0 ? 0 : successes * 100 / run.total
        let result = done < run.total ? "PENDING" : successes * 100 >= 95 * run.total ? "PASS" : "FAIL"
        let average = times.isEmpty ? 0 : times.reduce(0, +) / Int64(times.count)
        let answer: JSONValue = [
            "config": run.config, "target": .string(run.target), "result": .string(result), "successRate": .number(String(successRate)),
            "numPending": .number(String(run.total - done)),
            "responseTimes": ["average": .number(String(average)), "p50": percentile(50), "p90": percentile(90), "p95": percentile(95),
                              "p99": percentile(99)],
            "failures": .object(failures),
        ]
        return .json(answer)
    }

    private func appleError(_ code: Int, _ message: String, status: Int = 400) -> HTTPResponse {
        .json(["errorCode": .number(String(code)), "errorMessage": .string(message)], status: status)
    }
}
