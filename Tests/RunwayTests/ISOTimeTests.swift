import Foundation
@testable import RunwayCapabilities
@testable import RunwayCLI
@testable import RunwayConsole
@testable import RunwayKit
@testable import RunwayServer
import Testing

@Suite("ISO 8601 times")
struct ISOTimeTests {
    @Test("valid times match Foundation's reading", arguments: [
        "2026-11-30T05:19:19Z", "1970-01-01T00:00:00Z", "2024-02-29T23:59:59.999Z", "2026-11-30T05:19:19.5+01:00",
        "2026-11-30T05:19:19-07:30", "2000-03-01T00:00:00.123Z", "1999-12-31T23:59:59z",
    ])
    func valid(_ text: String) throws {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        let date = try #require(formatter.date(from: text.uppercased()) ?? plain.date(from: text.uppercased()))
        #expect(ISOTime.milliseconds(text) == Int64((date.timeIntervalSince1970 * 1000).rounded()))
    }

    @Test("invalid times are refused", arguments: [
        "", "2026-11-30", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2025-02-29T00:00:00Z", "2026-11-30T24:00:00Z",
        "2026-11-30T05:19:19", "2026-11-30T05:19:19.Z", "2026-11-30T05:19:19+1", "x026-11-30T05:19:19Z", "2026-11-30T05:19:19Zjunk",
    ])
    func invalid(_ text: String) {
        #expect(ISOTime.milliseconds(text) == nil)
    }

    @Test("a bare day is its start, or the start of the next day as a range's end; anything else is still refused")
    func days() throws {
        let start = try #require(ISOTime.milliseconds("2026-11-30T00:00:00Z"))
        #expect(ISOTime.dayStart("2026-11-30") == start)
        #expect(ISOTime.dayStart("2026-02-30") == nil && ISOTime.dayStart("2026-11-3") == nil)
        #expect(try Validate.timeOrDay("2026-11-30", field: "from", day: .start) == start)
        #expect(try Validate.timeOrDay("2026-11-30", field: "to", day: .end) == start + 86_400_000)
        #expect(try Validate.timeOrDay("2026-11-30T00:00:00Z", field: "to", day: .end) == start, "a full time is taken as it is")
        #expect(throws: RequestError.self) { try Validate.timeOrDay("30/11/2026", field: "from", day: .start) }
        #expect(CLITime.endOfDayOrTime("2026-12-31") == "2027-01-01T00:00:00Z")
        #expect(CLITime.endOfDayOrTime("2026-12-31T18:00:00Z") == "2026-12-31T18:00:00Z")
    }
}
