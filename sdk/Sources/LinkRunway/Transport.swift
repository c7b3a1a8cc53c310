import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTP to the LinkRunway server: the publishable key, the SDK's user agent, JSON bodies, and three tries with a
/// growing wait on 429, 5xx and network errors.
struct Transport: Sendable {
    let endpoint: URL
    let publishableKey: String
    let session: URLSession
    let userAgent: String
    let sleep: @Sendable (Double) async -> Void
    static let attempts = 3

    struct Answer: Sendable {
        let status: Int
        let body: Data
        let headers: [String: String]
    }

    /// Sends `body` (JSON) and returns any 2xx answer; throws `LinkRunwayError.server` for others and the
    /// `URLError` when the network fails three times.
    func send(_ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:]) async throws -> Answer {
        var request = URLRequest(url: endpoint.appendingPathComponent(String(path.dropFirst())))
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue("Bearer \(publishableKey)", forHTTPHeaderField: "Authorization")
        request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        var wait = 0.5
        for attempt in 1...Self.attempts {
            do {
                let (data, response) = try await session.data(for: request)
                guard let http = response as? HTTPURLResponse else { throw LinkRunwayError.unreadableResponse }
                let headers = Dictionary(http.allHeaderFields.compactMap { key, value in (key as? String).map { ($0.lowercased(), "\(value)") } },
                                         uniquingKeysWith: { first, _ in first })
                if (200..<300).contains(http.statusCode) { return Answer(status: http.statusCode, body: data, headers: headers) }
                let retryable = http.statusCode == 429 || http.statusCode >= 500
                guard retryable, attempt < Self.attempts else {
                    throw LinkRunwayError.server(status: http.statusCode, body: String(decoding: data, as: UTF8.self))
                }
                let asked = headers["retry-after"].flatMap(Double.init) ?? wait
                await sleep(min(max(asked, wait), 30))
            } catch let error as URLError {
                guard attempt < Self.attempts else { throw error }
                await sleep(wait)
            }
            wait *= 2
        }
        throw LinkRunwayError.unreadableResponse
    }

    /// True when a failed request certainly changed nothing on the server: it answered with an error (a 502 or 504
    /// from a proxy may hide a request that went through, so those do not count), or the request never left the
    /// device. A timeout or a connection lost mid-way may have reached it.
    static func changedNothing(_ error: any Error) -> Bool {
        if case LinkRunwayError.server(let status, _) = error { return status != 502 && status != 504 }
        guard let error = error as? URLError else { return false }
        let neverSent: Set<URLError.Code> = [
            .notConnectedToInternet, .cannotFindHost, .cannotConnectToHost, .dnsLookupFailed, .secureConnectionFailed,
            .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot,
            .clientCertificateRejected, .clientCertificateRequired, .appTransportSecurityRequiresSecureConnection, .dataNotAllowed,
            .internationalRoamingOff, .callIsActive, .badURL, .unsupportedURL,
        ]
        return neverSent.contains(error.code)
    }

    /// True for an answer worth sending again later: a network error, 429 or a 5xx.
    static func isTransient(_ error: any Error) -> Bool {
        if case LinkRunwayError.server(let status, _) = error { return status == 429 || status >= 500 }
        return error is URLError
    }

    static func json(_ object: [String: Any]) throws -> Data { try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) }

    /// The answer's JSON object.
    static func object(_ answer: Answer) throws -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any] else { throw LinkRunwayError.unreadableResponse }
        return object
    }
}
