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

/// 429 with `Retry-After` when a client address or a key goes over its limit on the routes that say so
/// (`Operation.rateLimited`: those anyone can reach or every installed app calls). Addresses are counted under a keyed
/// hash made with a random key of this process.
package struct RateLimitMiddleware: Middleware {
    package let byAddress: RateLimiter?
    package let byKey: RateLimiter?
    private let addressKey = SecureRandom.bytes(32)

    package init(_ settings: RateLimitSettings, clock: MonotonicClock = .system) {
        byAddress = settings.perAddressPerMinute > 0
            ? RateLimiter(capacity: settings.perAddressPerMinute, perMinute: settings.perAddressPerMinute, clock: clock) : nil
        byKey = settings.perKeyPerMinute > 0 ? RateLimiter(capacity: settings.perKeyPerMinute, perMinute: settings.perKeyPerMinute, clock: clock) : nil
    }

    package func handle(_ request: HTTPRequest, context: RequestContext, next: Responder) async throws -> HTTPResponse {
        guard let route = context.route, route.operation.rateLimited else {
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

    package static func limited(_ seconds: Int, _ who: String) -> RateLimited {
        RateLimited(seconds: seconds, what: "requests from \(who)")
    }
}
