import Foundation

/// The parts of a `multipart/form-data` body, as a browser sends a form with a file in it (RFC 7578, in the framing of
/// RFC 2046): each part's field name, file name and content type, and its bytes. Strict and bounded: a body whose
/// framing is broken (no opening or closing delimiter, a part without a name, headers past 8 KiB, more than 100 parts)
/// is not a form at all, so nothing half-read is acted on.
public struct MultipartForm: Sendable, Equatable {
    public struct Part: Sendable, Equatable {
        public let name: String
        /// Present (possibly empty) when the part is a file input's.
        public let filename: String?
        public let contentType: String?
        public let data: [UInt8]
    }

    public static let maxParts = 100
    public static let maxHeaderBytes = 8 * 1024

    public let parts: [Part]

    /// The boundary a `Content-Type: multipart/form-data; boundary=…` names (1 to 70 characters), or nil for any other
    /// content type.
    public static func boundary(contentType: String?) -> String? {
        guard let contentType else { return nil }
        let fields = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard fields.first?.lowercased() == "multipart/form-data" else { return nil }
        for field in fields.dropFirst() {
            let pair = field.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return (1...70).contains(value.utf8.count) ? value : nil
        }
        return nil
    }

    /// Reads `body`; nil when it is not a well-formed form with that boundary.
    public init?(_ body: [UInt8], boundary: String) {
        let delimiter = Array("--\(boundary)".utf8), separator = Array("\r\n--\(boundary)".utf8)
        // A preamble before the first delimiter is allowed and skipped; browsers send none.
        guard var at = Self.find(delimiter, in: body, from: 0), at == 0 || Self.find(separator, in: body, from: 0) == at - 2 else { return nil }
        at += delimiter.count
        var parts: [Part] = []
        while true {
            // trap-safe: at is never past the end: each step moves it to a match that fits in body
            if body[at...].starts(with: [0x2D, 0x2D]) { break }  // "--": the closing delimiter
            while at < body.count, body[at] == 0x20 || body[at] == 0x09 { at += 1 }  // transport padding
            // trap-safe: the padding loop stops at the end at most
            guard body[at...].starts(with: [0x0D, 0x0A]), parts.count < Self.maxParts else { return nil }
            at += 2
            guard let headersEnd = Self.find([0x0D, 0x0A, 0x0D, 0x0A], in: body, from: at, within: Self.maxHeaderBytes),
                  let end = Self.find(separator, in: body, from: headersEnd + 4),
                  // trap-safe: at <= headersEnd < headersEnd + 4 <= end, all found in body
                  let part = Self.part(headers: body[at..<headersEnd], data: Array(body[(headersEnd + 4)..<end])) else { return nil }
            parts.append(part)
            at = end + separator.count
        }
        self.parts = parts
    }

    /// A part from its headers: a `Content-Disposition: form-data` with a name is required.
    private static func part(headers: ArraySlice<UInt8>, data: [UInt8]) -> Part? {
        var name: String?, filename: String?, contentType: String?
        for line in String(decoding: headers, as: UTF8.self).components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let field = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()  // trap-safe: colon is an index of line
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)  // trap-safe: colon is an index of line
            switch field {
            case "content-disposition":
                let parameters = Self.parameters(value)
                guard parameters.first?.0.lowercased() == "form-data" else { return nil }
                for (key, parameter) in parameters.dropFirst() {
                    switch key.lowercased() {
                    case "name": name = parameter
                    case "filename": filename = parameter
                    default: break
                    }
                }
            case "content-type": contentType = value
            default: break
            }
        }
        guard let name, !name.isEmpty else { return nil }
        return Part(name: name, filename: filename, contentType: contentType, data: data)
    }

    /// `form-data; name="a"; filename="b.png"` as ("form-data", ""), ("name", "a"), ("filename", "b.png"): values
    /// quoted or bare. Browsers write `"`, CR and LF in a quoted value as `%22`, `%0D` and `%0A` (HTML's form
    /// encoding), so those are decoded and a backslash is kept as it is (a Windows path's).
    static func parameters(_ value: String) -> [(String, String)] {
        var out: [(String, String)] = []
        let scalars = Array(value.unicodeScalars)
        var at = 0
        func skipSpaces() { while at < scalars.count, scalars[at] == " " || scalars[at] == "\t" { at += 1 } }
        while at < scalars.count {
            skipSpaces()
            var key = String.UnicodeScalarView()
            while at < scalars.count, scalars[at] != "=", scalars[at] != ";" { key.append(scalars[at]); at += 1 }
            var parameter = String.UnicodeScalarView()
            if at < scalars.count, scalars[at] == "=" {
                at += 1
                skipSpaces()
                if at < scalars.count, scalars[at] == "\"" {
                    at += 1
                    while at < scalars.count, scalars[at] != "\"" {
                        parameter.append(scalars[at])
                        at += 1
                    }
                    at += 1
                    while at < scalars.count, scalars[at] != ";" { at += 1 }
                } else {
                    while at < scalars.count, scalars[at] != ";" { parameter.append(scalars[at]); at += 1 }
                }
            }
            let decoded = String(parameter).replacingOccurrences(of: "%22", with: "\"").replacingOccurrences(of: "%0D", with: "\r")
                .replacingOccurrences(of: "%0A", with: "\n")
            out.append((String(key).trimmingCharacters(in: .whitespaces), decoded.trimmingCharacters(in: .whitespaces)))
            at += 1  // past ";"
        }
        return out
    }

    /// The first index of `needle` in `haystack` at or after `from` (starting within `within` bytes of it, when given).
    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int, within: Int = .max) -> Int? {
        guard !needle.isEmpty, from >= 0, haystack.count >= needle.count else { return nil }
        let last = min(haystack.count - needle.count, from > Int.max - within ? Int.max : from + within)
        guard from <= last else { return nil }
        var index = from
        while index <= last {
            // trap-safe: index <= haystack.count - needle.count
            if haystack[index] == needle[0], haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
