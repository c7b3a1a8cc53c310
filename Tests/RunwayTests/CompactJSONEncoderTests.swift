import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
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

    /// Its `Encodable` form, never the one it writes itself.
    struct ThroughEncodable<Value: Encodable>: Encodable {
        let value: Value
        func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
    }

    @Test("a link's figures write themselves as their Encodable form would be written, alone and in an answer")
    func statsRowsWriteThemselves() throws {
        var random = SystemRandomNumberGenerator()
        let keys = ["", "a", "B", "é", "😀", "a/b", "q\"x", "line\nbreak", "\u{1}", "PURCHASE", "USD", "zz", "Z"]
        func map<V: FixedWidthInteger>(_: V.Type) -> [String: V]? {
            Bool.random(using: &random) ? nil : Dictionary(
                (0..<Int.random(in: 0...5, using: &random)).map { _ in (keys.randomElement(using: &random) ?? "", V.random(in: V.min...V.max, using: &random)) },
                uniquingKeysWith: { a, _ in a })
        }
        func optional(_ value: Int) -> Int? { Bool.random(using: &random) ? nil : value }
        var rows: [LinkStatsRow] = []
        for _ in 0..<300 {
            let row = LinkStatsRow(key: keys.randomElement(using: &random) ?? "", clicks: Int.random(in: Int.min...Int.max, using: &random),
                                   opens: Int.random(in: 0...9, using: &random), installs: optional(Int.random(in: -5...Int.max, using: &random)),
                                   events: map(Int.self), revenue: map(Int64.self), previews: optional(7), bots: optional(0))
            #expect(try CompactJSONEncoder().encode(row) == CompactJSONEncoder().encode(ThroughEncodable(value: row)), "\(row)")
            #expect(try CompactJSONEncoder().encode(row) == Array(Self.foundation.encode(row)), "\(row)")
            rows.append(row)
        }
        let stats = LinkStats(linkId: "lnk_1", from: "2026-01-01", to: "2026-12-31", includeSimulated: false, total: rows[0], days: rows,
                              breakdowns: [LinkStatsBreakdown(dimension: "country", rows: Array(rows.suffix(20)))])
        #expect(try CompactJSONEncoder().encode(stats) == Array(Self.foundation.encode(stats)))
    }

    /// Texts that JSON escapes differently, or not at all, and some the answers hold.
    static let texts = ["", "a", "é", "😀", "a/b", "q\"x", "line\nbreak", "\u{1}", "probabilistic", "lnk_1", "stored", "ad:example"]
    static func text(_ random: inout SystemRandomNumberGenerator) -> String { texts.randomElement(using: &random) ?? "" }
    static func optionalText(_ random: inout SystemRandomNumberGenerator) -> String? { Bool.random(using: &random) ? nil : text(&random) }

    @Test("a match's explanation writes itself as its Encodable form would be written, nested candidates and all")
    func explanationWritesItself() throws {
        var random = SystemRandomNumberGenerator()
        func text() -> String { Self.text(&random) }
        func optional() -> String? { Self.optionalText(&random) }
        func candidate() -> MatchCandidate {
            MatchCandidate(method: text(), clickToken: optional(), impressionId: optional(), linkId: optional(), network: optional(),
                           campaign: optional(), ageSeconds: Int.random(in: Int.min...Int.max, using: &random),
                           eligible: Bool.random(using: &random), reason: text())
        }
        for _ in 0..<200 {
            let explanation = Explanation(
                settings: AttributionSettings(probabilisticMinutes: Int.random(in: -3...1_440, using: &random),
                                              viewThroughHours: Int.random(in: 0...168, using: &random),
                                              clickWindowDays: Int.random(in: Int.min...Int.max, using: &random)),
                rules: (0..<Int.random(in: 0...6, using: &random)).map { _ in text() },
                candidates: (0..<Int.random(in: 0...9, using: &random)).map { _ in candidate() },
                winner: Bool.random(using: &random) ? nil : candidate())
            let foundation = try Self.foundation.encode(explanation)
            #expect(try CompactJSONEncoder().encode(explanation) == Array(foundation), "\(explanation)")
            #expect(explanation.json == String(decoding: foundation, as: UTF8.self))
            let match = try #require(Explanation.decode(explanation.json))
            #expect(match.candidates == explanation.candidates && match.winner == explanation.winner && match.rules == explanation.rules)
        }
    }

    @Test("events' answers and errors write themselves as their Encodable forms would be written")
    func eventAnswersWriteThemselves() throws {
        var random = SystemRandomNumberGenerator()
        func text() -> String { Self.text(&random) }
        func optional() -> String? { Self.optionalText(&random) }
        func detail() -> ErrorBody.Detail {
            ErrorBody.Detail(code: ErrorCode(rawValue: text()), message: text(), field: optional())
        }
        func result() -> EventResult {
            let attribution = Bool.random(using: &random) ? nil : EventAttribution(
                method: text(), source: text(), linkId: optional(), campaign: optional(), channel: optional(), feature: optional(),
                appleAdsCampaignId: optional(), appleAdsAdGroupId: optional(), appleAdsKeywordId: optional(), variant: optional(),
                qr: Bool.random(using: &random) ? nil : Bool.random(using: &random))
            return EventResult(eventId: optional(), status: text(), attribution: attribution, error: Bool.random(using: &random) ? nil : detail())
        }
        for _ in 0..<200 {
            let single = result()
            #expect(try CompactJSONEncoder().encode(single) == Array(try Self.foundation.encode(single)), "\(single)")
            let batch = EventBatchResponse(results: (0..<Int.random(in: 0...5, using: &random)).map { _ in result() },
                                           stored: Int.random(in: Int.min...Int.max, using: &random),
                                           duplicates: Int.random(in: 0...100, using: &random), rejected: Int.random(in: -5...5, using: &random))
            #expect(try CompactJSONEncoder().encode(batch) == Array(try Self.foundation.encode(batch)), "\(batch)")
            let error = try JSONDecoder().decode(ErrorBody.self, from: Self.foundation.encode(["error": detail()]))
            #expect(try CompactJSONEncoder().encode(error) == Array(try Self.foundation.encode(error)), "\(error)")
        }
    }
}
