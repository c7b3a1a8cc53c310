import AppleFormats
import Foundation
import RunwayCrypto
import RunwayHTTP
import RunwayHTTPServer
import RunwayJSON
import Synchronization

/// A stand-in for the App Store Server API's Get Notification History, for tests and local demos:
/// `POST /inApps/v1/notifications/history[?paginationToken=…]` with `{startDate, endDate}` answers the notifications
/// it was given whose `signedDate` falls in the span, oldest first, `pageSize` at a time, with `hasMore` and a
/// `paginationToken` as Apple's does.
///
/// With `testNotification` (which signs a `TEST` notification as Apple would), it also answers Request a Test
/// Notification (`POST /inApps/v1/notifications/test`: `{testNotificationToken}`) and Get Test Notification Status
/// (`GET /inApps/v1/notifications/test/{token}`: `{signedPayload, sendAttempts}`, or 404 with Apple's error 4040008 for
/// an unknown token, and for the first `statusNotFoundTimes` checks of a known one, as while Apple is still sending).
///
/// The bearer token is checked as Apple documents it: a JWT whose header says `alg` ES256, `typ` JWT and the
/// expected `kid`, signed by the expected public key, with `iss` the issuer id, `aud` `appstoreconnect-v1`, `bid` the
/// bundle id, `iat` not in the future and `exp` in the future and at most an hour after `iat`. Any failure is 401
/// with no body, like Apple's; the reason is kept (`refusals`) for tests.
public final class FakeAppStoreServerAPI: Sendable {
    /// Whose tokens it accepts.
    public struct Credentials: Sendable {
        public var issuerId: String
        public var keyId: String
        public var bundleId: String
        public var publicKey: PublicKey

        public init(issuerId: String, keyId: String, bundleId: String, publicKey: PublicKey) {
            self.issuerId = issuerId
            self.keyId = keyId
            self.bundleId = bundleId
            self.publicKey = publicKey
        }
    }

    public let server: HTTPServer
    private let credentials: Credentials
    private let pageSize: Int
    private let now: @Sendable () -> Date
    private let history = Mutex<[(sentAt: Int64, signedPayload: String)]>([])
    private let refused = Mutex<[String]>([])
    private let served = Atomic<Int>(0)
    private let testNotification: (@Sendable () -> String)?
    private let statusNotFoundTimes: Int
    /// Test notifications by token, with how many status checks each has had.
    private let tests = Mutex<[String: (signedPayload: String, checks: Int)]>([:])

    public init(port: UInt16 = 0, credentials: Credentials, pageSize: Int = 20, now: @escaping @Sendable () -> Date = { Date() },
                testNotification: (@Sendable () -> String)? = nil, statusNotFoundTimes: Int = 0, logger: Logger) throws {
        self.credentials = credentials
        self.pageSize = max(1, pageSize)
        self.now = now
        self.testNotification = testNotification
        self.statusNotFoundTimes = statusNotFoundTimes
        let box = StandInBox<FakeAppStoreServerAPI>()
        server = box.server(port: port, logger: logger) { fake, request in fake.answer(request) }
        box.standIn = self
        try server.start()
    }

    /// The base URL to configure (`LINKRUNWAY_APP_STORE_API_URL`).
    public var baseURL: String { "http://127.0.0.1:\(server.port)" }

    /// Adds notifications to the history, each sent at its payload's `signedDate`; false for one that is not a JWS
    /// with a `signedDate`.
    @discardableResult
    public func add(_ signedPayloads: [String]) -> Bool {
        var entries: [(sentAt: Int64, signedPayload: String)] = []
        for payload in signedPayloads {
            guard let sentAt = (try? CompactJWS.parse(payload))?.payload["signedDate"]?.int64Value else { return false }
            entries.append((sentAt, payload))
        }
        history.withLock { $0 += entries }
        return true
    }

    /// Why each refused token was refused, oldest first.
    public var refusals: [String] { refused.withLock { $0 } }

    /// How many pages it has answered.
    public var pagesServed: Int { served.load(ordering: .relaxed) }

    func answer(_ request: HTTPRequest) -> HTTPResponse {
        let testPath = "/inApps/v1/notifications/test"
        let isTest = testNotification != nil && ((request.method == "POST" && request.path == testPath)
                                                  || (request.method == "GET" && request.path.hasPrefix(testPath + "/")))
        guard isTest || (request.method == "POST" && request.path == "/inApps/v1/notifications/history") else { return HTTPResponse(status: 404) }
        if let why = refusal(request.headers["Authorization"]) {
            refused.withLock { $0.append(why) }
            return HTTPResponse(status: 401)
        }
        if isTest { return answerTest(request, testPath: testPath) }
        guard let body = try? JSONParser(maxDepth: 4).parse(request.body), let start = body["startDate"]?.int64Value,
              let end = body["endDate"]?.int64Value, start < end else {
            return appleError(4000012, "Invalid request: startDate and endDate (milliseconds) are required, startDate before endDate.")
        }
        let span = "\(start)-\(end)"
        var offset = 0
        if let token = request.queryValue("paginationToken") {
            // The token names the span it was made for and where the next page starts.
            let parts = String(decoding: ByteEncoding.fromBase64url(token) ?? [], as: UTF8.self).split(separator: "/")
            guard parts.count == 2, parts[0] == span, let next = Int(parts[1]) else {
                return appleError(4000006, "Invalid pagination token.")
            }
            offset = next
        }
        let matching = history.withLock { $0 }.filter { start <= $0.sentAt && $0.sentAt < end }.sorted { $0.sentAt < $1.sentAt }
        let page = matching.dropFirst(offset).prefix(pageSize)
        let next = offset + page.count
        let items: [JSONValue] = page.map { entry in
            ["signedPayload": .string(entry.signedPayload),
             "sendAttemptResults": [["attemptDate": .number(String(entry.sentAt)), "sendAttemptResult": "SUCCESS"]]]
        }
        served.add(1, ordering: .relaxed)
        return .json([
            "notificationHistory": .array(items), "hasMore": .bool(next < matching.count),
            "paginationToken": .string(ByteEncoding.base64url(Array("\(span)/\(next)".utf8))),
        ])
    }

    /// Why a bearer token would not do, or nil when it does.
    func refusal(_ authorization: String?) -> String? { Self.refusal(authorization, credentials: credentials, now: now()) }

    /// Why a bearer token would not do for `credentials` at `now`, or nil when it does.
    static func refusal(_ authorization: String?, credentials: Credentials, now: Date) -> String? {
        guard let authorization, authorization.hasPrefix("Bearer ") else { return "no bearer token" }
        let jws: CompactJWS
        do {
            jws = try CompactJWS.parse(String(authorization.dropFirst(7)))
        } catch {
            return "not an ES256 JWS: \(error)"
        }
        guard jws.header["typ"]?.stringValue == "JWT" else { return "typ is not JWT" }
        guard jws.header["kid"]?.stringValue == credentials.keyId else { return "kid is not the key id" }
        guard jws.verifies(with: credentials.publicKey) else { return "the signature does not verify with the key" }
        let claims = jws.payload
        guard claims["iss"]?.stringValue == credentials.issuerId else { return "iss is not the issuer id" }
        guard claims["aud"]?.stringValue == AppStoreServerAPIToken.audience else { return "aud is not appstoreconnect-v1" }
        guard claims["bid"]?.stringValue == credentials.bundleId else { return "bid is not the bundle id" }
        guard let issuedAt = claims["iat"]?.int64Value, let expires = claims["exp"]?.int64Value else { return "iat or exp is missing" }
        let seconds = Int64(now.timeIntervalSince1970)
        guard issuedAt <= seconds + 60 else { return "iat is in the future" }
        guard expires > seconds else { return "the token has expired" }
        guard expires - issuedAt <= AppStoreServerAPIToken.maximumLifetimeSeconds else { return "exp is more than an hour after iat" }
        return nil
    }

    private func answerTest(_ request: HTTPRequest, testPath: String) -> HTTPResponse {
        if request.method == "POST", let sign = testNotification {
            let token = UUID().uuidString.lowercased()
            let payload = sign()
            tests.withLock { $0[token] = (payload, 0) }
            return .json(["testNotificationToken": .string(token)])
        }
        let token = String(request.path.dropFirst(testPath.count + 1))
        let found = tests.withLock { tests -> String? in
            guard var entry = tests[token] else { return nil }
            entry.checks += 1
            tests[token] = entry
            return entry.checks > statusNotFoundTimes ? entry.signedPayload : nil
        }
        guard let found else { return appleError(4040008, "Test notification not found.", status: 404) }
        let sentAt = (try? CompactJWS.parse(found))?.payload["signedDate"]?.int64Value ?? 0
        return .json(["signedPayload": .string(found),
                      "sendAttempts": [["attemptDate": .number(String(sentAt)), "sendAttemptResult": "SUCCESS"]]])
    }

    private func appleError(_ code: Int, _ message: String, status: Int = 400) -> HTTPResponse {
        .json(["errorCode": .number(String(code)), "errorMessage": .string(message)], status: status)
    }
}
