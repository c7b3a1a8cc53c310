import RunwayJSON

/// A wire type the API's OpenAPI document describes. Its shape (which keys exist, their Swift types, which are
/// required) comes from its own `Decodable` conformance (`WireShape.fields(of:)`); the type adds only what its Swift
/// types cannot say: its component name, its role, and notes per field.
public protocol DescribedWireType: Decodable, BoundedNumbers {
    /// Its name among the document's component schemas; nil writes it inline wherever it is used.
    static var componentName: String? { get }
    /// Whether callers send it (an optional field may then also be null) or only receive it.
    static var role: WireRole { get }
    /// What it is, for people.
    static var summary: String? { get }
    /// What each field's Swift type cannot say, by JSON key. A test holds every key to one the type decodes.
    static var notes: [String: FieldNote] { get }
    /// The component name of a page of these (`Page<Self>`).
    static var pageComponentName: String { get }
}

extension DescribedWireType {
    public static var componentName: String? { String(describing: Self.self) }
    public static var role: WireRole { .answer }
    public static var summary: String? { nil }
    public static var notes: [String: FieldNote] { [:] }
    public static var pageComponentName: String { (componentName ?? String(describing: Self.self)) + "Page" }

    /// The bounds its notes document are the ones the decoder enforces.
    public static func bounds(ofNumberAt key: String) -> (minimum: Int64?, maximum: Int64?)? {
        guard let note = notes[key], note.minimum != nil || note.maximum != nil else { return nil }
        return (note.minimum, note.maximum)
    }
}

/// Which way a wire type travels.
public enum WireRole: Sendable {
    /// Decoded from callers: an optional field may be absent or null.
    case request
    /// Only encoded by the server: an optional field without a value is left out.
    case answer
}

/// A string type whose values are a fixed list (a `String` enum that is `CaseIterable`).
public protocol WireEnumeration: Decodable {
    /// Every value, in order.
    static var wireValues: [String] { get }
    /// Any one of them, for probing.
    static var anyValue: Self { get }
}

extension WireEnumeration where Self: CaseIterable & RawRepresentable, RawValue == String {
    public static var wireValues: [String] { allCases.map(\.rawValue) }
    public static var anyValue: Self { allCases[allCases.startIndex] }  // trap-safe: a wire enumeration has at least one case
}

extension KeyKind: WireEnumeration {}
extension Platform: WireEnumeration {}
