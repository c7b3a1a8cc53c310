/// `GET /healthz`: the process is up.
public struct HealthStatus: Codable, Sendable {
    public var status: String
    public var version: String

    public init(status: String, version: String) {
        self.status = status
        self.version = version
    }
}

extension HealthStatus: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "status": .oneOf(["ok"], "Always ok while the process runs."), "version": FieldNote("The server's version."),
    ]
}

/// `GET /readyz`: whether requests can be served (the store answers).
public struct ReadinessStatus: Codable, Sendable {
    /// `ready` or `unavailable`.
    public var status: String
    /// `ok` or `unreachable` (the reason is in the server's log).
    public var store: String
    /// The newest migration the database records (absent when it cannot be read).
    public var schema: String?
    /// A proxy that says its clients use TLS but is not a trusted proxy, when one was seen since the server started.
    public var untrustedProxy: String?

    public init(status: String, store: String, schema: String? = nil, untrustedProxy: String? = nil) {
        self.status = status
        self.store = store
        self.schema = schema
        self.untrustedProxy = untrustedProxy
    }
}

extension ReadinessStatus: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "status": .oneOf(["ready", "unavailable"], "Whether requests can be served."),
        "store": .oneOf(["ok", "unreachable"], "Whether the database answers; why not is in the server's log."),
        "schema": FieldNote("The newest migration the database records."),
        "untrustedProxy": FieldNote("The address of a proxy that sent X-Forwarded-Proto: https without being in LINKRUNWAY_TRUSTED_PROXIES, first seen since start: its clients' addresses are then its own and console cookies lack Secure."),
    ]
}

/// The version this build reports.
public enum LinkRunwayVersion {
    public static let current = "0.2.0"
}
