import RunwayJSON

/// Who may call a route: anyone, or callers holding one of the named key kinds.
public enum RouteAccess: Sendable, Equatable {
    case open
    case keys(Set<String>)
}

/// A component schema an operation names: its name, and the components it needs (itself and every one it refers to),
/// which the document gathers from its routes.
public struct SchemaReference: Sendable {
    public var name: String
    public var components: [(String, JSONValue)]
    /// What deriving the components found wrong with the types they describe (notes for fields that do not exist,
    /// limits that do not fit); the document leaves it out and a test holds it empty.
    public var problems: [String]

    public init(name: String, components: [(String, JSONValue)], problems: [String] = []) {
        self.name = name
        self.components = components
        self.problems = problems
    }
}

/// One documented response of an operation.
public struct ResponseDoc: Sendable {
    public var status: Int
    public var description: String
    /// The body's component schema, or nil when the body is not JSON or not described.
    public var schema: SchemaReference?
    public var contentType: String?
    /// The same status may also come as the JSON `Error` (a page for people or an error for programs).
    public var orJSONError: Bool

    public init(status: Int, description: String, schema: SchemaReference? = nil, contentType: String? = nil, orJSONError: Bool = false) {
        self.status = status
        self.description = description
        self.schema = schema
        self.contentType = contentType ?? (schema == nil ? nil : "application/json")
        self.orJSONError = orJSONError
    }

    public static func json(_ status: Int, _ schema: SchemaReference, _ description: String) -> ResponseDoc {
        ResponseDoc(status: status, description: description, schema: schema)
    }
}

/// A documented query parameter.
public struct QueryParameterDoc: Sendable {
    public var name: String
    public var description: String
    public var schema: String  // "string", "integer", "boolean"
    public var required: Bool

    public init(_ name: String, _ description: String, schema: String = "string", required: Bool = false) {
        self.name = name
        self.description = description
        self.schema = schema
        self.required = required
    }
}

/// What the OpenAPI document says about a route; the route table is the only source of it.
public struct Operation: Sendable {
    public var id: String
    public var summary: String
    public var tag: String
    public var access: RouteAccess
    /// Component schema of the JSON request body, if the route takes one.
    public var requestSchema: SchemaReference?
    public var responses: [ResponseDoc]
    public var query: [QueryParameterDoc]
    /// A body limit tighter than the server's, for this route only.
    public var maxBodyBytes: Int?
    /// Extra error codes this operation answers besides the ones every route can (400, 401, 403, 404, 413, 503).
    public var errors: [Int]
    /// Whether a retry carrying the same `Idempotency-Key` header gets the first answer again instead of acting twice.
    public var idempotent: Bool
    /// Whether requests are counted per client address and per key (the routes anyone can reach or every installed
    /// app calls); over the limit they get 429.
    public var rateLimited: Bool

    public init(id: String, summary: String, tag: String, access: RouteAccess, requestSchema: SchemaReference? = nil,
                responses: [ResponseDoc], query: [QueryParameterDoc] = [], maxBodyBytes: Int? = nil, errors: [Int] = [],
                idempotent: Bool = false, rateLimited: Bool = false) {
        self.id = id
        self.summary = summary
        self.tag = tag
        self.access = access
        self.requestSchema = requestSchema
        self.responses = responses
        self.query = query
        self.maxBodyBytes = maxBodyBytes
        self.errors = errors
        self.idempotent = idempotent
        self.rateLimited = rateLimited
    }
}

/// The function that answers a matched route.
public typealias Handler = @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse

/// Answers without waiting for anything, on the transport's own thread (no task, no suspended connection); nil hands
/// the request to the route's asynchronous handler instead.
public typealias ImmediateHandler = @Sendable (HTTPRequest, RequestContext) throws -> HTTPResponse?

/// A method and path pattern (`/v1/apps/{appId}`, `/{path...}` for the rest of the path) with its handler.
/// A class, so that passing the matched route along a request's pipeline costs one reference, not a copy of its
/// operation's documentation.
public final class Route: Sendable {
    public let method: HTTPMethod
    public let pattern: String
    public let operation: Operation
    public let handler: Handler
    /// The same answer without waiting, when the route can give it (see `HTTPApplication.respondImmediately`).
    public let immediate: ImmediateHandler?
    /// `GET /v1/apps/{appId}`: the label used in logs and metrics (bounded, unlike raw paths).
    public let label: String

    public init(method: HTTPMethod, pattern: String, operation: Operation, immediate: ImmediateHandler? = nil, handler: @escaping Handler) {
        self.method = method
        self.pattern = pattern
        self.operation = operation
        self.handler = handler
        self.immediate = immediate
        self.label = "\(method.rawValue) \(pattern)"
    }

    /// A line of a route table: `Route(.POST, "/v1/webhooks", .createWebhook, use: handlers.create)`.
    public convenience init(_ method: HTTPMethod, _ pattern: String, _ operation: Operation, use handler: @escaping Handler) {
        self.init(method: method, pattern: pattern, operation: operation, handler: handler)
    }

    /// Names of the `{…}` segments in order.
    public var parameterNames: [String] {
        pattern.split(separator: "/").compactMap { segment in
            guard segment.hasPrefix("{"), segment.hasSuffix("}") else { return nil }
            var name = String(segment.dropFirst().dropLast())
            if name.hasSuffix("...") { name = String(name.dropLast(3)) }
            return name
        }
    }
}
