import RunwayStore

/// An id kept as the text that is stored and sent, and typed so that where a function takes several ids one kind
/// cannot be passed for another. Encodes and decodes as its text, decodes from its column (`RowDecoder`) and binds as
/// text.
public protocol TextIdentifier: RawRepresentable<String>, Hashable, Sendable, Codable, SQLBindable, CustomStringConvertible {
    init(rawValue: String)
}

extension TextIdentifier {
    /// The id whose text is `text` (from a wire type or a path, which carry ids as text).
    public init(_ text: String) { self.init(rawValue: text) }

    public var description: String { rawValue }
}

/// A workspace (`ws_…`): the tenant that owns apps, links, keys and affiliates.
public struct WorkspaceId: TextIdentifier {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// An app of a workspace (`app_…`).
public struct AppId: TextIdentifier {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// An installation of an app, as the SDK names it: unique within its app.
public struct InstallId: TextIdentifier {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}
