/// Where the data lives: `sqlite:<path>` (also `sqlite://<path>`, or `sqlite::memory:`) or `postgres://…`.
public enum DatabaseLocation: Sendable, Equatable {
    case sqlite(path: String)
    case postgres(url: String)

    /// Parses `LINKRUNWAY_DATABASE_URL`; nil when the scheme is unknown or the path is empty.
    public init?(url: String) {
        if url.hasPrefix("sqlite://") {
            let path = String(url.dropFirst("sqlite://".count))
            guard !path.isEmpty else { return nil }
            self = .sqlite(path: path)
        } else if url.hasPrefix("sqlite:") {
            let path = String(url.dropFirst("sqlite:".count))
            guard !path.isEmpty else { return nil }
            self = .sqlite(path: path)
        } else if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            self = .postgres(url: url)
        } else {
            return nil
        }
    }
}
