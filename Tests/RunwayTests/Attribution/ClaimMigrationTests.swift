@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

/// Migration 0070 copies click claims from `click_claims` onto the clicks they claim.
@Suite("Click claims on the click: the migration")
struct ClaimMigrationTests {
    @Test("a stored claim names its install on the click; unclaimed clicks stay free; the old table keeps its rows", arguments: StoreBackend.all)
    func movesClaims(_ backend: StoreBackend) async throws {
        let location = try await backend.makeLocation()
        let store = try backend.open(location.url, nil)
        _ = try await store.migrate(Schema.migrations.filter { $0.id < "0070" })
        try await store.write { db in
            for (token, claimed) in [("tok-claimed", 1), ("tok-free", 0)] {
                try db.execute("""
                    INSERT INTO clicks (token, kind, link_id, workspace_id, platform, created_at, claimed)
                    VALUES (\(token), 'click', 'lnk_1', 'ws_1', 'ios', 1000, \(claimed))
                    """)
            }
            try db.execute("INSERT INTO click_claims (token, app_id, install_id, claimed_at) VALUES ('tok-claimed', 'app_1', 'inst-1', 2000)")
        }
        let applied = try await store.migrate(Schema.migrations)
        #expect(applied.contains("0070_click_claims_on_clicks"))
        let rows = try await store.read { db in
            try db.query("SELECT token, claimed, claimed_app_id, claimed_install_id FROM clicks ORDER BY token").map {
                "\(try $0.string("token")) \(try $0.int("claimed")) \(try $0.optionalString("claimed_app_id") ?? "-") \(try $0.optionalString("claimed_install_id") ?? "-")"
            }
        }
        #expect(rows == ["tok-claimed 1 app_1 inst-1", "tok-free 0 - -"])
        // Servers of earlier versions still claim there during a rolling upgrade.
        let kept = try await store.read { try $0.query("SELECT install_id FROM click_claims").map { try $0.string("install_id") } }
        #expect(kept == ["inst-1"])
        await store.close()
    }
}
