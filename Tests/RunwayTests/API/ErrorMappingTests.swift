import Foundation
import LinkRunwayAPI
import RunwayHTTP
@testable import RunwayCapabilities
@testable import RunwayKit
import Testing

/// `ErrorMapping` gives every code of the API one status, and the API guide's table of codes says the same.
@Suite("Error mapping")
struct ErrorMappingTests {
    /// The codes `ErrorCode` declares, read from its source so that a code added there cannot be missed here.
    static func declaredCodes() throws -> [String] {
        let source = try String(contentsOf: DocumentationTests.root.appendingPathComponent("Sources/LinkRunwayAPI/Errors.swift"), encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"public static let [A-Za-z]+ = ErrorCode\(rawValue: "([a-z_]+)"\)"#)
        return pattern.matches(in: source, range: NSRange(source.startIndex..., in: source)).compactMap { match in
            Range(match.range(at: 1), in: source).map { String(source[$0]) }
        }
    }

    @Test("every ErrorCode has one status, and the table holds no other code")
    func everyCodeHasAStatus() throws {
        let declared = try Self.declaredCodes()
        let mapped = ErrorMapping.table.map(\.code.rawValue)
        #expect(declared.count > 50)
        #expect(Set(mapped).count == mapped.count, "a code is in the table twice")
        #expect(Set(declared) == Set(mapped), "declared but not mapped: \(Set(declared).subtracting(mapped)); mapped but not declared: \(Set(mapped).subtracting(declared))")
        for entry in ErrorMapping.table { #expect((400...599).contains(entry.status), "\(entry.code)") }
    }

    @Test("the API guide's table of error codes gives each the status of the mapping")
    func guideAgrees() throws {
        let guide = try String(contentsOf: DocumentationTests.root.appendingPathComponent("docs/api.md"), encoding: .utf8)
        let start = try #require(guide.range(of: "| status | codes |"))
        let end = try #require(guide.range(of: "\n\n", range: start.upperBound..<guide.endIndex))
        // A row gives a status, then its codes: "| 401 | `missing_key`, `invalid_key`, `revoked_key` |".
        var listed: [(String, Int)] = []
        for row in guide[start.upperBound..<end.lowerBound].split(separator: "\n") {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, let status = Int(cells[0]) else { continue }
            // Codes are the lower-case words in backquotes (`Allow`, a header, is not one).
            let quoted = cells[1].split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
            for code in quoted.map(\.element) where code.allSatisfy({ $0.isLowercase || $0 == "_" }) {
                listed.append((String(code), status))
            }
        }
        #expect(listed.count > 20)
        let statuses = Dictionary(uniqueKeysWithValues: ErrorMapping.table.map { ($0.code.rawValue, $0.status) })
        for (code, status) in listed {
            #expect(statuses[code] == status, "docs/api.md gives \(code) \(status), the mapping \(statuses[code].map(String.init) ?? "nothing")")
        }
    }

    @Test("a refusal's status comes from its code; 401 asks for a key, Retry-After comes from the refusal, an undecided one is 503")
    func refusalsMap() {
        let invalid = ErrorMapping.httpError(for: RequestError.invalidField("teamId", "must be ten characters"))
        #expect(invalid.status == 400 && invalid.code == ErrorCode.invalidField && invalid.field == "teamId" && invalid.headers.isEmpty)
        #expect(invalid.message == "teamId: must be ten characters")
        let missing = ErrorMapping.httpError(for: AccessError.missingKey)
        #expect(missing.status == 401 && missing.headers == ["WWW-Authenticate": "Bearer"])
        let limited = ErrorMapping.httpError(for: RateLimited(seconds: 7, what: "challenges"))
        #expect(limited.status == 429 && limited.headers == ["Retry-After": "7"] && limited.message == "too many challenges; retry in 7 s")
        let unanswered = ErrorMapping.httpError(for: LinksError.domainUnanswered(recordName: "_linkrunway.go.example.com"))
        #expect(unanswered.status == 503 && unanswered.code == ErrorCode.domainUnverified && unanswered.headers.isEmpty)
        #expect(ErrorMapping.httpError(for: LinksError.domainUnverified(recordName: "r", recordValue: "v", found: 0)).status == 409)
    }

    @Test("the statuses RunwayHTTP gives its own codes are the mapping's")
    func httpLayerAgrees() {
        #expect(HTTPError.payloadTooLarge(limit: 1).status == ErrorMapping.status(of: ErrorCode.bodyTooLarge))
        #expect(HTTPError.notFound(ErrorCode.notFound, "x").status == ErrorMapping.status(of: ErrorCode.notFound))
        #expect(HTTPError.unavailable(ErrorCode.shuttingDown, "x").status == ErrorMapping.status(of: ErrorCode.shuttingDown))
    }
}
