import Foundation

/// An uploaded SVG rebuilt from an allow-list: shapes, groups, gradients and clip paths with presentation attributes
/// survive; titles, metadata and editors' namespaced extras are dropped; scripts, event handlers, links, styles,
/// images, text, DOCTYPEs and references to anything outside the file are refused. The markup it returns is written
/// by us from the parsed elements, never copied from the input, and every attribute value kept is limited to
/// characters that cannot start markup, an escape or a URL.
public struct SanitizedSVG: Sendable, Equatable {
    /// A standalone `<svg>` document with a viewBox.
    public let markup: String
    public let width: Double
    public let height: Double
}

enum SVGSanitizer {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static let maxElements = 5_000
    static let maxDepth = 32

    static let keptElements: Set<String> = [
        "svg", "g", "defs", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon",
        "linearGradient", "radialGradient", "stop", "clipPath",
    ]
    static let droppedElements: Set<String> = ["title", "desc", "metadata"]
    static let keptAttributes: Set<String> = [
        "id", "d", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "fx", "fy", "fr", "width", "height",
        "points", "viewBox", "preserveAspectRatio", "transform", "fill", "fill-opacity", "fill-rule", "stroke",
        "stroke-width", "stroke-opacity", "stroke-linecap", "stroke-linejoin", "stroke-miterlimit", "stroke-dasharray",
        "stroke-dashoffset", "opacity", "clip-path", "clip-rule", "clipPathUnits", "offset", "stop-color", "stop-opacity",
        "gradientUnits", "gradientTransform", "spreadMethod", "display", "visibility", "color",
    ]
    /// CSS properties a `style` attribute may set (the presentation attributes above that are properties).
    static let keptProperties: Set<String> = [
        "fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-opacity", "stroke-linecap", "stroke-linejoin",
        "stroke-miterlimit", "stroke-dasharray", "stroke-dashoffset", "opacity", "clip-path", "clip-rule", "stop-color",
        "stop-opacity", "display", "visibility", "color",
    ]

    static func sanitize(_ text: String) throws(Failure) -> SanitizedSVG {
        var reader = SVGReader(text)
        var stack: [(name: String, kept: Bool)] = []
        var markup = ""
        var root: [String: String]?
        var elements = 0
        while let token = try reader.next() {
            switch token {
            case .open(let name, let attributes, let selfClosing):
                elements += 1
                guard elements <= maxElements else { throw Failure("it has more than \(maxElements) elements") }
                guard stack.count < maxDepth else { throw Failure("its elements nest deeper than \(maxDepth)") }
                if stack.isEmpty {
                    guard root == nil else { throw Failure("it has more than one root element") }
                    guard name == "svg" else { throw Failure("its root element is <\(name)>, not <svg>") }
                }
                let kept = stack.last?.kept ?? true ? try keep(name) : false
                if kept {
                    let cleaned = try clean(attributes, of: name)
                    if stack.isEmpty { root = cleaned }
                    else { markup += "<\(name)" + cleaned.sorted { $0.key < $1.key }.map { " \($0.key)=\"\($0.value)\"" }.joined() + (selfClosing ? "/>" : ">") }
                }
                if !selfClosing { stack.append((name, kept)) }
            case .close(let name):
                guard let top = stack.popLast(), top.name == name else { throw Failure("</\(name)> closes no open element") }
                if top.kept, !stack.isEmpty { markup += "</\(name)>" }
            }
        }
        guard let root, stack.isEmpty else { throw Failure(root == nil ? "it has no <svg> element" : "it ends with elements still open") }
        let (viewBox, width, height) = try frame(root)
        var opening = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"\(viewBox)\""
        if let aspect = root["preserveAspectRatio"] { opening += " preserveAspectRatio=\"\(aspect)\"" }
        for (name, value) in root.sorted(by: { $0.key < $1.key }) where !["viewBox", "width", "height", "preserveAspectRatio", "x", "y"].contains(name) {
            opening += " \(name)=\"\(value)\""
        }
        return SanitizedSVG(markup: opening + ">" + markup + "</svg>", width: width, height: height)
    }

    /// Whether an element is kept (false: dropped with everything in it); throws for one that is refused.
    static func keep(_ name: String) throws(Failure) -> Bool {
        if keptElements.contains(name) { return true }
        if droppedElements.contains(name) || name.contains(":") { return false }
        switch name {
        case "script": throw Failure("it has a <script>; scripts are not accepted")
        case "style": throw Failure("it has a <style> element; use presentation attributes (fill=\"#123456\") instead")
        case "text", "tspan": throw Failure("it has <\(name)>; convert text to paths")
        default: throw Failure("it has a <\(name)> element, which is not accepted (only shapes, groups, gradients and clip paths are)")
        }
    }

    /// The attributes kept, checked; event handlers and links are refused, unknown and namespaced ones dropped.
    static func clean(_ attributes: [(String, String)], of element: String) throws(Failure) -> [String: String] {
        var kept: [String: String] = [:]
        for (name, value) in attributes {
            let lower = name.lowercased()
            if lower.hasPrefix("on") { throw Failure("<\(element)> has the event handler \(name); scripts are not accepted") }
            if lower == "href" || lower.hasSuffix(":href") { throw Failure("<\(element)> has \(name); links and references are not accepted") }
            if name == "style" {
                let style = try cleanStyle(value, of: element)
                if !style.isEmpty { kept["style"] = style }
                continue
            }
            guard keptAttributes.contains(name) else { continue }
            kept[name] = try checked(value, attribute: name, of: element)
        }
        return kept
    }

    static func cleanStyle(_ style: String, of element: String) throws(Failure) -> String {
        var declarations: [String] = []
        for declaration in style.split(separator: ";") {
            let parts = declaration.split(separator: ":", maxSplits: 1).map { $0.trimmingSpaces }
            guard parts.count == 2 else { continue }
            let property = parts[0].lowercased()
            guard keptProperties.contains(property) else { continue }
            declarations.append("\(property):\(try checked(parts[1], attribute: "style", of: element))")
        }
        return declarations.joined(separator: ";")
    }

    /// Letters, digits, spaces and `#%.,()+-_` only, and `url(` only as a reference inside the file (`url(#id)`).
    static func checked(_ value: String, attribute: String, of element: String) throws(Failure) -> String {
        let allowed = value.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || " \t\n\r#%.,()+-_".unicodeScalars.contains(scalar))
        }
        guard allowed else { throw Failure("<\(element)> \(attribute)=\"\(value.prefix(40))\" has characters that are not accepted") }
        var rest = Substring(value.lowercased())
        while let start = rest.range(of: "url(") {
            rest = rest[start.upperBound...]  // trap-safe: start is a range of rest
            // trap-safe: rest is not empty (its first is "#") and end is an index of it
            guard rest.first == "#", let end = rest.firstIndex(of: ")"), rest[rest.index(after: rest.startIndex)..<end].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                throw Failure("<\(element)> \(attribute) refers to something outside the file; only url(#id) is accepted")
            }
            rest = rest[end...]  // trap-safe: end is an index of rest
        }
        return value
    }

    /// The largest width or height a logo's frame may give, in its own units: logos are drawn a few hundred pixels
    /// wide, and the listed size (`QRLogoImage.wholeWidth`) must stay a whole number.
    static let maxExtent = 1_000_000.0

    /// The viewBox to draw with and the picture's width and height, from viewBox or else width and height. Every number
    /// must be one (found by fuzzing: words among the numbers were skipped, and a viewBox of 10^64 trapped when the
    /// logo's size was stored) and finite, and the size positive and at most `maxExtent`.
    static func frame(_ root: [String: String]) throws(Failure) -> (String, Double, Double) {
        func sized(_ width: Double, _ height: Double) -> Bool { width > 0 && height > 0 && width <= maxExtent && height <= maxExtent }
        if let viewBox = root["viewBox"] {
            let numbers = viewBox.split(whereSeparator: { $0 == "," || $0.isWhitespace }).compactMap { Double($0) }
            guard numbers.count == 4, numbers.allSatisfy(\.isFinite), sized(numbers[2], numbers[3]) else {
                throw Failure("its viewBox is not four numbers with a width and height from 0 to \(Int(maxExtent))")
            }
            return (viewBox, numbers[2], numbers[3])
        }
        func length(_ name: String) -> Double? {
            root[name].flatMap { Double($0.hasSuffix("px") ? String($0.dropLast(2)) : $0) }
        }
        guard let width = length("width"), let height = length("height") else { throw Failure("its <svg> has neither a viewBox nor a width and height in pixels") }
        guard sized(width, height) else { throw Failure("its width and height must be from 0 to \(Int(maxExtent)) pixels") }
        return ("0 0 \(width) \(height)", width, height)
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        String(drop(while: { $0.isWhitespace }).reversed().drop(while: { $0.isWhitespace }).reversed())
    }
}
