import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayOutbound
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

/// What an earlier release stored that this version treats differently is said at start and by `linkrunway migrate`.
@Suite("Upgrade findings")
struct UpgradeFindingsTests {
    /// A webhook and a postback forward an earlier release accepted and the outbound policy refuses, and one it allows.
    static func storeRefusedTargets(_ store: any Store) async throws {
        try await store.write { db in
            let workspace = try db.first("SELECT id FROM workspaces ORDER BY created_at LIMIT 1")!.string("id")
            for (id, url) in [("wh_loopback", "http://127.0.0.1:9000/hook?token=s3cret"), ("wh_public", "https://hooks.example.com/in")] {
                try db.execute("""
                    INSERT INTO webhooks (id, workspace_id, url, secret, topics, enabled, created_at)
                    VALUES (\(id), \(workspace), \(url), 'whsec_x', 'install.attributed', 1, 0)
                    """)
            }
            try db.execute("""
                INSERT INTO apps (id, workspace_id, name, team_id, bundle_id, platforms, probabilistic_minutes, view_through_hours,
                                  click_window_days, attest_policy, attest_environments, postback_settings, created_at, updated_at)
                VALUES ('app_forwarder', \(workspace), 'F', 'ABCDE12345', 'com.example.forward', 'ios', 0, 0, 7, 'off', 'production',
                        '{"acceptDevelopment":false,"forwardUrls":["https://10.1.2.3/pb","https://partner.example.com/pb"],"campaigns":[]}', 0, 0)
                """)
        }
    }

    @Test("webhooks and postback forwards the outbound policy refuses are named at every start, by host and never by path")
    func refusedTargetsAtStart() async throws {
        let directory = TemporaryDirectory()
        var configuration = ServerConfiguration(database: .sqlite(path: directory.path("up.db")))
        configuration.http.port = 0
        configuration.logLevel = .warn
        let first = try await ServerRuntime.start(configuration, logSink: .memory())
        try await Self.storeRefusedTargets(first.services.store)
        await first.stop()

        let sink = LogSink.memory()
        let second = try await ServerRuntime.start(configuration, logSink: sink)
        // A server allowed to reach private networks sends to them: nothing to say.
        let allowed = try await UpgradeFindings.sentences(second.services.store, outbound: OutboundPolicy(allowPrivateTargets: true))
        #expect(allowed.isEmpty, "\(allowed)")
        await second.stop()
        let webhooks = sink.lines.first { $0.contains("webhook(s) send to a URL this server refuses") }
        #expect(webhooks?.contains("1 webhook(s)") == true && webhooks?.contains("wh_loopback (127.0.0.1: must be an https:// URL)") == true,
                "\(sink.lines)")
        #expect(webhooks?.contains("wh_public") == false)
        let forwards = sink.lines.first { $0.contains("postback forwarding URL(s)") }
        #expect(forwards?.contains("1 postback forwarding URL(s)") == true && forwards?.contains("app_forwarder (10.1.2.3:") == true, "\(sink.lines)")
        #expect(!sink.lines.joined().contains("s3cret") && !sink.lines.joined().contains("/hook"), "a URL's path and query are never logged")

        let migrate = await CLITests.run(["migrate", "--database-url", "sqlite:\(directory.path("up.db"))"])
        #expect(migrate.status == 0 && migrate.output.contains("up to date") && migrate.output.contains("wh_loopback (127.0.0.1"), "\(migrate.output)")
    }
}
