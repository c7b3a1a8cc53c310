import Foundation
import LinkRunwayAPI
import RunwayJSON
import Testing

/// Answers are written by our encoder; they must be what Foundation's JSONEncoder (sorted keys, slashes unescaped)
/// wrote before, byte for byte.
@Suite("Compact JSON encoder")
struct CompactJSONEncoderTests {
    static let foundation: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func same<T: Codable>(_ type: T.Type, _ json: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let value = try JSONDecoder().decode(T.self, from: Data(json.utf8))
        let ours = String(decoding: try CompactJSONEncoder().encode(value), as: UTF8.self)
        let theirs = String(decoding: try foundation.encode(value), as: UTF8.self)
        #expect(ours == theirs, sourceLocation: sourceLocation)
    }

    struct Sample: Codable {
        let text: String
        let ratio: Double
        let whole: Double
        let tiny: Double
        let huge: Double
        let count: Int64
        let flags: [Bool]
        let missing: String?
        let present: String?
        let map: [String: [Int]]
        let nested: [[String: Double]]
        let small: [UInt8]
        let sizes: [String: Int16]
        let float: Float
    }

    @Test("the same bytes as Foundation for numbers, escapes, nil optionals, maps and nesting")
    func sameAsFoundation() throws {
        try Self.same(Sample.self, #"""
            {"text":"a/b \"q\" \\ \n\t\r \u0001 é 😀","ratio":0.1,"whole":2,"tiny":1e-7,"huge":1e21,"count":-9007199254740993,
             "flags":[true,false],"present":"x","map":{"z":[1],"B":[],"a":[3,2]},"nested":[{"y":0.5,"b":-0.0}],"missing":null,
             "small":[0,255],"sizes":{"7":-3},"float":0.3}
            """#)
        try Self.same(InstallMatch.self, #"""
            {"installId":"i-1","appId":"app_1","matched":true,"method":"probabilistic","confidence":0.6,"source":"link",
             "clickId":"c","linkId":"l","path":"/promo","url":"https://go.example.com/p","metadata":{"k":[1,{"x":null}],"a":"b","n":[2.5e3,-0.75,12345678901234567890,0]},
             "campaign":"summer","matchedAt":"2026-12-01T00:00:00.000Z"}
            """#)
        try Self.same(EventBatchResponse.self, #"""
            {"results":[{"eventId":"e1","status":"stored","attribution":{"method":"link","source":"link","linkId":"l"}},
                        {"status":"rejected","error":{"code":"missing_field","message":"needs \"name\"","field":"events[1].name"}}],
             "stored":1,"duplicates":0,"rejected":1}
            """#)
    }

    @Test("a number JSON cannot hold is refused, as Foundation refuses it")
    func nonFinite() {
        #expect(throws: CompactJSONEncoder.InvalidValue.self) { try CompactJSONEncoder().encode([Double.nan]) }
        #expect(throws: CompactJSONEncoder.InvalidValue.self) { try CompactJSONEncoder().encode(["x": Double.infinity]) }
    }
}
