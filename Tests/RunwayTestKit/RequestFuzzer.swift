import Foundation
import RunwayJSON

/// A small deterministic random source (SplitMix64), so that a failing sequence can be replayed from its seed.
package struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    package init(seed: UInt64) { state = seed }
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Makes requests that a careless or hostile client could send, from a valid one and the schema of its body: numbers
/// at and past every boundary, wrong types, deep nesting, long, odd and non-UTF-8 text, unknown and missing fields,
/// odd query values and path segments.
package struct RequestFuzzer {
    package var random: SeededGenerator

    package init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    package static let numbers = ["-9223372036854775808", "9223372036854775807", "9223372036854775808", "-1", "0", "1", "9007199254740992",
                          "1e308", "-1e308", "1e400", "0.5", "-0.0", "18446744073709551615", "2147483648", "99999999999999999999999"]
    package static let texts = ["", " ", String(repeating: "a", count: 5000), "\u{202E}ü😀\u{0301}", "\u{0000}", "../../etc/passwd", "%00", "<script>x</script>",
                        "-1", "9223372036854775807", "1e308", "2026-13-45T99:99:99Z", "0000-00-00", "NaN", "null", "https://127.0.0.1/x",
                        String(repeating: "é", count: 300), "a\u{2063}b", "lr_sk_x"]

    package mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }
    package mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    /// A value past what anyone should send: an extreme number, an odd string, a wrong type, or deep nesting.
    package mutating func extreme() -> JSONValue {
        switch Int.random(in: 0..<10, using: &random) {
        case 0...3: return .number(pick(Self.numbers))
        case 4...6: return .string(pick(Self.texts))
        case 7: return pick([.null, .bool(true), .bool(false), .array([]), .object([])])
        case 8: return .array([.number(pick(Self.numbers)), .string(pick(Self.texts))])
        default:
            var nested: JSONValue = .number("1")
            for _ in 0..<Int.random(in: 10...70, using: &random) { nested = chance(50) ? .array([nested]) : .object([("a", nested)]) }
            return nested
        }
    }

    /// `value` with one member, item or leaf changed, removed or added.
    package mutating func mutate(_ value: JSONValue, depth: Int = 0) -> JSONValue {
        switch value {
        case .object(var members):
            if members.isEmpty || chance(15) {
                members.append((chance(50) ? "unexpected" : pick(["__proto__", "", "a.b", "ü"]), extreme()))
                return .object(members)
            }
            let index = Int.random(in: 0..<members.count, using: &random)
            if chance(10) {
                members.remove(at: index)
            } else if chance(50) || depth > 6 {
                members[index].1 = extreme()
            } else {
                members[index].1 = mutate(members[index].1, depth: depth + 1)
            }
            return .object(members)
        case .array(var items):
            if items.isEmpty || chance(20) {
                let count = chance(10) ? 600 : 1
                items += Array(repeating: items.first ?? extreme(), count: count)
                return .array(items)
            }
            let index = Int.random(in: 0..<items.count, using: &random)
            items[index] = chance(50) || depth > 6 ? extreme() : mutate(items[index], depth: depth + 1)
            return .array(items)
        default:
            return extreme()
        }
    }

    /// A body from a valid one: mutated JSON mostly, sometimes filled from the request schema's properties with
    /// extremes, sometimes not JSON at all.
    package mutating func body(from valid: [UInt8], schema: JSONValue?, components: JSONValue?) -> [UInt8] {
        let parsed = valid.isEmpty ? nil : try? JSONParser().parse(valid)
        switch Int.random(in: 0..<20, using: &random) {
        case 0: return [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0xFE, 0xC3, 0x28, 0x22, 0x7D]  // {"a":"<invalid UTF-8>"}
        case 1: return Array(valid.prefix(max(0, valid.count / 2)))
        case 2: return Array(pick(["[]", "null", "1e999", "\"x\"", "{\"a\":1,\"a\":2}", "{}"]).utf8)
        case 3...6:
            guard var object = parsed?.objectValue ?? (valid.isEmpty ? [] : nil) else { break }
            let properties = Self.properties(of: schema, components: components)
            guard !properties.isEmpty else { break }
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let name = pick(properties)
                object.removeAll { $0.0 == name }
                object.append((name, extreme()))
            }
            return JSONValue.object(object).serializedBytes()
        default: break
        }
        guard let parsed else { return Array(extreme().serialized().utf8) }
        var mutated = parsed
        for _ in 0..<Int.random(in: 1...2, using: &random) { mutated = mutate(mutated) }
        return mutated.serializedBytes()
    }

    /// The property names of an object schema, following one `$ref`.
    package static func properties(of schema: JSONValue?, components: JSONValue?) -> [String] {
        guard var schema else { return [] }
        if let ref = schema["$ref"]?.stringValue, let name = ref.split(separator: "/").last, let target = components?[String(name)] {
            schema = target
        }
        return (schema["properties"]?.objectValue ?? []).map(\.0)
    }

    /// Query pairs: the valid ones, some changed, and some of the operation's documented parameters set to extremes.
    package mutating func query(_ valid: [(String, String)], documented: [String]) -> [(String, String)] {
        var pairs = valid
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            let names = documented + ["limit", "cursor", "from", "to", "groupBy", "by", "format", "size", "margin"]
            let name = pick(names)
            let value = chance(60) ? pick(Self.numbers) : pick(Self.texts)
            if chance(70) { pairs.removeAll { $0.0 == name } }
            pairs.append((name, value))
        }
        return pairs
    }

    /// A path with one of the pattern's parameters (or, for a catch-all, the whole path) replaced by odd text.
    package mutating func path(_ valid: String, pattern: String) -> String {
        let patternParts = pattern.split(separator: "/", omittingEmptySubsequences: false)
        var parts = valid.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let parameters = patternParts.indices.filter { patternParts[$0].hasPrefix("{") && $0 < parts.count }
        guard !parameters.isEmpty else { return valid }
        let odd = pick([String(repeating: "x", count: 3000), "%FF%FE", "..", "%2e%2e", "ü😀", "app_" + String(repeating: "Z", count: 64), "0", "-1",
                        "9223372036854775808", "%00", "a b"])
        parts[pick(parameters)] = odd
        return parts.joined(separator: "/")
    }

    /// Odd values of the headers a route may read.
    package mutating func headers() -> [(String, String)] {
        var headers: [(String, String)] = []
        if chance(20) { headers.append(("Idempotency-Key", pick(["", String(repeating: "k", count: 300), "ü", "key-\(Int.random(in: 0..<4, using: &random))"]))) }
        if chance(15) { headers.append(("Accept", pick(["text/csv", "*/*", "application/json;q=0", "\u{0000}"]))) }
        if chance(15) { headers.append(("User-Agent", pick(Self.texts))) }
        if chance(10) { headers.append(("Content-Type", pick(["text/plain", "multipart/form-data; boundary=", "application/x-www-form-urlencoded"]))) }
        if chance(10) { headers.append(("Accept-Language", pick(Self.texts))) }
        return headers
    }
}
