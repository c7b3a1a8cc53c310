import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayHTTP
@testable import RunwayKit
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

/// Faults of the storage under the real API.
@Suite("Faults")
struct FaultTests {
    @Test("a full disk: writes answer 503 store_unavailable, reads go on, nothing is half-written, and writes resume with space")
    func diskFull() async throws {
        let server = try await TestServer.start(.sqlite)
        let workspace = server.defaultWorkspace.id
        // SQLite's own limit on the file's pages stands in for the disk: past it, a write fails with SQLITE_FULL
        // exactly as on a full disk (the readers' connections are not limited, as reading needs no space).
        let pages = try await server.store.read { try $0.first("PRAGMA page_count")!.int("page_count") }
        try await server.store.write { db in try db.execute("PRAGMA max_page_count = \(raw: String(pages + 8))") }

        var acknowledged: [String] = [], refused: [String] = []
        let padding = String(repeating: "x", count: 3000)
        for i in 0..<200 {
            let path = "full-\(i)"
            let response = try await server.admin.post("/v1/links", CreateLinkRequest(workspaceId: workspace, path: path, metadata: ["pad": .string(padding)]))
            switch response.status {
            case 201: acknowledged.append(path)
            case 503:
                #expect(response.errorCode == "store_unavailable", "\(response.bodyText)")
                refused.append(path)
            default: Issue.record("a write answered \(response.status): \(response.bodyText)")
            }
            if refused.count >= 5 { break }
        }
        #expect(!acknowledged.isEmpty && refused.count == 5, "the disk filled up: \(acknowledged.count) written, \(refused.count) refused")

        // Reads keep working while writes cannot.
        let listed = try await server.admin.get("/v1/links?workspaceId=\(workspace)&limit=200").decoded(Page<Link>.self)
        #expect(Set(listed.items.map(\.path)) == Set(acknowledged), "exactly the acknowledged links, none of the refused")
        #expect(await server.client().get("/healthz").status == 200)

        // Space again: writes resume, and the database is whole.
        try await server.store.write { db in try db.execute("PRAGMA max_page_count = 1073741823") }
        #expect(try await server.admin.post("/v1/links", CreateLinkRequest(workspaceId: workspace, path: "after")).status == 201)
        let check = try await server.store.read { try $0.first("PRAGMA integrity_check")!.string("integrity_check") }
        #expect(check == "ok")
        let retried = try await server.admin.post("/v1/links", CreateLinkRequest(workspaceId: workspace, path: refused[0]))
        #expect(retried.status == 201, "a refused write left nothing behind that blocks its retry")
        await server.stop()
    }

    @Test("a read-only database: writes answer 503 store_unavailable with Retry-After, and reads go on")
    func readOnly() async throws {
        let server = try await TestServer.start(.sqlite)
        let workspace = server.defaultWorkspace.id
        #expect(try await server.admin.post("/v1/links", CreateLinkRequest(workspaceId: workspace, path: "before")).status == 201)
        // The writer connection refuses to change anything, as it would on a file system remounted read-only.
        try await server.store.write { db in try db.execute("PRAGMA query_only = 1") }
        let refused = try await server.admin.post("/v1/links", CreateLinkRequest(workspaceId: workspace, path: "during"))
        #expect(refused.status == 503 && refused.errorCode == "store_unavailable", "\(refused.bodyText)")
        #expect(refused.headers["Retry-After"] != nil)
        let links = try await server.admin.get("/v1/links?workspaceId=\(workspace)").decoded(Page<Link>.self)
        #expect(links.items.map(\.path) == ["before"])
        #expect(await server.client().checkStatus("/readyz") == 200, "reading still works, so the server stays ready")
        await server.stop()
    }
}
