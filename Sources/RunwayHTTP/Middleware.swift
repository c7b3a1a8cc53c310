import Synchronization

/// Calls the rest of the pipeline.
public typealias Responder = @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse

/// A step wrapped around every request: it may change the request or context, answer early, or change the response.
public protocol Middleware: Sendable {
    func handle(_ request: HTTPRequest, context: RequestContext, next: Responder) async throws -> HTTPResponse
    /// Whether this step answers requests for `path` itself, before any route (the console's pages): such requests
    /// never take the hot path (`HotPath`).
    func answersBeforeRouting(_ path: String) -> Bool
}

extension Middleware {
    public func answersBeforeRouting(_ path: String) -> Bool { false }
}

/// Takes the caller's `X-Request-Id` when it is short and plain, else makes one; echoes it in the response.
public struct RequestIdMiddleware: Middleware {
    public init() {}

    public func handle(_ request: HTTPRequest, context: RequestContext, next: Responder) async throws -> HTTPResponse {
        var context = context
        if let incoming = request.headers["X-Request-Id"], Self.isAcceptable(incoming) {
            context.requestId = incoming
        }
        var response = try await next(request, context)
        response.headers.set("X-Request-Id", context.requestId)
        return response
    }

    static func isAcceptable(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64 && id.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b == 0x2d || b == 0x5f || b == 0x2e
        }
    }

    private static let base = UInt64.random(in: 0...UInt64.max)
    private static let hexDigits = Array("0123456789abcdef".utf8)
    private static let counter = Atomic<UInt64>(0)

    /// A new id, unique within this process and unlikely to repeat across processes (not a secret, so no system
    /// randomness per request): a random base plus a counter, scrambled and printed as 16 hex digits.
    public static func generate() -> String {
        let n = counter.add(1, ordering: .relaxed).newValue
        var x = (base &+ n) &* 0x9E37_79B9_7F4A_7C15
        x ^= x >> 31
        return String(unsafeUninitializedCapacity: 16) { out in
            for i in 0..<16 { out[i] = hexDigits[Int((x >> UInt64(60 - 4 * i)) & 0xf)] }
            return 16
        }
    }
}

/// Turns every thrown error into a JSON error response, through one mapping function.
public struct ErrorMiddleware: Middleware {
    let map: @Sendable (any Error) -> HTTPError
    let onUnexpected: @Sendable (any Error, RequestContext) -> Void

    /// `map` decides the status and code of each error; `onUnexpected` hears of the ones that become 500s.
    public init(map: @escaping @Sendable (any Error) -> HTTPError,
                onUnexpected: @escaping @Sendable (any Error, RequestContext) -> Void = { _, _ in }) {
        self.map = map
        self.onUnexpected = onUnexpected
    }

    public func handle(_ request: HTTPRequest, context: RequestContext, next: Responder) async throws -> HTTPResponse {
        do {
            return try await next(request, context)
        } catch {
            return mapped(error, context)
        }
    }

    func mapped(_ error: any Error, _ context: RequestContext) -> HTTPResponse {
        let mapped = map(error)
        if mapped.status >= 500 && mapped.status != 503 { onUnexpected(error, context) }
        return mapped.response
    }
}

/// Refuses bodies larger than the route's limit (or the default) with 413 before any handler reads them. A request whose
/// transport matched its route (`HTTPRequest.matchedRoute`) was held to that limit as its body was read.
public struct BodyLimitMiddleware: Middleware {
    public let defaultLimit: Int

    public init(defaultLimit: Int) { self.defaultLimit = defaultLimit }

    public func handle(_ request: HTTPRequest, context: RequestContext, next: Responder) async throws -> HTTPResponse {
        try check(request, context)
        return try await next(request, context)
    }

    private func check(_ request: HTTPRequest, _ context: RequestContext) throws {
        guard request.matchedRoute == nil else { return }
        let limit = context.route?.operation.maxBodyBytes ?? defaultLimit
        if request.body.count > limit { throw HTTPError.payloadTooLarge(limit: limit) }
    }
}
