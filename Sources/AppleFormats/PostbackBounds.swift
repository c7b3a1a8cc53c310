/// The values Apple's postback formats allow for each field, checked before anything computes with them: a postback
/// with a field of another JSON type is refused as `wrong_type`, one outside the values as `out_of_range`, naming the
/// field, whether or not its signature verifies.
/// https://developer.apple.com/documentation/storekit/skadnetwork/receiving-postbacks-in-multiple-conversion-windows
/// https://developer.apple.com/documentation/adattributionkit/identifying-the-parameters-in-a-postback
enum PostbackBounds {
    enum Kind: String { case string = "a string", number = "a number", boolean = "true or false" }

    /// The JSON type Apple sends each field as. The signed string reads every type as text (`4`, `"4"`), so a
    /// replayed postback could otherwise carry a signed value under another type than Apple's and be read differently
    /// (`"did-win":"false"`). `version` is left to the verifier, which answers `unsupported_version`.
    static let kinds: [String: Kind] = [
        "ad-network-id": .string, "ad-network-identifier": .string, "source-identifier": .string, "transaction-id": .string,
        "postback-identifier": .string, "source-domain": .string, "coarse-conversion-value": .string,
        "attribution-signature": .string, "jws-string": .string, "country-code": .string, "ad-interaction-type": .string,
        "conversion-type": .string, "marketplace-identifier": .string, "impression-type": .string,
        "campaign-id": .number, "app-id": .number, "source-app-id": .number, "fidelity-type": .number,
        "postback-sequence-index": .number, "conversion-value": .number, "advertised-item-identifier": .number,
        "publisher-item-identifier": .number,
        "redownload": .boolean, "did-win": .boolean,
    ]

    /// Whole numbers and their ranges.
    static let integers: [String: ClosedRange<Int>] = [
        "postback-sequence-index": 0...2,
        "conversion-value": 0...63,
        "fidelity-type": 0...1,
        "campaign-id": 0...100,
    ]

    /// Identifiers made of digits, with the most digits each may have: App Store ids, and the two to four digits of a
    /// source identifier.
    static let digits: [String: Int] = [
        "app-id": 20, "source-app-id": 20, "advertised-item-identifier": 20, "publisher-item-identifier": 20,
        "source-identifier": 4,
    ]

    /// Fields that take one of a few words.
    static let words: [String: Set<String>] = [
        "coarse-conversion-value": ["low", "medium", "high"],
        "conversion-type": ["download", "redownload", "re-engagement", "reengagement"],
        "ad-interaction-type": ["click", "view"],
    ]

    /// The longest text each free-form field may be, in bytes.
    static let lengths: [String: Int] = [
        "version": 8, "ad-network-id": 255, "ad-network-identifier": 255, "transaction-id": 128, "postback-identifier": 128,
        "source-domain": 253, "country-code": 2, "marketplace-identifier": 64,
    ]

    /// The reason (`wrong_type` or `out_of_range`) and what the first field of `object` outside its bounds must be;
    /// nil when every field it has is within.
    static func violation(_ object: PostbackObject) -> (reason: String, detail: String)? {
        for (name, kind) in kinds.sorted(by: { $0.key < $1.key }) where object.has(name) {
            let matches = switch (kind, object.members[name]) {
            case (.string, .string?), (.number, .number?), (.boolean, .bool?): true
            default: false
            }
            if !matches { return ("wrong_type", "\(name) must be \(kind.rawValue), as Apple sends it") }
        }
        return outOfRange(object).map { ("out_of_range", $0) }
    }

    static func outOfRange(_ object: PostbackObject) -> String? {
        for (name, range) in integers.sorted(by: { $0.key < $1.key }) where object.has(name) {
            guard let value = object.int(name), range.contains(value) else {
                return "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)"
            }
        }
        for (name, most) in digits.sorted(by: { $0.key < $1.key }) where object.has(name) {
            guard let text = object.text(name), (1...most).contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                return "\(name) must be 1 to \(most) digits"
            }
        }
        for (name, allowed) in words.sorted(by: { $0.key < $1.key }) where object.has(name) {
            guard let text = object.text(name), allowed.contains(text) else {
                return "\(name) must be one of " + allowed.sorted().joined(separator: ", ")
            }
        }
        // Nothing Apple sends holds NUL, and PostgreSQL could not store the fields read from it. Nor U+2063, the
        // separator of SKAdNetwork's signed string: a value holding it would split into other fields under the same
        // signature.
        for (name, value) in object.members.sorted(by: { $0.key < $1.key }) {
            guard case .string(let text) = value else { continue }
            if text.utf8.contains(0) { return "\(name) must not contain NUL characters" }
            if text.unicodeScalars.contains("\u{2063}") { return "\(name) must not contain U+2063, the separator of Apple's signed string" }
        }
        for (name, most) in lengths.sorted(by: { $0.key < $1.key }) where object.has(name) {
            guard let text = object.text(name), text.utf8.count <= most else {
                return "\(name) must be text of at most \(most) bytes"
            }
        }
        // A source domain sits beside the source app id in SKAdNetwork's signed string, so a publisher app 1234 signs
        // the same text as a domain "1234": a domain must have a dot and a letter, which no app id has.
        if object.has("source-domain"), let domain = object.text("source-domain") {
            let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
            let wellFormed = labels.count >= 2 && labels.allSatisfy { label in
                !label.isEmpty && label.utf8.allSatisfy { $0 == UInt8(ascii: "-") || ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7a) }
            } && domain.utf8.contains { $0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7a }
            if !wellFormed { return "source-domain must be a hostname such as example.com" }
        }
        return nil
    }

    /// `value` when `range` holds it.
    static func within(_ value: Int?, _ range: ClosedRange<Int>) -> Int? {
        value.flatMap { range.contains($0) ? $0 : nil }
    }
}
