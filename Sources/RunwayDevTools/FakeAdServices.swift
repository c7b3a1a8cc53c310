import Foundation
import RunwayHTTP
import RunwayHTTPServer
import Synchronization

/// A stand-in for Apple's AdServices API, for tests and local demos: `POST /api/v1/` answers according to the token.
///
/// | token | answer |
/// |---|---|
/// | `tap`, `view` | 200, attributed, with the click or impression date |
/// | `tap-standard`, `view-standard` | 200, attributed, without dates (no ATT consent) |
/// | `search-match` | 200, attributed, without a keyword id |
/// | `strings` | 200, attributed, ids as strings and a date with seconds and an offset |
/// | `preorder` | 200, attributed, conversion type `Preorder` |
/// | `test` | 200, Apple's developer-mode sample (flagged as test data) |
/// | `no` | 200, `attribution: false` |
/// | `invalid` | 400 |
/// | `error` | 500 |
/// | `missing` | always 404 |
/// | `late-N` | 404 for the first N requests, then as `tap` |
/// | `garbage` | 200 with a body that is not JSON |
/// | `slow` | as `tap`, after `slowAnswerDelay` (5 seconds unless changed), or once released while `hold()` holds it |
/// | anything else | 404 |
public final class FakeAdServices: Sendable {
    public let server: HTTPServer
    private let counts = Mutex<[String: Int]>([:])
    private let slowDelay = Mutex<Duration>(.seconds(5))
    private let holding = Mutex(false)

    /// How long the `slow` token's answer takes (counted from when the request arrives).
    public var slowAnswerDelay: Duration {
        get { slowDelay.withLock { $0 } }
        set { slowDelay.withLock { $0 = newValue } }
    }

    /// From now on the `slow` token's answers wait until `release()` (at most `slowAnswerDelay`), so a test can do
    /// something while Apple holds the question, however slow the machine.
    public func hold() { holding.withLock { $0 = true } }

    /// Lets the held answers go.
    public func release() { holding.withLock { $0 = false } }

    public init(port: UInt16 = 0, logger: Logger) throws {
        let box = StandInBox<FakeAdServices>()
        server = box.server(port: port, logger: logger) { fake, request in
            let response = fake.answer(request)
            if String(decoding: request.body, as: UTF8.self) == "slow" {
                if fake.holding.withLock({ $0 }) {
                    let until = ContinuousClock.now + fake.slowAnswerDelay
                    while fake.holding.withLock({ $0 }), ContinuousClock.now < until { try? await Task.sleep(for: .milliseconds(10)) }
                } else {
                    try? await Task.sleep(for: fake.slowAnswerDelay)
                }
            }
            return response
        }
        box.standIn = self
        try server.start()
    }

    /// The base URL to configure (`LINKRUNWAY_APPLE_ADS_URL`).
    public var baseURL: String { "http://127.0.0.1:\(server.port)" }

    /// How many times a token was posted.
    public func requests(for token: String) -> Int { counts.withLock { $0[token] ?? 0 } }

    func answer(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "POST", request.path == "/api/v1" || request.path == "/api/v1/" else { return HTTPResponse(status: 404) }
        guard request.headers["Content-Type"]?.hasPrefix("text/plain") == true else { return HTTPResponse(status: 400) }
        let token = String(decoding: request.body, as: UTF8.self)
        let count = counts.withLock { counts -> Int in
            let count = counts[token, default: 0] + 1
            counts[token] = count
            return count
        }
        switch token {
        case "tap", "slow": return json(Self.tap)
        case "tap-standard": return json(#"{"attribution":true,"orgId":51001,"campaignId":61001,"conversionType":"Download","claimType":"Click","adGroupId":71001,"countryOrRegion":"GB","keywordId":81001,"adId":91001}"#)
        case "view": return json(#"{"attribution":true,"orgId":51002,"campaignId":61002,"conversionType":"Redownload","impressionDate":"2026-11-29T09:30Z","claimType":"Impression","adGroupId":71002,"countryOrRegion":"DE","adId":91002}"#)
        case "view-standard": return json(#"{"attribution":true,"orgId":51002,"campaignId":61002,"conversionType":"Download","claimType":"Impression","adGroupId":71002,"countryOrRegion":"DE"}"#)
        case "search-match": return json(#"{"attribution":true,"orgId":51003,"campaignId":61003,"conversionType":"Download","clickDate":"2026-11-28T12:00Z","claimType":"Click","adGroupId":71003,"countryOrRegion":"FR","adId":91003}"#)
        case "strings": return json(#"{"attribution":"true","orgId":"51004","campaignId":"61004","conversionType":"Download","clickDate":"2026-11-28T12:00:30.250+02:00","claimType":"Click","adGroupId":"71004","keywordId":"81004","countryOrRegion":"JP","supplyPlacement":"TodayTab","unknownField":[1,2]}"#)
        case "test": return json(#"{"attribution":true,"orgId":1234567890,"campaignId":1234567890,"conversionType":"Download","clickDate":"2020-04-08T17:17Z","claimType":"Click","adGroupId":1234567890,"countryOrRegion":"US","keywordId":12323222,"adId":1234567890}"#)
        case "preorder": return json(#"{"attribution":true,"orgId":51005,"campaignId":61005,"conversionType":"Preorder","clickDate":"2026-11-28T12:00Z","claimType":"Click","adGroupId":71005,"countryOrRegion":"US","keywordId":81005,"adId":91005}"#)
        case "no": return json(#"{"attribution":false}"#)
        case "invalid": return HTTPResponse(status: 400)
        case "error": return HTTPResponse(status: 500)
        case "garbage": return HTTPResponse.text("<html>oops</html>")
        default:
            if token.hasPrefix("late-"), let n = Int(token.dropFirst(5)) { return count > n ? json(Self.tap) : HTTPResponse(status: 404) }
            return HTTPResponse(status: 404)
        }
    }

    static let tap = #"{"attribution":true,"orgId":51000,"campaignId":61000,"conversionType":"Download","clickDate":"2026-11-29T08:15Z","claimType":"Click","adGroupId":71000,"countryOrRegion":"US","keywordId":81000,"adId":91000}"#

    private func json(_ text: String) -> HTTPResponse { HTTPResponse.text(text, contentType: "application/json") }
}
