import Foundation

/// A User-Agent token that marks a client as a machine: a link preview (an unfurler) or a bot (a crawler, an uptime
/// checker). Links answer such clients what they need and count them apart from clicks.
public struct AutomatedClientPattern: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// Fetches a link to draw its preview in a chat or a feed, or a browser's prefetch.
        case preview
        /// Crawls or checks links: search and SEO crawlers, uptime checkers, `HEAD` requests.
        case bot
    }

    /// Lower-case text searched for in the User-Agent.
    public let token: String
    public let kind: Kind

    public init(token: String, kind: Kind) {
        self.token = token.lowercased()
        self.kind = kind
    }

    /// Patterns from an operator's file: one a line, `preview TOKEN` or `bot TOKEN` (the token may hold spaces), with
    /// blank lines and lines starting with `#` ignored. Nil when a line is neither.
    public static func parse(_ text: String) -> [AutomatedClientPattern]? {
        var patterns: [AutomatedClientPattern] = []
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            // trap-safe: space is an index of trimmed
            guard let space = trimmed.firstIndex(of: " "), let kind = Kind(rawValue: String(trimmed[..<space])) else { return nil }
            let token = trimmed[space...].trimmingCharacters(in: .whitespaces)  // trap-safe: space is an index of trimmed
            guard !token.isEmpty, token.utf8.count <= 200 else { return nil }
            patterns.append(AutomatedClientPattern(token: token, kind: kind))
        }
        return patterns
    }
}
