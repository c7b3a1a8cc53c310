import Foundation
import RunwayTestKit
import Testing

/// No expression in `Sources/` that stops the whole server on a bad value (a force unwrap, `try!`, `as!`, a range
/// subscript) unless a `trap-safe:` comment beside it says why it cannot: a trap stops every tenant at once.
@Suite("Trap scan")
struct TrapScanTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")

    @Test("the scanner finds each kind, in code and in interpolations, and not in comments or strings")
    func scanner() {
        let source = ##"""
            let a = b!
            let c = try! d()
            let e = f as! Int
            let g = h[i..<j] + k[..<l] + m[n...]
            let s = "\(error!.reason) not! this [0..<1]"
            // x! in a comment
            let ok = !flag && x != y && [1...2].count > 0 && all[...].isEmpty
            let fine = p!  // trap-safe: p is set on the line above
            // trap-safe: q comes from a literal
            let also = q!
            let raw = #"r! \#(t!)"#
            """##
        let found = TrapScanner.findings(in: source)
        #expect(found.map(\.line) == [1, 2, 3, 4, 4, 4, 5, 11], "\(found)")
        #expect(found.map(\.kind) == ["force unwrap", "try!", "as!", "range subscript", "range subscript", "range subscript", "force unwrap",
                                      "force unwrap"])
    }

    /// The Swift files under `folder`, as paths relative to it, sorted.
    static func swiftFiles(under folder: URL) throws -> [String] {
        try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }.sorted()
    }

    @Test("Sources holds no unexplained force unwrap, try!, as! or range subscript")
    func sourcesAreClean() throws {
        let files = try Self.swiftFiles(under: Self.sources)
        #expect(files.count > 300)
        var report: [String] = []
        for file in files {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
            for finding in TrapScanner.findings(in: text) { report.append("Sources/\(file):\(finding)") }
        }
        #expect(report.isEmpty, "add a check, or a `// trap-safe: why` comment:\n\(report.joined(separator: "\n"))")
    }
}
