import AppleFormats
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RunwayJSON

/// Asks the App Store Server API's Get Notification History for one page (up to 20) of the notifications Apple sent
/// in a span: https://developer.apple.com/documentation/appstoreserverapi/get-notification-history
/// (`POST /inApps/v1/notifications/history?paginationToken=…` with `{startDate, endDate}` in milliseconds; the answer
/// is a `NotificationHistoryResponse`: `notificationHistory[].signedPayload`, `hasMore`, `paginationToken`).
struct NotificationHistoryClient: Sendable {
    /// Apple's hosts, by environment (https://developer.apple.com/documentation/appstoreserverapi).
    static let productionURL = "https://api.storekit.itunes.apple.com"
    static let sandboxURL = "https://api.storekit-sandbox.itunes.apple.com"
    static let path = "/inApps/v1/notifications/history"

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
    static func baseURL(environment: String, configured: String?) -> String {
        configured ?? (environment == "sandbox" ? sandboxURL : productionURL)
    }

    func page(startDate: Int64, endDate: Int64, paginationToken: String?, now: Date) async throws(AppStoreReplayError) -> Page {
        var address = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        address += Self.path
        if let paginationToken {
            address += "?paginationToken=" + (paginationToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? paginationToken)
        }
        guard let url = URL(string: address) else { throw .apiFailed("the base URL \(baseURL) is not a URL") }
        guard let bearer = token.signed(now: now) else { throw .apiFailed("the In-App Purchase key could not sign a token") }
        var request = URLRequest(url: url, timeoutInterval: timeoutSeconds)
        request.httpMethod = "POST"
        request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let body: JSONValue = ["startDate": .number(String(startDate)), "endDate": .number(String(endDate))]
        request.httpBody = Data(body.serializedBytes())
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeoutSeconds
        configuration.timeoutIntervalForResource = timeoutSeconds
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let data: Data, response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw .apiFailed("no answer from \(url.host ?? baseURL): \(String(String(describing: error).prefix(200)))")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status != 401 else { throw .keyRejected }
        guard status == 200 else { throw .apiFailed("HTTP \(status)\(Self.appleError(data))") }
        return try Self.page(Array(data))
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
