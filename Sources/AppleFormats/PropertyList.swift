import Foundation

/// A property list value with its type kept exactly (an `<integer>` is not a `<true/>`), read with Foundation's
/// `PropertyListSerialization` and written as Apple's XML format with the keys in the order given.
/// https://developer.apple.com/documentation/foundation/propertylistserialization
public indirect enum PropertyList: Sendable, Equatable {
    /// Keys in order; reading sorts them, since a parsed dictionary has none.
    case dictionary([(key: String, value: PropertyList)])
    case array([PropertyList])
    case string(String)
    case integer(Int64)
    case real(Double)
    case boolean(Bool)
    /// `<date>` or `<data>`: nothing the attribution keys take.
    case other(String)

    public static func == (lhs: PropertyList, rhs: PropertyList) -> Bool {
        switch (lhs, rhs) {
        case (.dictionary(let a), .dictionary(let b)): a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        case (.array(let a), .array(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.real(let a), .real(let b)): a == b
        case (.boolean(let a), .boolean(let b)): a == b
        case (.other(let a), .other(let b)): a == b
        default: false
        }
    }

    /// The type's name as Xcode's property list editor shows it.
    public var typeName: String {
        switch self {
        case .dictionary: "Dictionary"
        case .array: "Array"
        case .string: "String"
        case .integer: "Number (integer)"
        case .real: "Number (real)"
        case .boolean: "Boolean"
        case .other(let name): name
        }
    }

    /// The value of `key` when this is a dictionary that has it.
    public subscript(key: String) -> PropertyList? {
        guard case .dictionary(let entries) = self else { return nil }
        return entries.first { $0.key == key }?.value
    }

    /// Reads an XML (or binary) property list; nil for anything else, including the old OpenStep text format, which
    /// `PropertyListSerialization` would otherwise take a bare word for.
    public static func read(_ bytes: [UInt8]) -> PropertyList? {
        var format = PropertyListSerialization.PropertyListFormat.openStep
        guard let object = try? PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: &format),
              format == .xml || format == .binary else { return nil }
        return value(object)
    }

    private static func value(_ object: Any) -> PropertyList {
        if type(of: object) == Bool.self, let flag = object as? Bool { return .boolean(flag) }
        if let number = object as? NSNumber {
            let kind = String(cString: number.objCType)
            return kind == "d" || kind == "f" ? .real(number.doubleValue) : .integer(number.int64Value)
        }
        if let text = object as? String { return .string(text) }
        if let items = object as? [Any] { return .array(items.map(value)) }
        if let entries = object as? [String: Any] {
            return .dictionary(entries.sorted { $0.key < $1.key }.map { ($0.key, value($0.value)) })
        }
        if object is Date { return .other("Date") }
        return .other("Data")
    }

    /// The whole document: Apple's XML declaration and DOCTYPE around this value.
    public var xmlDocument: String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        \(xml(indent: 0))
        </plist>

        """
    }

    /// This value as XML, nested lines indented by a tab as Xcode writes them.
    public func xml(indent: Int) -> String {
        let pad = String(repeating: "\t", count: indent)
        switch self {
        case .dictionary(let entries):
            guard !entries.isEmpty else { return pad + "<dict/>" }
            let inner = entries.map { "\(pad)\t<key>\(Self.escape($0.key))</key>\n" + $0.value.xml(indent: indent + 1) }
            return ([pad + "<dict>"] + inner + [pad + "</dict>"]).joined(separator: "\n")
        case .array(let items):
            guard !items.isEmpty else { return pad + "<array/>" }
            return ([pad + "<array>"] + items.map { $0.xml(indent: indent + 1) } + [pad + "</array>"]).joined(separator: "\n")
        case .string(let text): return "\(pad)<string>\(Self.escape(text))</string>"
        case .integer(let n): return "\(pad)<integer>\(n)</integer>"
        case .real(let x): return "\(pad)<real>\(x)</real>"
        case .boolean(let flag): return pad + (flag ? "<true/>" : "<false/>")
        case .other(let name): return "\(pad)<!-- \(name) -->"
        }
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
