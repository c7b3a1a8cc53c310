import Foundation
import LinkRunwayAPI
@testable import RunwayCLI
import Testing

/// `webhook` commands against a real server whose dispatcher delivers to a receiver on loopback.
@Suite("CLI webhooks")
struct CLIWebhookTests {
    @Test("webhook test pings a real endpoint, deliveries read the short reason, redeliver sends the same body again, delete removes it")
    func webhookCommands() async throws {
        let (runtime, directory, environment) = try await CLITests.startServer(privateTargets: true)
        func run(_ arguments: [String]) async -> CLITests.Run { await CLITests.run(arguments, environment: environment) }
        let receiver = try WebhookTests.Receiver(failures: 1)
        let created = await run(["webhook", "create", "--url", receiver.url, "--topics", "install", "--json"])
        let hook = try JSONDecoder().decode(CreatedWebhook.self, from: Data(created.output.utf8)).webhook

        let failing = await run(["webhook", "test", hook.id])
        #expect(failing.status == 1 && failing.errors.contains("after 1 attempt(s): http_500"), "\(failing.output)\(failing.errors)")
        let listed = await run(["webhook", "deliveries", hook.id])
        let row = try #require(listed.output.split(separator: "\n").last { $0.contains("ping") })
        #expect(listed.output.hasPrefix("ID") && listed.output.contains("REASON"))
        #expect(row.contains(" 500 ") && row.contains(" http_500 "), "\(listed.output)")

        let passing = await run(["webhook", "test", hook.id, "--json"])
        #expect(passing.status == 0, "\(passing.errors)")
        let ping = try JSONDecoder().decode(WebhookDelivery.self, from: Data(passing.output.utf8))
        #expect(ping.status == "delivered" && ping.lastStatus == 204)
        #expect(await run(["webhook", "test", hook.id, "--wait", "0"]).output.contains("queued; not tried yet"))

        let redelivered = await run(["webhook", "redeliver", hook.id, ping.id])
        #expect(redelivered.status == 0 && redelivered.output.contains("a redelivery of \(ping.id) (ping)"), "\(redelivered.errors)")
        let copyId = try #require(redelivered.output.split(separator: " ").dropFirst().first.map { String($0.dropLast()) })  // "Queued whd_…, a …"
        let deadline = ContinuousClock.now + .seconds(10)
        while !receiver.requests.contains(where: { $0.headers["LinkRunway-Delivery"] == copyId }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        let first = try #require(receiver.requests.first { $0.headers["LinkRunway-Delivery"] == ping.id })
        let copy = try #require(receiver.requests.first { $0.headers["LinkRunway-Delivery"] == copyId })
        #expect(copy.body == first.body)
        #expect(await run(["webhook", "redeliver", hook.id]).status == 64)

        let deleted = await run(["webhook", "delete", hook.id])
        #expect(deleted.status == 0 && deleted.output.contains("Deleted \(hook.id)"))
        #expect(!(await run(["webhook", "list"])).output.contains(hook.id))
        let gone = await run(["webhook", "deliveries", hook.id])
        #expect(gone.status == 1 && gone.errors.contains("not_found"))
        await receiver.server.shutdown()
        await runtime.stop()
        _ = directory
    }

    @Test("a reason is one short cell, even the free text an older server kept")
    func shortReason() {
        func delivery(_ error: String?) -> WebhookDelivery {
            WebhookDelivery(id: "whd_1", webhookId: "whk_1", topic: "install", status: "failed", attempts: 12, lastStatus: nil, lastError: error,
                            nextAttemptAt: nil, createdAt: "2026-12-01T09:00:00Z", deliveredAt: nil)
        }
        #expect(WebhookCommands.reason(delivery("connect_failed")) == "connect_failed")
        #expect(WebhookCommands.reason(delivery(nil)) == "-")
        let legacy = WebhookCommands.reason(delivery("Error Domain=NSURLErrorDomain Code=-1004 \"Could not connect to the server.\"\nUserInfo={…}"))
        #expect(legacy == "Error Domain=NSURLErrorDomain Code=-100…" && legacy.count == 40, "\(legacy)")
    }
}
