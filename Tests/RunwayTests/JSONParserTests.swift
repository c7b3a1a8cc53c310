@testable import RunwayJSON
import Testing

@Suite("JSON parser")
struct JSONParserTests {
    let parser = JSONParser()

    @Test("parses every kind of value and keeps member order")
    func parsesValues() throws {
        let value = try parser.parse(#" {"b": [1, -2.5e3, true, false, null], "a": {"s": "x\u00e9\n\ud83d\ude00"}} "#)
        #expect(value.objectValue?.map(\.0) == ["b", "a"])
        #expect(value["b"] == [1, .number("-2.5e3"), true, false, nil])
        #expect(value["a"]?["s"] == .string("xé\n😀"))
    }

    @Test("keeps integers exact beyond 2^53")
    func exactIntegers() throws {
        #expect(try parser.parse("9007199254740993").int64Value == 9_007_199_254_740_993)
    }

    @Test("rejects malformed documents", arguments: [
        "", "{", "[1,]", "{\"a\":1,}", "{'a':1}", "01", "1.", "-", ".5", "1e", "tru", "nul", "\"abc", "\"\\x\"",
        "\"\u{01}\"", "{\"a\" 1}", "[1 2]", "{} {}", "\"\\ud800\"", "\"\\udc00x\"", "NaN", "// c\n1",
    ])
    func rejectsMalformed(_ text: String) {
        #expect(throws: JSONSyntaxError.self) { try parser.parse(text) }
    }

    @Test("rejects invalid UTF-8")
    func rejectsInvalidUTF8() {
        #expect(throws: JSONSyntaxError.self) { try parser.parse([0x22, 0xff, 0xfe, 0x22]) }
    }

    @Test("rejects duplicate member names")
    func rejectsDuplicates() {
        #expect(throws: JSONSyntaxError(message: "duplicate member name \"a\"", offset: 8)) { try parser.parse(#"{"a":1, "a":2}"#) }
    }

    /// Small objects compare names, larger ones hash them: a repeat is found on either side of the change, and names
    /// that differ only past their first bytes, or in non-ASCII letters, are not repeats.
    @Test("finds a repeated name in objects of any size", arguments: [1, 2, 15, 16, 17, 40])
    func repeatsInAnySize(_ members: Int) throws {
        let names = (0..<members).map { "member-é-\($0)" }
        let object = "{" + names.map { "\"\($0)\":1" }.joined(separator: ",") + "}"
        #expect(try parser.parse(object).objectValue?.map(\.0) == names)
        for repeated in Set([0, members / 2, members - 1]) {
            let text = "{" + (names + [names[repeated]]).map { "\"\($0)\":1" }.joined(separator: ",") + "}"
            #expect(throws: JSONSyntaxError.self) { try parser.parse(text) }
        }
    }

    @Test("reads ASCII and non-ASCII text alike, escaped or not")
    func texts() throws {
        for text in ["", "plain", "2026-01-01T00:00:00Z", "é", "a\u{0}b", "tab\there", "😀 and ascii", String(repeating: "x", count: 300)] {
            #expect(try parser.parse(JSONValue.string(text).serialized()) == .string(text))
            #expect(try parser.parse(Array(("\"" + text.replacingOccurrences(of: "\u{0}", with: "\\u0000").replacingOccurrences(of: "\t", with: "\\t") + "\"").utf8))
                    == .string(text))
        }
        // Bytes that are not UTF-8 after ASCII ones are refused, as at the start.
        #expect(throws: JSONSyntaxError.self) { try parser.parse([0x22, 0x61, 0x62, 0xc3, 0x28, 0x22]) }
    }

    @Test("bounds nesting depth")
    func boundsDepth() throws {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: JSONSyntaxError.self) { try parser.parse(deep) }
        let fine = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        _ = try parser.parse(fine)
    }

    @Test("serialises and parses back to the same value")
    func roundTrip() throws {
        let value: JSONValue = ["a": "quote \" backslash \\ tab \t ctl \u{01}", "n": 12, "l": [true, nil, 1.5], "o": [:]]
        #expect(try parser.parse(value.serialized()) == value)
    }
}

@Suite("Strict JSON decoder")
struct StrictDecoderTests {
    struct Inner: Decodable, Equatable {
        var id: String
        var count: Int?
    }

    struct Outer: Decodable, Equatable {
        var name: String
        var items: [Inner]
        var flag: Bool?
        var extra: JSONValue?
    }

    let decoder = StrictJSONDecoder()

    func decode(_ text: String) throws(JSONDecodeFailure) -> Outer { try decoder.decode(Outer.self, from: Array(text.utf8)) }

    @Test("decodes a valid body, null meaning absent for optionals")
    func decodesValid() throws {
        let value = try decode(#"{"name":"n","items":[{"id":"a","count":2},{"id":"b","count":null}],"flag":null,"extra":{"any":[1]}}"#)
        #expect(value == Outer(name: "n", items: [Inner(id: "a", count: 2), Inner(id: "b", count: nil)], flag: nil,
                               extra: ["any": [1]]))
    }

    @Test("names unknown fields by their path, nested ones too")
    func unknownFields() {
        #expect(throws: JSONDecodeFailure.unknownField("color")) { try decode(#"{"name":"n","items":[],"color":1}"#) }
        #expect(throws: JSONDecodeFailure.unknownField("items[1].size")) {
            try decode(#"{"name":"n","items":[{"id":"a"},{"id":"b","size":3}]}"#)
        }
    }

    @Test("names missing and mistyped fields")
    func wrongFields() {
        #expect(throws: JSONDecodeFailure.missingField("name")) { try decode(#"{"items":[]}"#) }
        #expect(throws: JSONDecodeFailure.missingField("items[0].id")) { try decode(#"{"name":"n","items":[{}]}"#) }
        #expect(throws: JSONDecodeFailure.invalidField("name", "must be a string, not number")) { try decode(#"{"name":1,"items":[]}"#) }
        #expect(throws: JSONDecodeFailure.invalidField("items[0].count", "must be an integer, not string")) {
            try decode(#"{"name":"n","items":[{"id":"a","count":"2"}]}"#)
        }
        #expect(throws: JSONDecodeFailure.invalidField("name", "must be a string, not null")) { try decode(#"{"name":null,"items":[]}"#) }
        #expect(throws: JSONDecodeFailure.invalidField("", "must be an object, not array")) { try decode("[]") }
    }

    @Test("refuses integers with fractions or out of range")
    func integerRange() {
        #expect(throws: JSONDecodeFailure.self) { try decode(#"{"name":"n","items":[{"id":"a","count":1.5}]}"#) }
        #expect(throws: JSONDecodeFailure.self) { try decode(#"{"name":"n","items":[{"id":"a","count":99999999999999999999}]}"#) }
    }

    @Test("reports syntax errors as such")
    func syntax() {
        #expect {
            try decode("{")
        } throws: { error in
            if case .syntax = error as? JSONDecodeFailure { return true }
            return false
        }
    }
}
