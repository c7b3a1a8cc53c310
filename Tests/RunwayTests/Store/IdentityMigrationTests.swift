import Foundation
@testable import RunwayCapabilities
@testable import RunwayConsole
@testable import RunwayKit
@testable import RunwayServer
import RunwayStore
import Testing

/// Migration 0017: apps that already shared an App Store id or a team and bundle id across workspaces.
@Suite("App identities: the migration")
struct IdentityMigrationTests {
    @Test("the oldest app keeps a shared App Store id or bundle, the others are reported, and nothing is deleted", arguments: StoreBackend.all)
    func oldestKeeps(_ backend: StoreBackend) async throws {
        let location = try await backend.makeLocation()
        let store = try backend.open(location.url, nil)
        _ = try await store.migrate(Schema.migrations.filter { $0.id < "0017" })
        try await store.write { db in
            for (workspace, app, storeId, bundle, at) in [("ws_a", "app_owner", "111", "com.owner", 1), ("ws_b", "app_squat", "111", "com.squat", 2),
                                                         ("ws_b", "app_copy", "222", "com.owner", 3), ("ws_c", "app_alone", nil, "com.alone", 4)] as [(String, String, String?, String, Int64)] {
                try db.execute("INSERT INTO workspaces (id, name, created_at) VALUES (\(workspace), 'W', 0) ON CONFLICT (id) DO NOTHING")
                try db.execute("""
                    INSERT INTO apps (id, workspace_id, name, team_id, bundle_id, app_store_id, platforms, probabilistic_minutes, view_through_hours,
                                      click_window_days, attest_policy, attest_environments, created_at, updated_at)
                    VALUES (\(app), \(workspace), 'A', 'ABCDE12345', \(bundle), \(storeId), 'ios', 0, 0, 7, 'off', 'production', \(at), \(at))
                    """)
            }
        }
        let applied = try await store.migrate(Schema.migrations)
        let (claims, apps) = try await store.read { db in
            (Dictionary(uniqueKeysWithValues: try db.query("SELECT identity, app_id FROM app_identities").map { (try $0.string("identity"), try $0.string("app_id")) }),
             try db.query("SELECT id FROM apps").count)
        }
        #expect(claims == ["store:111": "app_owner", "bundle:ABCDE12345.com.owner": "app_owner", "bundle:ABCDE12345.com.squat": "app_squat",
                           "store:222": "app_copy", "bundle:ABCDE12345.com.alone": "app_alone"])
        #expect(apps == 4)
        let notes = try await Schema.notes(afterApplying: applied, store)
        #expect(notes.count == 1 && notes[0].hasPrefix("2 apps") && notes[0].contains("app_squat") && notes[0].contains("app_copy"), "\(notes)")
        await store.close()
    }
}
