/// Finds, in Swift source, the expressions that stop the whole process when what they touch is not as the code
/// expects: a force unwrap (`x!`), `try!`, `as!`, and a subscript by a range (`a[i..<j]`, `a[i...]`, `a[..<j]`). A
/// place that is truly safe says why in a comment holding `trap-safe:` on its line or in the comment lines right
/// above it. Comments and the text of string literals are not code; the code of an interpolation is. `a[...]`, the
/// whole of `a`, cannot trap.
package struct TrapScanner {
    package struct Finding: CustomStringConvertible {
        package let line: Int
        package let kind: String
        package let text: String
        package var description: String { "line \(line): \(kind): \(text)" }
    }

    package static let marker = "trap-safe:"

    /// The places in `source` that can trap and have no `trap-safe:` comment.
    package static func findings(in source: String) -> [Finding] {
        let original = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let code = codeOnly(source).split(separator: "\n", omittingEmptySubsequences: false).map { Array($0.utf8) }
        var found: [Finding] = []
        for (index, line) in code.enumerated() {
            let kinds = kinds(in: line)
            guard !kinds.isEmpty, !excused(index, original) else { continue }
            let text = original[index].trimmingCharacters(in: .whitespaces)
            for kind in kinds { found.append(Finding(line: index + 1, kind: kind, text: String(text.prefix(120)))) }
        }
        return found
    }

    /// A `trap-safe:` comment on the line, or in the run of comment lines just above it.
    package static func excused(_ index: Int, _ lines: [String]) -> Bool {
        if lines[index].contains(marker) { return true }
        var above = index - 1
        while above >= 0 {
            let text = lines[above].trimmingCharacters(in: .whitespaces)
            guard text.hasPrefix("//") else { return false }
            if text.contains(marker) { return true }
            above -= 1
        }
        return false
    }

    package static func isWord(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) || byte == 0x5f
    }

    /// What traps on one line of code: `try!`, `as!`, a force unwrap, a range subscript.
    package static func kinds(in line: [UInt8]) -> [String] {
        var kinds: [String] = []
        let bang = UInt8(ascii: "!")
        var i = 0
        while i < line.count {
            let byte = line[i]
            if byte == bang {
                let before = i > 0 ? line[i - 1] : 0x20
                let after = i + 1 < line.count ? line[i + 1] : 0x20
                if after != UInt8(ascii: "=") && (isWord(before) || before == UInt8(ascii: ")") || before == UInt8(ascii: "]")
                                                   || before == UInt8(ascii: ">") || before == UInt8(ascii: "\"")) {
                    let word = String(decoding: line[max(0, i - 3)..<i], as: UTF8.self)
                    if word.hasSuffix("try") && (i < 4 || !isWord(line[i - 4])) {
                        kinds.append("try!")
                    } else if word.hasSuffix("as") && (i < 3 || !isWord(line[i - 3])) {
                        kinds.append("as!")
                    } else {
                        kinds.append("force unwrap")
                    }
                }
            } else if byte == UInt8(ascii: "["), i > 0 {
                let before = line[i - 1]
                if isWord(before) || before == UInt8(ascii: ")") || before == UInt8(ascii: "]") || before == UInt8(ascii: "?") || before == bang,
                   let close = matching(line, from: i), rangeInside(line, i + 1, close),
                   String(decoding: line[(i + 1)..<close], as: UTF8.self).trimmingCharacters(in: .whitespaces) != "..." {
                    kinds.append("range subscript")
                }
            }
            i += 1
        }
        return kinds
    }

    /// The index of the `]` closing the `[` at `open`, on the same line.
    package static func matching(_ line: [UInt8], from open: Int) -> Int? {
        var depth = 0
        for index in open..<line.count {
            switch line[index] {
            case UInt8(ascii: "["), UInt8(ascii: "("), UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: ")"), UInt8(ascii: "}"):
                depth -= 1
                if depth == 0 { return line[index] == UInt8(ascii: "]") ? index : nil }
            default: break
            }
        }
        return nil
    }

    /// Whether `..<` or `...` stands at the top level between `start` and `end`.
    package static func rangeInside(_ line: [UInt8], _ start: Int, _ end: Int) -> Bool {
        var depth = 0
        var index = start
        while index < end {
            switch line[index] {
            case UInt8(ascii: "["), UInt8(ascii: "("), UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: ")"), UInt8(ascii: "}"): depth -= 1
            case UInt8(ascii: "."):
                if depth == 0, index + 2 < end + 1, line[index + 1] == UInt8(ascii: "."),
                   line[index + 2] == UInt8(ascii: "<") || line[index + 2] == UInt8(ascii: ".") {
                    return true
                }
            default: break
            }
            index += 1
        }
        return false
    }

    /// `source` with comments and the text of string literals turned into spaces (newlines kept), and the code of
    /// interpolations kept.
    package static func codeOnly(_ source: String) -> String {
        String(decoding: lex(source).code, as: UTF8.self)
    }

    /// The string literals of `source`: each one's line, its text up to its first interpolation or line end (a
    /// multi-line literal's from its first line of content, indentation removed), and whether it is multi-line.
    /// Literals in comments are not literals.
    package static func literals(in source: String) -> [(line: Int, text: String, multiline: Bool)] {
        let bytes = Array(source.utf8)
        return lex(source).literalStarts.map { start in
            var index = start
            let multiline = index < bytes.count && bytes[index] == 0x0a
            if multiline { index += 1 }
            while index < bytes.count, bytes[index] == 0x20 { index += 1 }
            var end = index
            while end < bytes.count, bytes[end] != 0x0a, bytes[end] != UInt8(ascii: "\\"), bytes[end] != UInt8(ascii: "\"") { end += 1 }
            let line = bytes[..<index].reduce(1) { $0 + ($1 == 0x0a ? 1 : 0) }
            return (line, String(decoding: bytes[index..<end], as: UTF8.self), multiline)
        }
    }

    /// The code of `source` as `codeOnly` gives it, and the offset where each string literal's text starts.
    private static func lex(_ source: String) -> (code: [UInt8], literalStarts: [Int]) {
        let bytes = Array(source.utf8)
        var literalStarts: [Int] = []
        var out = bytes
        enum Context {
            case code(parens: Int)
            case string(hashes: Int, multiline: Bool)
        }
        var stack: [Context] = [.code(parens: 0)]
        var i = 0
        func blank(_ from: Int, _ to: Int) {
            for index in from..<min(to, out.count) where out[index] != 0x0a { out[index] = 0x20 }
        }
        func starts(_ text: String, at index: Int) -> Bool {
            let needle = Array(text.utf8)
            return index + needle.count <= bytes.count && Array(bytes[index..<(index + needle.count)]) == needle
        }
        while i < bytes.count {
            switch stack[stack.count - 1] {
            case .code(let parens):
                if starts("//", at: i) {
                    let end = bytes[i...].firstIndex(of: 0x0a) ?? bytes.count
                    blank(i, end)
                    i = end
                } else if starts("/*", at: i) {
                    var depth = 0
                    var j = i
                    repeat {
                        if starts("/*", at: j) { depth += 1; j += 2 } else if starts("*/", at: j) { depth -= 1; j += 2 } else { j += 1 }
                    } while depth > 0 && j < bytes.count
                    blank(i, j)
                    i = j
                } else if bytes[i] == UInt8(ascii: "#") || bytes[i] == UInt8(ascii: "\"") {
                    var hashes = 0
                    while i + hashes < bytes.count && bytes[i + hashes] == UInt8(ascii: "#") { hashes += 1 }
                    guard i + hashes < bytes.count, bytes[i + hashes] == UInt8(ascii: "\"") else { i += max(1, hashes); continue }
                    let multiline = starts("\"\"\"", at: i + hashes)
                    i += hashes + (multiline ? 3 : 1)
                    literalStarts.append(i)
                    stack.append(.string(hashes: hashes, multiline: multiline))
                } else if bytes[i] == UInt8(ascii: "(") {
                    stack[stack.count - 1] = .code(parens: parens + 1)
                    i += 1
                } else if bytes[i] == UInt8(ascii: ")") {
                    if parens == 1 && stack.count > 1 {
                        stack.removeLast()  // the end of an interpolation
                    } else {
                        stack[stack.count - 1] = .code(parens: parens - 1)
                    }
                    i += 1
                } else {
                    i += 1
                }
            case .string(let hashes, let multiline):
                let pounds = String(repeating: "#", count: hashes)
                if starts("\\" + pounds + "(", at: i) {
                    blank(i, i + hashes + 1)
                    i += hashes + 2
                    stack.append(.code(parens: 1))
                } else if starts("\\" + pounds, at: i) {
                    blank(i, i + hashes + 2)
                    i += hashes + 2
                } else if starts((multiline ? "\"\"\"" : "\"") + pounds, at: i) {
                    i += (multiline ? 3 : 1) + hashes
                    stack.removeLast()
                } else {
                    blank(i, i + 1)
                    i += 1
                }
            }
        }
        return (out, literalStarts)
    }
}
