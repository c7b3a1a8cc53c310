import RunwayJSON

/// Builds an OpenAPI 3.1 document from the route table, so the document cannot list a route the router lacks or miss
/// one it has. `components.schemas` are the caller's (`Error`) and those the routes' schema references bring; error
/// responses every route can give are added from what the route declares (keys → 401/403/503, a body → 400/413, path
/// parameters → 404).
public struct OpenAPIBuilder: Sendable {
    public var title: String
    public var version: String
    public var description: String
    /// Component schemas besides the routes' own; must include `Error`.
    public var schemas: [(String, JSONValue)]

    public init(title: String, version: String, description: String, schemas: [(String, JSONValue)]) {
        self.title = title
        self.version = version
        self.description = description
        self.schemas = schemas
    }

    public func build(routes: [Route]) -> JSONValue {
        var paths: [(String, [(String, JSONValue)])] = []
        for route in routes {
            let path = Self.openAPIPath(route.pattern)
            let entry = (route.method.rawValue.lowercased(), operation(route))
            if let i = paths.firstIndex(where: { $0.0 == path }) {
                paths[i].1.append(entry)
            } else {
                paths.append((path, [entry]))
            }
        }
        return .object([
            ("openapi", "3.1.0"),
            ("info", .object([("title", .string(title)), ("version", .string(version)), ("description", .string(description))])),
            ("paths", .object(paths.map { ($0.0, .object($0.1)) })),
            ("components", .object([
                ("schemas", .object(components(routes))),
                ("securitySchemes", .object([
                    ("bearerKey", .object([("type", "http"), ("scheme", "bearer"),
                                           ("description", "An API key: lr_pk_… (publishable), lr_sk_… (server) or lr_ak_… (admin).")])),
                ])),
            ])),
        ])
    }

    /// The given schemas, then every component the routes refer to, each once, in the order first met.
    func components(_ routes: [Route]) -> [(String, JSONValue)] {
        var all = schemas
        var names = Set(all.map(\.0))
        for route in routes {
            let references = [route.operation.requestSchema] + route.operation.responses.map(\.schema)
            for (name, schema) in references.compactMap({ $0 }).flatMap(\.components) where names.insert(name).inserted {
                all.append((name, schema))
            }
        }
        return all
    }

    /// `/{rest...}` becomes `/{rest}`, the form OpenAPI knows.
    public static func openAPIPath(_ pattern: String) -> String {
        pattern.replacingOccurrences(of: "...}", with: "}")
    }

    private func operation(_ route: Route) -> JSONValue {
        let op = route.operation
        var members: [(String, JSONValue)] = [
            ("operationId", .string(op.id)),
            ("summary", .string(op.summary)),
            ("tags", .array([.string(op.tag)])),
        ]
        var parameters: [JSONValue] = route.parameterNames.map { name in
            .object([("name", .string(name)), ("in", "path"), ("required", true), ("schema", .object([("type", "string")]))])
        }
        for q in op.query {
            parameters.append(.object([("name", .string(q.name)), ("in", "query"), ("required", .bool(q.required)),
                                       ("description", .string(q.description)), ("schema", .object([("type", .string(q.schema))]))]))
        }
        if op.idempotent {
            parameters.append(.object([
                ("name", "Idempotency-Key"), ("in", "header"), ("required", false),
                ("description", "Any string of 1 to 255 visible characters; a retry with the same key and request gets the first answer (24 hours)."),
                ("schema", .object([("type", "string"), ("minLength", 1), ("maxLength", 255), ("pattern", "^[!-~]+$")])),
            ]))
        }
        if !parameters.isEmpty { members.append(("parameters", .array(parameters))) }
        if let schema = op.requestSchema {
            members.append(("requestBody", .object([
                ("required", true),
                ("content", .object([("application/json", .object([("schema", Self.ref(schema.name))]))])),
            ])))
        }
        switch op.access {
        case .open:
            members.append(("security", .array([])))
        case .keys(let kinds):
            members.append(("security", .array([.object([("bearerKey", .array([]))])])))
            members.append(("x-linkrunway-key-kinds", .array(kinds.sorted().map { .string($0) })))
        }
        var responses: [(String, JSONValue)] = op.responses.map { doc in
            var response: [(String, JSONValue)] = [("description", .string(doc.description))]
            if let type = doc.contentType {
                let schema: JSONValue = doc.schema.map { Self.ref($0.name) } ?? .object([("type", type.hasPrefix("application/json") ? "object" : "string")])
                var content: [(String, JSONValue)] = [(type, .object([("schema", schema)]))]
                if doc.orJSONError { content.append(("application/json", .object([("schema", Self.ref("Error"))]))) }
                response.append(("content", .object(content)))
            }
            return (String(doc.status), .object(response))
        }
        var errors = Set(op.errors)
        if case .keys = op.access { errors.formUnion([401, 403, 503]) }
        if op.requestSchema != nil { errors.formUnion([400, 413]) }
        if !op.query.isEmpty { errors.insert(400) }
        if !route.parameterNames.isEmpty { errors.formUnion([400, 404]) }  // a malformed path parameter is a 400
        if op.idempotent { errors.formUnion([400, 409, 422]) }
        for status in errors.sorted() where !responses.contains(where: { $0.0 == String(status) }) {
            responses.append((String(status), .object([
                ("description", .string(Self.reason(status))),
                ("content", .object([("application/json", .object([("schema", Self.ref("Error"))]))])),
            ])))
        }
        members.append(("responses", .object(responses)))
        return .object(members)
    }

    static func ref(_ schema: String) -> JSONValue { .object([("$ref", .string("#/components/schemas/\(schema)"))]) }

    static func reason(_ status: Int) -> String {
        switch status {
        case 400: return "The request is malformed; the error names the field."
        case 401: return "The key is missing, unknown or revoked."
        case 403: return "The key may not call this operation or reach this resource."
        case 404: return "Not found."
        case 409: return "Conflicts with what is stored."
        case 410: return "Gone."
        case 413: return "The body is too large."
        case 422: return "The Idempotency-Key was used before with a different request."
        case 429: return "Too many requests."
        case 502: return "A service of Apple's that the server asked failed."
        case 503: return "The store is unavailable; retry later."
        default: return "Error."
        }
    }
}
