import Foundation

/// HTML built by interpolation: interpolated text is escaped, interpolated `Markup` is kept as it is. Every page of
/// the console is made of these, so nothing reaches a page unescaped by accident.
package struct Markup: ExpressibleByStringInterpolation, Sendable {
    package var html: String

    package init(raw html: String) { self.html = html }
    package init(stringLiteral value: String) { html = value }
    package init(stringInterpolation: StringInterpolation) { html = stringInterpolation.html }

    package struct StringInterpolation: StringInterpolationProtocol {
        package var html = ""
        package init(literalCapacity: Int, interpolationCount: Int) { html.reserveCapacity(literalCapacity * 2) }
        package mutating func appendLiteral(_ literal: String) { html += literal }
        package mutating func appendInterpolation(_ text: String) { html += Markup.escape(text) }
        package mutating func appendInterpolation(_ text: String?) { html += Markup.escape(text ?? "") }
        package mutating func appendInterpolation<Number: BinaryInteger>(_ number: Number) { html += String(number) }
        package mutating func appendInterpolation(_ markup: Markup) { html += markup.html }
        package mutating func appendInterpolation(_ parts: [Markup]) { html += parts.map(\.html).joined() }
    }

    /// Escapes for element content and quoted attribute values (the link pages use it too).
    package static func escape(_ text: String) -> String {
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

    package static func join(_ parts: [Markup], separator: Markup = "") -> Markup {
        Markup(raw: parts.map(\.html).joined(separator: separator.html))
    }
}

/// The fields of an `application/x-www-form-urlencoded` body, or of a `multipart/form-data` one (a form with a file):
/// its text fields as pairs, its files apart. A multipart body that is not well formed has no fields at all.
package struct FormFields: Sendable {
    private(set) var pairs: [(String, String)] = []
    private(set) var files: [MultipartForm.Part] = []

    package init(_ body: [UInt8]) {
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(Self.decode)
            pairs.append((parts[0], parts.count > 1 ? parts[1] : ""))
        }
    }

    /// The fields of a body sent with `contentType`.
    package init(_ body: [UInt8], contentType: String?) {
        let boundary = MultipartForm.boundary(contentType: contentType)
        self.init(boundary == nil ? body : [])
        guard let boundary else { return }
        for part in MultipartForm(body, boundary: boundary)?.parts ?? [] {
            if part.filename == nil { pairs.append((part.name, String(decoding: part.data, as: UTF8.self))) } else { files.append(part) }
        }
    }

    /// The file sent in the file input `name`; nil when none was chosen (a browser then sends an empty part with an
    /// empty file name).
    package func file(_ name: String) -> MultipartForm.Part? {
        files.first { $0.name == name && !($0.data.isEmpty && ($0.filename ?? "").isEmpty) }
    }

    package static func decode(_ part: Substring) -> String {
        let spaced = part.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    package subscript(_ name: String) -> String? { pairs.first { $0.0 == name }?.1 }

    /// The value, trimmed; nil when absent or empty.
    package func text(_ name: String) -> String? {
        guard let value = self[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return value
    }

    /// A number of rows a page sent back (a hidden field): the whole number in `range` it names, the nearer end of the
    /// range for one outside it, `fallback` when it is absent or not a number.
    package func count(_ name: String, in range: ClosedRange<Int>, fallback: Int) -> Int {
        Self.count(self[name], in: range, fallback: fallback)
    }

    package static func count(_ text: String?, in range: ClosedRange<Int>, fallback: Int) -> Int {
        guard let text, let number = Int(text) else { return fallback }
        return min(max(number, range.lowerBound), range.upperBound)
    }
}

/// A query string for console links (`?ws=…&app=…`), escaped.
package func consoleQuery(_ items: [(String, String?)]) -> String {
    let present = items.compactMap { name, value in
        value.map { "\(name)=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0)" }
    }
    return present.isEmpty ? "" : "?" + present.joined(separator: "&")
}
