import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayHTTP
@testable import RunwayKit
@testable import RunwayServer
import RunwayStore
import RunwayTestKit

enum UserAgents {
    static let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1"
    static let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"
    static let desktop = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15"
    static let facebookInApp = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/460.0.0.35.109;FBBV/593345512;FBDV/iPhone15,2;FBMD/iPhone;FBSN/iOS;FBSV/17.4;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5]"
    static let crawlers = [
        "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0",
        "Twitterbot/1.0",
        "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
        "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
        "WhatsApp/2.23.20.0 A",
        "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
        "TelegramBot (like TwitterBot)",
    ]
}

extension TestServer {
    /// Follows a link on `host` like a browser would (no redirects followed).
    func follow(_ path: String, userAgent: String?, host: String = "localhost", method: String = "GET",
                headers: [(String, String)] = []) async -> HTTPResponse {
        var all = [("Host", host)] + headers
        if let userAgent { all.append(("User-Agent", userAgent)) }
        return await client().send(method, path, headers: all, remoteAddress: "203.0.113.7")
    }

    func createLink(_ json: String, key: String? = nil) async throws -> Link {
        try await client(key ?? adminKey).post("/v1/links", json: json).decoded(Link.self, status: 201)
    }

    /// `POST /v1/links` with the admin key or `key` (201 expected).
    func createLink(_ request: CreateLinkRequest, key: String? = nil) async throws -> Link {
        try await client(key ?? adminKey).post("/v1/links", request).decoded(Link.self, status: 201)
    }

    func clicks() async throws -> [SQLRow] {
        try await store.read { try $0.query("SELECT * FROM clicks ORDER BY created_at, token") }
    }
}
