import AppleFormats
import Foundation
import RunwayJSON

/// The calls the server makes to Apple's Retention Messaging API with an app's In-App Purchase key
/// (https://developer.apple.com/documentation/retentionmessaging), all under `/inApps/v1/messaging`:
///
/// - Upload Message (`PUT /message/{messageIdentifier}` with `{header, body, image?: {imageIdentifier, altText}}`),
///   Get Message List (`GET /message/list` → `{messageIdentifiers: [{messageIdentifier, messageState}]}`) and Delete
///   Message (`DELETE /message/{messageIdentifier}`);
/// - Configure and Delete Default Message (`PUT`/`DELETE /default/{productId}/{locale}`, the first with
///   `{messageIdentifier}`);
/// - Configure and Get Realtime URL (`PUT`/`GET /realtime/url`, `{realtimeURL}`);
/// - Initiate Performance Test (`POST /performanceTest` with `{originalTransactionId}` → `{config, requestId}`, sandbox
///   only) and Get Performance Test Results (`GET /performanceTest/result/{requestId}`).
///
/// Authentication is the App Store Server API's: an ES256 bearer token signed with the In-App Purchase key. Apple's
/// errors come as `{errorCode, errorMessage}`.
struct RetentionMessagingClient: Sendable {
    /// Apple's hosts since 2026-05 (the `api.storekit.itunes.apple.com` ones still answer).
    static let productionURL = "https://api.storekit.apple.com"
    static let sandboxURL = "https://api.storekit-sandbox.apple.com"
    static let prefix = "/inApps/v1/messaging"

    let baseURL: String
    let token: AppStoreServerAPIToken
    let timeoutSeconds: Double

    /// Apple's host for `environment`; a stand-in (`LINKRUNWAY_APP_STORE_API_URL`) serves both, each under its name
    /// (`/production`, `/sandbox`).
    static func baseURL(environment: AppStoreVerifier.Environment, configured: String?) -> String {
        guard let configured else { return environment == .sandbox ? sandboxURL : productionURL }
        return (configured.hasSuffix("/") ? String(configured.dropLast()) : configured) + "/" + environment.surfaceName
    }

    func uploadMessage(id: String, header: String, body: String, image: (id: String, altText: String)?, now: Date) async throws {
        var members: [(String, JSONValue)] = [("header", .string(header)), ("body", .string(body))]
        if let image { members.append(("image", ["imageIdentifier": .string(image.id), "altText": .string(image.altText)])) }
        _ = try await call("PUT", "/message/" + id, body: .object(members), now: now)
    }

    func messages(now: Date) async throws -> [(id: String, state: String)] {
        let answer = try await call("GET", "/message/list", body: nil, now: now)
        guard let items = answer["messageIdentifiers"]?.arrayValue else {
            throw RetentionMessagingError.appleAnswerUnreadable("the message list has no messageIdentifiers")
        }
        return items.prefix(5_000).compactMap { item in
            guard let id = item["messageIdentifier"]?.stringValue, id.utf8.count <= 64 else { return nil }
            return (id.lowercased(), String((item["messageState"]?.stringValue ?? "unknown").prefix(32)))
        }
    }

    func deleteMessage(id: String, now: Date) async throws {
        _ = try await call("DELETE", "/message/" + id, body: nil, now: now)
    }

    func setDefaultMessage(productId: String, locale: String, messageId: String?, now: Date) async throws {
        let path = "/default/" + Self.segment(productId) + "/" + Self.segment(locale)
        if let messageId {
            _ = try await call("PUT", path, body: ["messageIdentifier": .string(messageId)], now: now)
        } else {
            _ = try await call("DELETE", path, body: nil, now: now)
        }
    }

    func setRealtimeURL(_ url: String, now: Date) async throws {
        _ = try await call("PUT", "/realtime/url", body: ["realtimeURL": .string(url)], now: now)
    }

    func realtimeURL(now: Date) async throws -> String? {
        do {
            return try await call("GET", "/realtime/url", body: nil, now: now)["realtimeURL"]?.stringValue
        } catch RetentionMessagingError.appleNotFound {
            return nil
        }
    }

    func startPerformanceTest(originalTransactionId: String, now: Date) async throws -> JSONValue {
        try await call("POST", "/performanceTest", body: ["originalTransactionId": .string(originalTransactionId)], now: now)
    }

    func performanceTestResult(requestId: String, now: Date) async throws -> JSONValue {
        try await call("GET", "/performanceTest/result/" + Self.segment(requestId), body: nil, now: now)
    }

    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }

    /// One authenticated request; the JSON of a 200 answer (`null` when it has no body).
    private func call(_ method: String, _ path: String, body: JSONValue?, now: Date) async throws -> JSONValue {
        let (status, data) = try await AppStoreServerAPIClient.exchange(method, baseURL: baseURL, path: Self.prefix + path, token: token, body: body,
                                                                         now: now, timeoutSeconds: timeoutSeconds)
        let bytes = Array(data.prefix(1 << 20))
        switch status {
        case 200:
            guard !bytes.isEmpty else { return .null }
            guard let json = try? JSONParser(maxDepth: 8).parse(bytes) else { throw RetentionMessagingError.appleAnswerUnreadable("the answer is not JSON") }
            return json
        case 401: throw AppStoreReplayError.keyRejected
        case 404: throw RetentionMessagingError.appleNotFound(Self.appleError(bytes))
        case 400, 403, 409: throw RetentionMessagingError.appleRefused(status: status, Self.appleError(bytes))
        default: throw AppStoreReplayError.apiFailed("HTTP \(status)\(AppStoreServerAPIClient.appleError(data))")
        }
    }

    /// Apple's `errorCode errorMessage`, or the status alone.
    static func appleError(_ bytes: [UInt8]) -> String {
        let text = AppStoreServerAPIClient.appleError(Data(bytes.prefix(4096)))
        return text.hasPrefix(": ") ? String(text.dropFirst(2)) : (text.isEmpty ? "no error body" : text)
    }
}
