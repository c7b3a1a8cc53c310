import Foundation
import RunwayTestKit
import Testing

/// A capability's SQL is in its `…Queries.swift` files, and its schema steps' in `…Schema.swift`
/// (`docs/architecture.md`): handlers, domain files and `…Capability.swift` call query functions instead of holding
/// statements.
@Suite("SQL placement")
struct SQLPlacementTests {
    static let capabilities = TrapScanTests.sources.appendingPathComponent("RunwayCapabilities")

    /// The lines of `source` whose string literal starts a statement that reads or writes rows (a one-line literal
    /// that is the verb alone is an HTTP method).
    static func statements(in source: String) -> [Int] {
        let verbs = ["SELECT", "INSERT", "UPDATE", "DELETE", "WITH"]
        return TrapScanner.literals(in: source).filter { literal in
            verbs.contains { literal.text.hasPrefix($0 + " ") || (literal.multiline && literal.text == $0) }
        }.map(\.line)
    }

    @Test("statements are found in one- and multi-line literals, not in comments, prose, HTTP methods or after an interpolation")
    func finder() {
        let source = ##"""
            let a = "SELECT 1 AS one"
            let b = """
                INSERT INTO t (a) VALUES (\(a))
                """
            // DELETE FROM t
            let c = "Selects the app's rows"
            let d = "\(prefix) UPDATE t"
            let e = #"WITH x AS (SELECT 1) SELECT * FROM x"#
            let f = "UPDATES are counted"
            call("DELETE", path)
            let g = """
                SELECT
                  a FROM t
                """
            """##
        #expect(Self.statements(in: source) == [1, 3, 8, 12])
    }

    @Test("every capability statement is in a …Queries.swift or …Schema.swift file")
    func placement() throws {
        let files = try TrapScanTests.swiftFiles(under: Self.capabilities)
        #expect(files.count > 100)
        var misplaced: [String] = []
        var placed = 0
        for file in files {
            let lines = Self.statements(in: try String(contentsOf: Self.capabilities.appendingPathComponent(file), encoding: .utf8))
            if file.hasSuffix("Queries.swift") || file.hasSuffix("Schema.swift") {
                placed += lines.count
            } else {
                misplaced += lines.map { "Sources/RunwayCapabilities/\(file):\($0)" }
            }
        }
        #expect(placed > 200)
        #expect(misplaced.isEmpty, "move these statements into a query function:\n\(misplaced.joined(separator: "\n"))")
    }
}
