/// A strict reader of the XML an SVG is written in: elements and their attributes, nothing else. Comments,
/// processing instructions and text are skipped; a DOCTYPE (and so any entity of its own), CDATA, and entities other
/// than XML's five and character references are refused.
struct SVGReader {
    enum Token: Equatable {
        case open(String, [(String, String)], selfClosing: Bool)
        case close(String)

        static func == (a: Token, b: Token) -> Bool {
            switch (a, b) {
            case let (.open(n1, a1, s1), .open(n2, a2, s2)): n1 == n2 && s1 == s2 && a1.elementsEqual(a2, by: { $0 == $1 })
            case let (.close(n1), .close(n2)): n1 == n2
            default: false
            }
        }
    }

    typealias Failure = SVGSanitizer.Failure

    private let scalars: [Unicode.Scalar]
    private var at = 0

    init(_ text: String) { scalars = Array(text.unicodeScalars) }

    /// The next element tag, or nil at the end.
    mutating func next() throws(Failure) -> Token? {
        while at < scalars.count {
            guard scalars[at] == "<" else { at += 1; continue }  // text between tags is not kept
            if starts("<!--") { try skip(past: "-->", what: "a comment"); continue }
            if starts("<?") { try skip(past: "?>", what: "a processing instruction"); continue }
            if starts("<!DOCTYPE") || starts("<!doctype") { throw Failure("it has a DOCTYPE; DOCTYPEs and entity declarations are not accepted") }
            if starts("<![CDATA[") { throw Failure("it has a CDATA section, which is not accepted") }
            if starts("<!") { throw Failure("it has a <! declaration, which is not accepted") }
            at += 1
            if starts("/") {
                at += 1
                let name = try self.name()
                spaces()
                try expect(">")
                return .close(name)
            }
            let name = try self.name()
            var attributes: [(String, String)] = []
            while true {
                spaces()
                if starts("/>") { at += 2; return .open(name, attributes, selfClosing: true) }
                if starts(">") { at += 1; return .open(name, attributes, selfClosing: false) }
                let attribute = try self.name()
                guard !attributes.contains(where: { $0.0 == attribute }) else { throw Failure("<\(name)> has \(attribute) twice") }
                spaces()
                try expect("=")
                spaces()
                attributes.append((attribute, try value()))
            }
        }
        return nil
    }

    private func starts(_ text: String) -> Bool {
        var index = at
        for scalar in text.unicodeScalars {
            guard index < scalars.count, scalars[index] == scalar else { return false }
            index += 1
        }
        return true
    }

    private mutating func skip(past end: String, what: String) throws(Failure) {
        while at < scalars.count {
            if starts(end) { at += end.unicodeScalars.count; return }
            at += 1
        }
        throw Failure("\(what) is never closed")
    }

    private mutating func expect(_ text: String) throws(Failure) {
        guard starts(text) else { throw Failure("the XML is malformed near character \(at)") }
        at += text.unicodeScalars.count
    }

    private mutating func spaces() {
        while at < scalars.count, [" ", "\t", "\n", "\r"].contains(scalars[at]) { at += 1 }
    }

    private mutating func name() throws(Failure) -> String {
        let start = at
        while at < scalars.count, scalars[at].properties.isAlphabetic || ("0"..."9").contains(scalars[at]) || "-_:.".unicodeScalars.contains(scalars[at]) {
            at += 1
        }
        guard at > start, at - start <= 100 else { throw Failure("the XML is malformed near character \(start)") }
        return String(String.UnicodeScalarView(scalars[start..<at]))  // trap-safe: start < at <= scalars.count
    }

    /// A quoted attribute value with its entities and character references replaced.
    private mutating func value() throws(Failure) -> String {
        guard at < scalars.count, scalars[at] == "\"" || scalars[at] == "'" else { throw Failure("an attribute value is not quoted near character \(at)") }
        let quote = scalars[at]
        at += 1
        var out = String.UnicodeScalarView()
        while at < scalars.count, scalars[at] != quote {
            let scalar = scalars[at]
            guard scalar != "<" else { throw Failure("an attribute value holds <") }
            if scalar == "&" { out.append(try entity()) } else { out.append(scalar); at += 1 }
        }
        try expect(String(quote))
        return String(out)
    }

    private mutating func entity() throws(Failure) -> Unicode.Scalar {
        let start = at
        while at < scalars.count, scalars[at] != ";", at - start < 12 { at += 1 }
        guard at < scalars.count, scalars[at] == ";" else { throw Failure("an entity is not closed with ;") }
        // trap-safe: scalars[start] is "&" and at < scalars.count, checked above
        let body = String(String.UnicodeScalarView(scalars[(start + 1)..<at]))
        at += 1
        let named: [String: Unicode.Scalar] = ["lt": "<", "gt": ">", "amp": "&", "quot": "\"", "apos": "'"]
        if let scalar = named[body] { return scalar }
        if body.hasPrefix("#x") || body.hasPrefix("#X"), let code = UInt32(body.dropFirst(2), radix: 16), let scalar = Unicode.Scalar(code) { return scalar }
        if body.hasPrefix("#"), let code = UInt32(body.dropFirst()), let scalar = Unicode.Scalar(code) { return scalar }
        throw Failure("it uses the entity &\(body); only XML's own entities are accepted")
    }
}
