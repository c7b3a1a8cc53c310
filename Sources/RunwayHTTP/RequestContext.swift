import LinkRunwayAPI

/// A typed key for values middleware attaches to a request (the authenticated principal, say).
public protocol RequestContextKey {
    associatedtype Value: Sendable
}

/// What the pipeline knows about a request besides the request itself.
public struct RequestContext: Sendable {
    /// Identifies the request in logs and in the `X-Request-Id` response header.
    public var requestId: String
    /// The matched route, or nil for 404/405.
    public var route: Route?
    /// Values of the `{name}` segments of the matched route.
    public var parameters: [String: String]
    /// When the pipeline started on this request.
    public let startedAt: ContinuousClock.Instant
    private var storage: [ObjectIdentifier: any Sendable] = [:]

    public init(requestId: String, route: Route? = nil, parameters: [String: String] = [:]) {
        self.requestId = requestId
        self.route = route
        self.parameters = parameters
        self.startedAt = .now
    }

    public subscript<Key: RequestContextKey>(_ key: Key.Type) -> Key.Value? {
        get { storage[ObjectIdentifier(key)] as? Key.Value }
        set { storage[ObjectIdentifier(key)] = newValue }
    }

    /// A path parameter the route declares; a missing one is a routing bug answered as 404.
    public func parameter(_ name: String) throws -> String {
        guard let value = parameters[name] else { throw HTTPError.notFound(.notFound, "missing path parameter \(name)") }
        return value
    }
}
