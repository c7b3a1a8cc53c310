/// The values Apple's postback formats allow for each field, checked before anything computes with them: a postback
/// with a field outside them is refused as `out_of_range`, naming the field, whether or not its signature verifies.
/// https://developer.apple.com/documentation/storekit/skadnetwork/receiving-postbacks-in-multiple-conversion-windows
/// https://developer.apple.com/documentation/adattributionkit/identifying-the-parameters-in-a-postback
enum PostbackBounds {
    /// Whole numbers and their ranges.
    static let integers: [String: ClosedRange<Int>] = [
        "postback-sequence-index": 0...2,
        "conversion-value": 0...63,
        "fidelity-type": 0...1,
        "campaign-id": 0...100,
    ]

    /// Identifiers made of digits, with the most digits each may have: App Store ids, and the two to four digits of a
    /// source identifier (a leading zero is lost when Apple sends it as a JSON number).
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

    /// What the first field of `object` outside its bounds must be; nil when every field it has is within.
    static func violation(_ object: PostbackObject) -> String? {
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
        // Nothing Apple sends holds NUL, and PostgreSQL could not store the fields read from it.
        for (name, value) in object.members.sorted(by: { $0.key < $1.key }) {
            if case .string(let text) = value, text.utf8.contains(0) { return "\(name) must not contain NUL characters" }
        }
        for (name, most) in lengths.sorted(by: { $0.key < $1.key }) where object.has(name) {
            guard let text = object.text(name), text.utf8.count <= most else {
                return "\(name) must be text of at most \(most) bytes"
            }
        }
        return nil
    }

    /// `value` when `range` holds it.
    static func within(_ value: Int?, _ range: ClosedRange<Int>) -> Int? {
        value.flatMap { range.contains($0) ? $0 : nil }
    }
}
