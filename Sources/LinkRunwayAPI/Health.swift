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
    /// `ok`, or why the store cannot be reached.
    public var store: String
    /// The newest migration the database records (absent when it cannot be read).
    public var schema: String?

    public init(status: String, store: String, schema: String? = nil) {
        self.status = status
        self.store = store
        self.schema = schema
    }
}

extension ReadinessStatus: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "status": .oneOf(["ready", "unavailable"], "Whether requests can be served."),
        "store": FieldNote("ok, or why the database cannot be reached."),
        "schema": FieldNote("The newest migration the database records."),
    ]
}

/// The version this build reports.
public enum LinkRunwayVersion {
    public static let current = "0.1.0"
}
