import AppleFormats
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RunwayJSON

/// The calls the server makes to the App Store Server API with an app's In-App Purchase key:
///
/// - Get Notification History, one page (up to 20) of the notifications Apple sent in a span
///   (https://developer.apple.com/documentation/appstoreserverapi/get-notification-history:
///   `POST /inApps/v1/notifications/history?paginationToken=…` with `{startDate, endDate}` in milliseconds; the answer
///   is a `NotificationHistoryResponse`: `notificationHistory[].signedPayload`, `hasMore`, `paginationToken`);
/// - Request a Test Notification (`POST /inApps/v1/notifications/test`, answering `{testNotificationToken}`) and Get
///   Test Notification Status (`GET /inApps/v1/notifications/test/{testNotificationToken}`, answering
///   `{signedPayload, sendAttempts}`), https://developer.apple.com/documentation/appstoreserverapi/request-a-test-notification.
struct AppStoreServerAPIClient: Sendable {
    /// Apple's hosts, by environment (https://developer.apple.com/documentation/appstoreserverapi).
    static let productionURL = "https://api.storekit.itunes.apple.com"
    static let sandboxURL = "https://api.storekit-sandbox.itunes.apple.com"
    static let path = "/inApps/v1/notifications/history"
    static let testPath = "/inApps/v1/notifications/test"

    /// One page of history.
    struct Page: Sendable {
        let signedPayloads: [String]
        let hasMore: Bool
        let paginationToken: String?
    }

    let baseURL: String
    let token: AppStoreServerAPIToken
    let timeoutSeconds: Double

    /// Where an environment's requests go: `configured` (a stand-in, `LINKRUNWAY_APP_STORE_API_URL`) or Apple's host.
    static func baseURL(environment: AppStoreVerifier.Environment, configured: String?) -> String {
        configured ?? (environment == .sandbox ? sandboxURL : productionURL)
    }

    func page(startDate: Int64, endDate: Int64, paginationToken: String?, now: Date) async throws(AppStoreReplayError) -> Page {
        var path = Self.path
        if let paginationToken {
            path += "?paginationToken=" + (paginationToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? paginationToken)
        }
        let body: JSONValue = ["startDate": .number(String(startDate)), "endDate": .number(String(endDate))]
        return try Self.page(try await call("POST", path, body: body, now: now))
    }

    /// Asks Apple to send a `TEST` notification; returns its `testNotificationToken`.
    func requestTestNotification(now: Date) async throws(AppStoreReplayError) -> String {
        let answer = try await call("POST", Self.testPath, body: nil, now: now)
        guard let token = (try? JSONParser(maxDepth: 4).parse(answer))?["testNotificationToken"]?.stringValue,
              !token.isEmpty, token.utf8.count <= 256 else {
            throw .apiFailed("the answer has no testNotificationToken")
        }
        return token
    }

    /// The `signedPayload` of the test notification `token` names.
    func testNotification(token: String, now: Date) async throws(AppStoreReplayError) -> String {
        let path = Self.testPath + "/" + (token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token)
        let answer = try await call("GET", path, body: nil, now: now)
        guard let payload = (try? JSONParser(maxDepth: 8).parse(answer))?["signedPayload"]?.stringValue, !payload.isEmpty else {
            throw .apiFailed("the test notification's status has no signedPayload")
        }
        return payload
    }

    /// One authenticated request; the body of a 200 answer.
    private func call(_ method: String, _ path: String, body: JSONValue?, now: Date) async throws(AppStoreReplayError) -> [UInt8] {
        let (status, data) = try await Self.exchange(method, baseURL: baseURL, path: path, token: token, body: body, now: now,
                                                     timeoutSeconds: timeoutSeconds)
        guard status != 401 else { throw .keyRejected }
        guard status == 200 else { throw .apiFailed("HTTP \(status)\(Self.appleError(data))") }
        return Array(data)
    }

    /// One request to an Apple API signed with an In-App Purchase key: the status and body of the answer, whatever the
    /// status; no answer at all is `apiFailed`.
    static func exchange(_ method: String, baseURL: String, path: String, token: AppStoreServerAPIToken, body: JSONValue?, now: Date,
                         timeoutSeconds: Double) async throws(AppStoreReplayError) -> (status: Int, body: Data) {
        let address = (baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL) + path
        guard let url = URL(string: address) else { throw .apiFailed("the base URL \(baseURL) is not a URL") }
        guard let bearer = token.signed(now: now) else { throw .apiFailed("the In-App Purchase key could not sign a token") }
        var request = URLRequest(url: url, timeoutInterval: timeoutSeconds)
        request.httpMethod = method
        request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.serializedBytes())
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeoutSeconds
        configuration.timeoutIntervalForResource = timeoutSeconds
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        do {
            let (data, response) = try await session.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
        } catch {
            throw .apiFailed("no answer from \(url.host ?? baseURL): \(String(String(describing: error).prefix(200)))")
        }
    }

    /// Reads a `NotificationHistoryResponse`; fields Apple may add are ignored.
    static func page(_ bytes: [UInt8]) throws(AppStoreReplayError) -> Page {
        guard let json = try? JSONParser(maxDepth: 8).parse(bytes), let items = json["notificationHistory"]?.arrayValue else {
            throw .apiFailed("the answer is not a notification history")
        }
        let payloads = items.compactMap { $0["signedPayload"]?.stringValue }
        guard payloads.count == items.count else { throw .apiFailed("a history item has no signedPayload") }
        let hasMore = json["hasMore"]?.boolValue ?? false
        let token = json["paginationToken"]?.stringValue
        guard !hasMore || token != nil else { throw .apiFailed("hasMore without a paginationToken") }
        return Page(signedPayloads: payloads, hasMore: hasMore, paginationToken: token)
    }

    /// `: <errorCode> <errorMessage>` from Apple's error body, when it has one.
    static func appleError(_ data: Data) -> String {
        guard let json = try? JSONParser(maxDepth: 4).parse(Array(data.prefix(4096))) else { return "" }
        let code = json["errorCode"]?.int64Value.map(String.init) ?? json["errorCode"]?.stringValue ?? ""
        let message = json["errorMessage"]?.stringValue ?? ""
        return code.isEmpty && message.isEmpty ? "" : ": \(code) \(message)".trimmingCharacters(in: .whitespaces)
    }
}
