/// `GET /healthz`: the process is up.
public struct HealthStatus: Codable, Sendable {
    public var status: String
    public var version: String

    public init(status: String, version: String) {
        self.status = status
        self.version = version
    }
}

/// `GET /readyz`: whether requests can be served (the store answers).
public struct ReadinessStatus: Codable, Sendable {
    /// `ready` or `unavailable`.
    public var status: String
    /// `ok`, or why the store cannot be reached.
    public var store: String

    public init(status: String, store: String) {
        self.status = status
        self.store = store
    }
}

/// The version this build reports.
public enum LinkRunwayVersion {
    public static let current = "0.1.0"
}
