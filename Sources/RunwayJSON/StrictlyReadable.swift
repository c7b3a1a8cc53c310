/// A request body read on every request that can read itself from the parsed document, without the `Decoder` protocol's
/// containers and generic calls. `read(strictly:)` returns nil for anything it does not take exactly as
/// `StrictJSONDecoder` would (an unknown or missing member, a wrong type, text with NUL, or a member it leaves to the
/// decoder); the decoder then decodes the document as before, so every answer and every error stay the decoder's.
public protocol StrictlyReadable: Decodable {
    static func read(strictly value: JSONValue) -> Self?
}

extension JSONValue {
    /// A string member as the strict decoder takes it (no NUL), or nil.
    public var strictText: String? {
        guard case .string(let text) = self, !text.utf8.contains(0) else { return nil }
        return text
    }

    /// A number member the strict decoder takes as an `Int64`, or nil.
    public var strictInt64: Int64? {
        guard case .number(let text) = self else { return nil }
        return Int64(text)
    }

    /// An optional member as the strict decoder takes it: `.some(nil)` for null, `.some(value)` when `read` takes it,
    /// nil when it takes neither.
    public func strictOptional<Value>(_ read: (JSONValue) -> Value?) -> Value?? {
        if case .null = self { return .some(nil) }
        return read(self).map { .some($0) }
    }
}

extension BoundedNumbers {
    /// Whether the member `key` may hold `number` (true when the type gives it no bounds), as the strict decoder checks.
    public static func allows(_ number: Int64, at key: String) -> Bool {
        guard let (minimum, maximum) = bounds(ofNumberAt: key) else { return true }
        return (minimum.map { number >= $0 } ?? true) && (maximum.map { number <= $0 } ?? true)
    }
}
