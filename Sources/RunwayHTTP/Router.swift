/// Matches method and path to a route. Literal segments win over `{param}` segments, which win over `{rest...}`.
/// Empty segments are ignored, so a trailing slash matches the same route.
public final class Router: Sendable {
    public enum Match: Sendable {
        case found(Route, [String: String])
        case methodNotAllowed([HTTPMethod])
        case notFound
    }

    private final class Node: @unchecked Sendable {
        var literals: [String: Node] = [:]
        var parameter: (name: String, node: Node)?
        var rest: (name: String, routes: [HTTPMethod: Route])?
        var routes: [HTTPMethod: Route] = [:]
    }

    private let root: Node
    /// Every route in the order it was added.
    public let routes: [Route]
    /// The routes of each path without parameters, by the path as written in their pattern (`/healthz`): most
    /// requests for such a route are found with one lookup, without walking the tree.
    private let literal: [String: [HTTPMethod: Route]]

    /// Builds the table; two routes with the same method and shape, or a parameter named differently at the same
    /// place, are programming errors.
    public init(routes: [Route]) {
        let root = Node()
        for route in routes {
            var node = root
            let segments = route.pattern.split(separator: "/").map(String.init)
            for (i, segment) in segments.enumerated() {
                if segment.hasPrefix("{"), segment.hasSuffix("...}") {
                    precondition(i == segments.count - 1, "\(route.pattern): {rest...} must be last")
                    let name = String(segment.dropFirst().dropLast(4))
                    var rest = node.rest ?? (name: name, routes: [:])
                    precondition(rest.name == name && rest.routes[route.method] == nil, "duplicate route \(route.label)")
                    rest.routes[route.method] = route
                    node.rest = rest
                    break
                } else if segment.hasPrefix("{"), segment.hasSuffix("}") {
                    let name = String(segment.dropFirst().dropLast())
                    if let existing = node.parameter {
                        precondition(existing.name == name, "\(route.pattern): parameter {\(name)} clashes with {\(existing.name)}")
                        node = existing.node
                    } else {
                        let child = Node()
                        node.parameter = (name: name, node: child)
                        node = child
                    }
                } else if let child = node.literals[segment] {
                    node = child
                } else {
                    let child = Node()
                    node.literals[segment] = child
                    node = child
                }
                if i == segments.count - 1 {
                    precondition(node.routes[route.method] == nil, "duplicate route \(route.label)")
                    node.routes[route.method] = route
                }
            }
            if segments.isEmpty {
                precondition(root.routes[route.method] == nil, "duplicate route \(route.label)")
                root.routes[route.method] = route
            }
        }
        self.root = root
        self.routes = routes
        var literal: [String: [HTTPMethod: Route]] = [:]
        for route in routes where !route.pattern.contains("{") && !route.pattern.hasSuffix("/") || route.pattern == "/" {
            literal[route.pattern, default: [:]][route.method] = route
        }
        self.literal = literal
    }

    /// Finds the route for `method` and `path`. HEAD falls back to GET. A path only a `{rest...}` route matches is
    /// not found (rather than not allowed) for the other methods: a catch-all does not make every path a resource.
    public func match(method: String, path: String) -> Match {
        if let candidates = literal[path], let m = HTTPMethod(rawValue: method) {
            if let route = candidates[m] ?? (m == .HEAD ? candidates[.GET] : nil) { return .found(route, [:]) }
        }
        if let found = matchRootRest(method: method, path: path) { return found }
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        var parameters: [String: String] = [:]
        guard let (candidates, viaRest) = find(root, segments[...], &parameters) else { return .notFound }
        if let m = HTTPMethod(rawValue: method) {
            if let route = candidates[m] { return .found(route, parameters) }
            if m == .HEAD, let route = candidates[.GET] { return .found(route, parameters) }
        }
        return viaRest ? .notFound : .methodNotAllowed(HTTPMethod.allCases.filter { candidates[$0] != nil })
    }

    /// A one-segment path (`/summer`) whose segment is no literal or parameter at the root goes to the root's
    /// `{rest...}` route (a link), found without splitting the path.
    private func matchRootRest(method: String, path: String) -> Match? {
        guard let rest = root.rest, root.parameter == nil, let m = HTTPMethod(rawValue: method),
              let route = rest.routes[m] ?? (m == .HEAD ? rest.routes[.GET] : nil) else { return nil }
        let utf8 = path.utf8
        guard utf8.count > 1, utf8.first == UInt8(ascii: "/"), !utf8.dropFirst().contains(UInt8(ascii: "/")) else { return nil }
        let segment = String(path.dropFirst())
        guard root.literals[segment] == nil else { return nil }
        return .found(route, [rest.name: segment])
    }

    private func find(_ node: Node, _ segments: ArraySlice<Substring>, _ parameters: inout [String: String]) -> ([HTTPMethod: Route], Bool)? {
        guard let first = segments.first else {
            if !node.routes.isEmpty { return (node.routes, false) }
            if let rest = node.rest, rest.routes.isEmpty == false { parameters[rest.name] = ""; return (rest.routes, true) }
            return nil
        }
        let remaining = segments.dropFirst()
        if let child = node.literals[String(first)], let found = find(child, remaining, &parameters) {
            return found
        }
        if let (name, child) = node.parameter {
            var attempt = parameters
            attempt[name] = String(first)
            if let found = find(child, remaining, &attempt) {
                parameters = attempt
                return found
            }
        }
        if let rest = node.rest {
            parameters[rest.name] = segments.joined(separator: "/")
            return (rest.routes, true)
        }
        return nil
    }
}
