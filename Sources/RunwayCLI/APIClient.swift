import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LinkRunwayAPI

/// Talks to a running server for the management commands (`--server`, `--key` or LINKRUNWAY_URL, LINKRUNWAY_KEY).
struct APIClient: Sendable {
    let baseURL: URL
    let key: String
    /// The `--workspace` the command was given, so the server's "no workspace" names the option, not the API field.
    var namedWorkspace: String?

    static let options: [OptionSpec] = [
        .value("--server", "url", "Server to manage (default $LINKRUNWAY_URL or http://127.0.0.1:8080)."),
        .value("--key", "key", "API key (default $LINKRUNWAY_KEY); prefer the environment, flags show up in ps."),
    ]

    init(_ arguments: ParsedArguments, _ context: CLIContext) throws {
        let server = arguments.value("--server") ?? context.environment["LINKRUNWAY_URL"] ?? "http://127.0.0.1:8080"
        guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw UsageError("--server must be an http(s) URL")
        }
        guard let key = arguments.value("--key") ?? context.environment["LINKRUNWAY_KEY"], !key.isEmpty else {
            throw UsageError("no API key: set LINKRUNWAY_KEY (or --key) to an admin or server key")
        }
        baseURL = url
        self.key = key
        namedWorkspace = arguments.value("--workspace")
    }

    init(baseURL: URL, key: String) {
        self.baseURL = baseURL
        self.key = key
    }

    func get<T: Decodable>(_ path: String, as type: T.Type) async throws -> T {
        try decode(type, try await send("GET", path, body: nil))
    }

    func post<Body: Encodable, T: Decodable>(_ path: String, _ body: Body, as type: T.Type) async throws -> T {
        try decode(type, try await send("POST", path, body: try JSONEncoder().encode(body)))
    }

    func send<Body: Encodable, T: Decodable>(_ method: String, _ path: String, _ body: Body, as type: T.Type) async throws -> T {
        try decode(type, try await send(method, path, body: try JSONEncoder().encode(body)))
    }

    /// Sends `body` and reads nothing back (an answer of 204).
    func send<Body: Encodable>(_ method: String, _ path: String, _ body: Body) async throws {
        _ = try await send(method, path, body: try JSONEncoder().encode(body))
    }

    func delete(_ path: String) async throws {
        _ = try await send("DELETE", path, body: nil)
    }

    /// The body as it came (pictures, CSV).
    func raw(_ method: String, _ path: String, accept: String? = nil) async throws -> Data {
        try await send(method, path, body: nil, accept: accept)
    }

    /// Follows `nextCursor` until the last page.
    func all<T: Codable & Sendable>(_ path: String, as type: T.Type) async throws -> [T] {
        var items: [T] = []
        var cursor: String?
        repeat {
            let separator = path.contains("?") ? "&" : "?"
            let page = try await get(path + separator + "limit=200" + (cursor.map { "&cursor=\(Self.escape($0))" } ?? ""), as: Page<T>.self)
            items += page.items
            cursor = page.nextCursor
        } while cursor != nil
        return items
    }

    /// The workspace a command acts in: `--workspace`, else `$LINKRUNWAY_WORKSPACE`, else the only workspace the key
    /// sees (a server key's own, or an admin key's when there is exactly one). Several: a usage error asks for one.
    func workspace(_ arguments: ParsedArguments, _ context: CLIContext) async throws -> String? {
        if let named = arguments.value("--workspace") ?? context.environment["LINKRUNWAY_WORKSPACE"].flatMap({ $0.isEmpty ? nil : $0 }) {
            return named
        }
        let seen = try await get("/v1/workspaces?limit=2", as: Page<Workspace>.self).items
        guard seen.count <= 1 else {
            throw UsageError("this key sees several workspaces: name one with --workspace or LINKRUNWAY_WORKSPACE")
        }
        return seen.first?.id
    }

    /// A report's path with its query: the range, grouping and app the options give, and the workspace as for
    /// `workspace(_:_:)` (the only one the key sees when none is named), plus `extra` options by query parameter and
    /// `flags` given as `parameter=true`.
    func reportPath(_ base: String, _ arguments: ParsedArguments, _ context: CLIContext,
                    extra: [(option: String, parameter: String)] = [], flags: [(option: String, parameter: String)] = []) async throws -> String {
        let options = [("--from", "from"), ("--to", "to"), ("--group-by", "groupBy"), ("--app", "appId")] + extra
        var query = options.compactMap { option, parameter in arguments.value(option).map { "\(parameter)=\(Self.escape($0))" } }
        query += flags.filter { arguments.flag($0.option) }.map { "\($0.parameter)=true" }
        if let workspace = try await workspace(arguments, context) { query.append("workspaceId=\(Self.escape(workspace))") }
        return base + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    static func escape(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value
    }

    private func send(_ method: String, _ path: String, body: Data?, accept: String? = nil) async throws -> Data {
        guard let url = URL(string: path, relativeTo: baseURL) else { throw UsageError("bad path \(path)") }
        var request = URLRequest(url: url, timeoutInterval: 30)
        request.httpMethod = method
        request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        request.setValue("linkrunway-cli/\(LinkRunwayVersion.current)", forHTTPHeaderField: "User-Agent")
        if let accept { request.setValue(accept, forHTTPHeaderField: "Accept") }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw CommandFailure("cannot reach \(baseURL.absoluteString): \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            if let body = try? JSONDecoder().decode(ErrorBody.self, from: data) {
                if status == 404, let named = namedWorkspace, body.error.message == "no workspace \(named)" {
                    throw UsageError("--workspace \(named): there is no such workspace")
                }
                throw CommandFailure("\(body.error.code): \(body.error.message) (HTTP \(status))")
            }
            throw CommandFailure("HTTP \(status) from \(url.absoluteString)")
        }
        return data
    }

    private func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw CommandFailure("unexpected response from the server: \(error)")
        }
    }
}
