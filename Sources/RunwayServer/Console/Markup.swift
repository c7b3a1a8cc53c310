import Foundation

/// HTML built by interpolation: interpolated text is escaped, interpolated `Markup` is kept as it is. Every page of
/// the console is made of these, so nothing reaches a page unescaped by accident.
struct Markup: ExpressibleByStringInterpolation, Sendable {
    var html: String

    init(raw html: String) { self.html = html }
    init(stringLiteral value: String) { html = value }
    init(stringInterpolation: StringInterpolation) { html = stringInterpolation.html }

    struct StringInterpolation: StringInterpolationProtocol {
        var html = ""
        init(literalCapacity: Int, interpolationCount: Int) { html.reserveCapacity(literalCapacity * 2) }
        mutating func appendLiteral(_ literal: String) { html += literal }
        mutating func appendInterpolation(_ text: String) { html += Markup.escape(text) }
        mutating func appendInterpolation(_ text: String?) { html += Markup.escape(text ?? "") }
        mutating func appendInterpolation<Number: BinaryInteger>(_ number: Number) { html += String(number) }
        mutating func appendInterpolation(_ markup: Markup) { html += markup.html }
        mutating func appendInterpolation(_ parts: [Markup]) { html += parts.map(\.html).joined() }
    }

    /// Escapes for element content and quoted attribute values (the link pages use it too).
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func join(_ parts: [Markup], separator: Markup = "") -> Markup {
        Markup(raw: parts.map(\.html).joined(separator: separator.html))
    }
}

/// The fields of an `application/x-www-form-urlencoded` body.
struct FormFields: Sendable {
    private(set) var pairs: [(String, String)] = []

    init(_ body: [UInt8]) {
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(Self.decode)
            pairs.append((parts[0], parts.count > 1 ? parts[1] : ""))
        }
    }

    static func decode(_ part: Substring) -> String {
        let spaced = part.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    subscript(_ name: String) -> String? { pairs.first { $0.0 == name }?.1 }

    /// The value, trimmed; nil when absent or empty.
    func text(_ name: String) -> String? {
        guard let value = self[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return value
    }
}

/// A query string for console links (`?ws=…&app=…`), escaped.
func consoleQuery(_ items: [(String, String?)]) -> String {
    let present = items.compactMap { name, value in
        value.map { "\(name)=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0)" }
    }
    return present.isEmpty ? "" : "?" + present.joined(separator: "&")
}
