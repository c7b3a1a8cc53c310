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
    /// Events one install may send in a day under the publishable key: far more than any real app sends, so that one
    /// client cannot fill the database and the webhooks with a key taken out of the app.
    public var eventsPerInstallPerDay = 10_000

    public init() {}
}

/// 429 with `Retry-After` when a client address or a key goes over its limit on the routes that say so
/// (`Operation.rateLimited`: those anyone can reach or every installed app calls). Addresses are counted by
/// `AddressBucket` (IPv6 by /64) under a keyed hash made with a random key of this process. A handler whose request
/// holds several items (an event batch) charges the rest through `RateLimitCharge`.
package struct RateLimitMiddleware: Middleware {
    package let byAddress: RateLimiter?
    package let byKey: RateLimiter?
    package let eventsByInstall: RateLimiter?
    private let addressKey = SecureRandom.bytes(32)

    package init(_ settings: RateLimitSettings, clock: MonotonicClock = .system) {
        byAddress = settings.perAddressPerMinute > 0
            ? RateLimiter(capacity: settings.perAddressPerMinute, perMinute: settings.perAddressPerMinute, clock: clock) : nil
        byKey = settings.perKeyPerMinute > 0 ? RateLimiter(capacity: settings.perKeyPerMinute, perMinute: settings.perKeyPerMinute, clock: clock) : nil
        let perDay = Double(settings.eventsPerInstallPerDay)
        eventsByInstall = perDay > 0 ? RateLimiter(capacity: perDay, perSecond: perDay / 86_400, clock: clock) : nil
    }

    package func handle(_ request: HTTPRequest, context: RequestContext, next: Responder) async throws -> HTTPResponse {
        guard let route = context.route, route.operation.rateLimited else {
            return try await next(request, context)
        }
        var charge = RateLimitCharge(eventsByInstall: eventsByInstall)
        if let byAddress, let address = request.remoteAddress {
            let bucket = AddressBucket.key(for: address)
            let hashed = ByteEncoding.hex(Array(Digest.hmacSHA256(key: addressKey, message: Array(bucket.utf8)).prefix(12)))
            if let wait = byAddress.take(hashed) { throw Self.limited(wait, "this address") }
            charge.byAddress = (byAddress, hashed)
        }
        if let byKey, let principal = context[PrincipalKey.self] {
            if let wait = byKey.take(principal.keyId) { throw Self.limited(wait, "this key") }
            charge.byKey = (byKey, principal.keyId)
        }
        var context = context
        context[RateLimitCharge.Key.self] = charge
        return try await next(request, context)
    }

    package static func limited(_ seconds: Int, _ who: String) -> RateLimited {
        RateLimited(seconds: seconds, what: "requests from \(who)")
    }
}

/// The buckets a rate-limited request was counted in, for a handler to charge the other items of a batch to.
package struct RateLimitCharge: Sendable {
    package enum Key: RequestContextKey { package typealias Value = RateLimitCharge }

    var byAddress: (RateLimiter, String)?
    var byKey: (RateLimiter, String)?
    let eventsByInstall: RateLimiter?

    /// Takes `count` more tokens from each bucket; throws 429 when one has too few.
    package func take(_ count: Int) throws {
        guard count > 0 else { return }
        if let (limiter, key) = byAddress, let wait = limiter.take(key, count: count) { throw RateLimitMiddleware.limited(wait, "this address") }
        if let (limiter, key) = byKey, let wait = limiter.take(key, count: count) { throw RateLimitMiddleware.limited(wait, "this key") }
    }

    /// Counts one event of `install` (an app's id and the install's) against its daily allowance.
    package func takeEvent(of install: String) throws {
        if let eventsByInstall, let wait = eventsByInstall.take(install) {
            throw RateLimited(seconds: wait, what: "events from this install today")
        }
    }
}
