import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
import RunwayHTTP
@testable import RunwayKit
@testable import RunwayServer
import RunwayTestKit
import Testing

/// Test pings and redeliveries: queued through the same outbox and signature as every delivery, on both backends.
@Suite("Webhook tests and redeliveries")
struct WebhookActionTests {
    typealias Receiver = WebhookTests.Receiver

    static func endpoint(_ w: MatchingTests.World, _ receiver: Receiver) async throws -> CreatedWebhook {
        try await w.server.admin.post("/v1/webhooks", json: #"{"workspaceId":"\#(w.server.defaultWorkspace.id)","url":"\#(receiver.url)","topics":["install"]}"#)
            .decoded(CreatedWebhook.self, status: 201)
    }

    static func deliveries(_ w: MatchingTests.World, _ webhookId: String) async throws -> [WebhookDelivery] {
        try await w.server.admin.get("/v1/webhooks/\(webhookId)/deliveries").decoded(WebhookDeliveryList.self).items
    }

    struct Envelope: Decodable {
        struct Ping: Decodable { let webhookId: String }
        let id: String
        let topic: String
        let data: Ping
    }

    @Test("a test sends a signed ping to that endpoint alone, through the outbox, and answers 202 with the delivery to follow",
          arguments: StoreBackend.all)
    func ping(_ backend: StoreBackend) async throws {
        let w = try await MatchingTests.world(backend, outbound: WebhookTests.privateNetwork)
        let (tested, other) = (try Receiver(failures: 0), try Receiver(failures: 0))
        let hook = try await Self.endpoint(w, tested)
        _ = try await Self.endpoint(w, other)
        let queued = try await w.server.admin.post("/v1/webhooks/\(hook.webhook.id)/test", json: "").decoded(WebhookDelivery.self, status: 202)
        #expect(queued.topic == "ping" && queued.status == "pending" && queued.attempts == 0 && queued.webhookId == hook.webhook.id)
        #expect(try await Self.deliveries(w, hook.webhook.id).map(\.id) == [queued.id])

        let dispatcher = OutboxDispatcher(services: w.server.services, queue: Webhooks.outbox, settings: .init(baseDelayMilliseconds: 0, timeoutSeconds: 60))
        #expect(try await dispatcher.sendDue() == 1)
        let request = try #require(tested.requests.first)
        #expect(tested.requests.count == 1 && other.requests.isEmpty, "only the tested endpoint hears the ping")
        _ = try WebhookTests.signedAt(request, secret: hook.secret)
        let body = try JSONDecoder().decode(Envelope.self, from: Data(request.body))
        #expect(body.topic == "ping" && body.id == queued.id && body.data.webhookId == hook.webhook.id)
        #expect(request.headers["LinkRunway-Delivery"] == queued.id)
        let delivered = try #require(try await Self.deliveries(w, hook.webhook.id).first)
        #expect(delivered.id == queued.id && delivered.status == "delivered" && delivered.lastStatus == 204)

        #expect(await w.server.admin.post("/v1/webhooks/whk_nope/test", json: "").errorCode == "not_found")
        let foreign = try await w.server.createKey(.server, workspace: try await w.server.createWorkspace("Other").id).secret
        let refused = await w.server.client(foreign).post("/v1/webhooks/\(hook.webhook.id)/test", json: "")
        #expect(refused.status == 403 && refused.errorCode == "workspace_forbidden")
        #expect(try await Self.deliveries(w, hook.webhook.id).count == 1, "a refused test queues nothing")
        await tested.server.shutdown()
        await other.server.shutdown()
        await w.server.stop()
    }

    @Test("a redelivery is a new delivery of the same body; the original keeps its history, and a pending one is refused",
          arguments: StoreBackend.all)
    func redeliver(_ backend: StoreBackend) async throws {
        let w = try await MatchingTests.world(backend, outbound: WebhookTests.privateNetwork)
        let receiver = try Receiver(failures: 1)
        let hook = try await Self.endpoint(w, receiver)
        _ = try await MatchingTests.match(w, install: "redelivered")
        let original = try #require(try await Self.deliveries(w, hook.webhook.id).first)
        let path = "/v1/webhooks/\(hook.webhook.id)/deliveries/\(original.id)/redeliver"
        let pending = await w.server.admin.post(path, json: "")
        #expect(pending.status == 409 && pending.errorCode == "conflict", "a pending delivery is still being tried")

        let giveUp = OutboxDispatcher(services: w.server.services, queue: Webhooks.outbox, settings: .init(baseDelayMilliseconds: 0, maxAttempts: 1, timeoutSeconds: 60))
        #expect(try await giveUp.sendDue() == 1)
        let failed = try #require(try await Self.deliveries(w, hook.webhook.id).first)
        #expect(failed.status == "failed" && failed.lastError == "http_500")

        let key = [("Idempotency-Key", "redeliver-once")]
        let copy = try await w.server.admin.send("POST", path, headers: key).decoded(WebhookDelivery.self, status: 202)
        let retried = await w.server.admin.send("POST", path, headers: key)
        #expect(retried.headers["Idempotent-Replayed"] == "true")
        #expect(try retried.decoded(WebhookDelivery.self, status: 202) == copy)
        #expect(copy.id != original.id && copy.topic == "install" && copy.status == "pending" && copy.attempts == 0)
        #expect(try await giveUp.sendDue() == 1)
        let listed = try await Self.deliveries(w, hook.webhook.id)
        #expect(listed.count == 2, "one copy for two keyed requests")
        #expect(listed.first { $0.id == original.id } == failed, "the original keeps its attempts and reason")
        #expect(listed.first { $0.id == copy.id }?.status == "delivered")

        let (first, second) = (receiver.requests[0], receiver.requests[1])
        #expect(second.body == first.body, "the same body, whose id names the first delivery")
        #expect(first.headers["LinkRunway-Delivery"] == original.id && second.headers["LinkRunway-Delivery"] == copy.id)
        _ = try WebhookTests.signedAt(second, secret: hook.secret)
        // A delivered one may be sent again too.
        #expect(await w.server.admin.post("/v1/webhooks/\(hook.webhook.id)/deliveries/\(copy.id)/redeliver", json: "").status == 202)

        let elsewhere = try await Self.endpoint(w, receiver)
        #expect(await w.server.admin.post("/v1/webhooks/\(elsewhere.webhook.id)/deliveries/\(original.id)/redeliver", json: "").errorCode == "not_found",
                "a delivery is redelivered only through its own endpoint")
        #expect(await w.server.admin.post("/v1/webhooks/\(hook.webhook.id)/deliveries/whd_nope/redeliver", json: "").errorCode == "not_found")
        let foreign = try await w.server.createKey(.server, workspace: try await w.server.createWorkspace("Other").id).secret
        #expect(await w.server.client(foreign).post(path, json: "").errorCode == "workspace_forbidden")
        await receiver.server.shutdown()
        await w.server.stop()
    }
}
