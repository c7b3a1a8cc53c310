import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP

/// How many requests a minute one client address, and one key, may send to the routes apps and Apple call
/// (`LINKRUNWAY_RATE_LIMIT_ADDRESS`, `LINKRUNWAY_RATE_LIMIT_KEY`; 0 turns a limit off). Counted in each process.
public struct RateLimitSettings: Sendable, Equatable {
    /// A carrier's NAT puts many devices behind one address, so this is generous.
    public var perAddressPerMinute = 600
    /// Every install of an app shares its publishable key, so this only stops a leaked key run wild.
    public var perKeyPerMinute = 60_000

    public init() {}
}

/// 429 with `Retry-After` when a client address or a key goes over its limit on the routes anyone can reach or every
/// installed app calls. Addresses are counted under a keyed hash made with a random key of this process.
struct RateLimitMiddleware: Middleware {
    /// The limited routes, as `METHOD pattern`.
    static let routes: Set<String> = [
        "POST /v1/installs/match", "POST /v1/resolve", "POST /v1/shares", "POST /v1/referral-codes", "GET /v1/referral-codes/{code}",
        "POST /v1/claims/apple-ads", "POST /v1/attest/apple/challenge", "POST /v1/attest/apple/register", "POST /v1/attest/apple/assert",
        "POST /v1/app-store/bind", "POST /v1/app-store/bind/deferred", "POST /v1/app-store/notifications/{surfaceId}",
        "POST /v1/app-store/assn/{surfaceId}", "POST /.well-known/skadnetwork/report-attribution/",
        "POST /.well-known/appattribution/report-attribution/", "POST /v1/installs/{installId}/forget", "GET /v1/mobile/config/{appId}",
    ]

    let byAddress: RateLimiter?
    let byKey: RateLimiter?
    private let addressKey = SecureRandom.bytes(32)

    init(_ settings: RateLimitSettings) {
        byAddress = settings.perAddressPerMinute > 0 ? RateLimiter(capacity: settings.perAddressPerMinute, perMinute: settings.perAddressPerMinute) : nil
        byKey = settings.perKeyPerMinute > 0 ? RateLimiter(capacity: settings.perKeyPerMinute, perMinute: settings.perKeyPerMinute) : nil
    }

    /// Routes without a limit pass immediately; limited ones are counted on the asynchronous path.
    func handleImmediately(_ request: HTTPRequest, context: RequestContext, next: ImmediateResponder) throws -> HTTPResponse? {
        guard let route = context.route, !Self.routes.contains("\(route.method.rawValue) \(route.pattern)") else { return nil }
        return try next(request, context)
    }

    func handle(_ request: HTTPRequest, context: RequestContext, next: Responder) async throws -> HTTPResponse {
        guard let route = context.route, Self.routes.contains("\(route.method.rawValue) \(route.pattern)") else {
            return try await next(request, context)
        }
        if let byAddress, let address = request.remoteAddress {
            let hashed = ByteEncoding.hex(Array(Digest.hmacSHA256(key: addressKey, message: Array(address.utf8)).prefix(12)))
            if let wait = byAddress.take(hashed) { throw Self.limited(wait, "this address") }
        }
        if let byKey, let principal = context[PrincipalKey.self], let wait = byKey.take(principal.keyId) {
            throw Self.limited(wait, "this key")
        }
        return try await next(request, context)
    }

    static func limited(_ seconds: Int, _ who: String) -> HTTPError {
        HTTPError(status: 429, code: ErrorCode.rateLimited, message: "too many requests from \(who); retry in \(seconds) s",
                  headers: ["Retry-After": String(seconds)])
    }
}
