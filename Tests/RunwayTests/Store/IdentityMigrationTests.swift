import Foundation
@testable import RunwayCapabilities
@testable import RunwayConsole
@testable import RunwayKit
@testable import RunwayServer
import RunwayOutbound
import RunwayStore
import RunwayTestKit
import Testing

/// Migration 0017: apps that already shared an App Store id or a team and bundle id across workspaces.
@Suite("App identities: the migration")
struct IdentityMigrationTests {
    static func insertApps(_ store: any Store) async throws {
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
    }

    @Test("the oldest app keeps a shared App Store id or bundle, the others are reported, and nothing is deleted", arguments: StoreBackend.all)
    func oldestKeeps(_ backend: StoreBackend) async throws {
        let location = try await backend.makeLocation()
        let store = try backend.open(location.url, nil)
        _ = try await store.migrate(Schema.migrations.filter { $0.id < "0017" })
        try await Self.insertApps(store)
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
        let changes = try await UpgradeFindings.sentences(store, outbound: OutboundPolicy())
        #expect(changes.count == 1 && changes[0].hasPrefix("3 app(s) name an App Store id they have not proven"), "no holder had a notification: \(changes)")
        await store.close()
    }

    /// Migration 0045: App Store ids are proven before postbacks follow them.
    @Test("a holder of an App Store id keeps it proven only with a verified production notification; other claims wait for proof", arguments: StoreBackend.all)
    func heldWithEvidence(_ backend: StoreBackend) async throws {
        let location = try await backend.makeLocation()
        let store = try backend.open(location.url, nil)
        _ = try await store.migrate(Schema.migrations.filter { $0.id < "0017" })
        try await Self.insertApps(store)
        _ = try await store.migrate(Schema.migrations.filter { $0.id < "0045" })
        try await store.write { db in
            for (surface, app, environment, status) in [("sf_1", "app_owner", "production", "ok"), ("sf_2", "app_copy", "sandbox", "ok"),
                                                         ("sf_3", "app_copy", "production", "ignored_non_production")] {
                try db.execute("INSERT INTO app_store_surfaces (id, workspace_id, app_id, environment, created_at) VALUES (\(surface), 'ws_a', \(app), \(environment), 0)")
                try db.execute("""
                    INSERT INTO app_store_notifications (surface_id, notification_uuid, notification_type, status, received_at)
                    VALUES (\(surface), 'n-1', 'DID_RENEW', \(status), 0)
                    """)
            }
        }
        let applied = try await store.migrate(Schema.migrations)
        #expect(applied == ["0045_app_store_id_claims"] || applied.first == "0045_app_store_id_claims")
        let claims = try await store.read { db in
            try db.query("SELECT app_store_id, app_id, proof FROM app_store_id_claims ORDER BY app_id").map {
                "\(try $0.string("app_store_id"))/\(try $0.string("app_id"))/\(try $0.optionalString("proof") ?? "-")"
            }
        }
        #expect(claims == ["222/app_copy/-", "111/app_owner/held_before_proofs", "111/app_squat/-"], "\(claims)")
        // Said at every start and by migrate: the app that lost the shared id to its proven holder, and the one waiting.
        let changes = try await UpgradeFindings.sentences(store, outbound: OutboundPolicy())
        #expect(changes.count == 2, "\(changes)")
        #expect(changes.first { $0.hasPrefix("1 app(s) name an App Store id another app proved") }?.contains("app_squat (App Store id 111, held by app_owner)") == true)
        #expect(changes.first { $0.hasPrefix("1 app(s) name an App Store id they have not proven") }?.contains("app_copy (App Store id 222)") == true)
        await store.close()
    }
}
