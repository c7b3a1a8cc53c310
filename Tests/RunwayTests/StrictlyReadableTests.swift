import LinkRunwayAPI
@testable import RunwayJSON
import Testing

@Suite("Bodies that read themselves")
struct StrictlyReadableTests {
    /// Values of every kind, and the texts and numbers where the decoder draws its lines.
    static let values: [JSONValue] = [
        .null, .bool(true), .string(""), .string("e1"), .string("é😀"), .string("a\u{0}b"), .number("0"), .number("-7"),
        .number("120"), .number("1.5"), .number("1e3"), .number("-0"), .number("9223372036854775807"),
        .number("9223372036854775808"), .array([]), .array([.string("x")]), .object([]), .object([("k", .string("v"))]),
    ]
    static let keys = ["eventId", "type", "installId", "timestamp", "name", "userId", "amount", "currency", "properties", "appId",
                       "attestation", "clickToken", "eventid", "extra"]

    static func encoded(_ event: EventRequest) throws -> [UInt8] { try CompactJSONEncoder().encode(event) }

    @Test("an event reads itself exactly as the decoder decodes it, or leaves the body to the decoder")
    func eventReadsAsDecoded() throws {
        var random = SystemRandomNumberGenerator()
        var read = 0
        for round in 0..<3_000 {
            // A valid event, then members changed, added or removed at random.
            var members: [(String, JSONValue)] = [("eventId", .string("e\(round)")), ("type", .string("OPEN")),
                                                  ("installId", .string("i1")), ("timestamp", .string("2026-01-01T00:00:00Z"))]
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                let key = Self.keys.randomElement(using: &random) ?? "extra"
                let value = Self.values.randomElement(using: &random) ?? .null
                members.removeAll { $0.0 == key }
                if Int.random(in: 0..<6, using: &random) > 0 { members.insert((key, value), at: Int.random(in: 0...members.count, using: &random)) }
            }
            let document = JSONValue.object(members)
            let decoded = Result { () throws(JSONDecodeFailure) in try StrictJSONDecoder().decodeThroughDecoder(EventRequest.self, from: document) }
            guard let itself = EventRequest.read(strictly: document) else {
                // Left to the decoder: the answer is the decoder's, whatever it is.
                let answered = Result { () throws(JSONDecodeFailure) in try StrictJSONDecoder().decode(EventRequest.self, from: document) }
                #expect(String(describing: answered) == String(describing: decoded), "\(document)")
                continue
            }
            read += 1
            let expected = try decoded.get()
            #expect(try Self.encoded(itself) == Self.encoded(expected), "\(document)")
        }
        #expect(read > 300, "most valid events read themselves")
        let plain = JSONValue.object([("eventId", "e"), ("type", "OPEN"), ("installId", "i"), ("timestamp", "2026-01-01T00:00:00Z"),
                                      ("amount", .number("120")), ("currency", "EUR"), ("name", nil)])
        #expect(EventRequest.read(strictly: plain)?.amount == 120)
    }
}
