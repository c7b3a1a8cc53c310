import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayHTTPServer
@testable import RunwayServer
import Synchronization
import Testing

@Suite("Webhooks")
struct WebhookTests {
    /// A real HTTP endpoint on loopback that records what it receives and fails the first `failures` deliveries.
    final class Receiver: Sendable {
        let server: HTTPServer
        private let received = Mutex<[HTTPRequest]>([])
        private let remainingFailures: Mutex<Int>

        init(failures: Int) throws {
            remainingFailures = Mutex(failures)
            var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: 1)
            configuration.maxConnectionsPerAddress = 0
            let box = Box()
            server = HTTPServer(configuration: configuration, logger: Logger(level: .error, sink: .memory())) { request in
                box.receiver?.handle(request) ?? HTTPResponse(status: 503)
            }
            box.receiver = self
            try server.start()
        }

        final class Box: @unchecked Sendable { weak var receiver: Receiver? }

        func handle(_ request: HTTPRequest) -> HTTPResponse {
            received.withLock { $0.append(request) }
            let fail = remainingFailures.withLock { remaining -> Bool in
                defer { remaining -= 1 }
                return remaining > 0
            }
            return HTTPResponse(status: fail ? 500 : 204)
        }

        var requests: [HTTPRequest] { received.withLock { $0 } }
        var url: String { "http://127.0.0.1:\(server.port)/hook" }
    }

    @Test("deliveries are queued with the install, signed, retried with backoff until they land, and visible")
    func deliveryAndRetry() async throws {
        let w = try await MatchingTests.world()
        let receiver = try Receiver(failures: 1)
        let created = try await w.server.admin.post("/v1/webhooks", json: #"{"workspaceId":"\#(w.server.defaultWorkspace.id)","url":"\#(receiver.url)","topics":["install","event"]}"#)
            .decoded(CreatedWebhook.self, status: 201)
        #expect(created.secret.hasPrefix("whsec_"))
        let match = try await MatchingTests.match(w, install: "hooked")
        // Queued in the same transaction as the install: there before any dispatcher ran.
        let queued = try await w.server.admin.get("/v1/webhooks/\(created.webhook.id)/deliveries").decoded(WebhookDeliveryList.self)
        #expect(queued.items.map(\.status) == ["pending"])

        let dispatcher = OutboxDispatcher(services: w.server.services, queue: Webhooks.outbox, settings: .init(baseDelayMilliseconds: 0, maxAttempts: 5))
        #expect(try await dispatcher.sendDue() == 1)
        #expect(try await w.server.admin.get("/v1/webhooks/\(created.webhook.id)/deliveries").decoded(WebhookDeliveryList.self).items[0].lastStatus == 500)
        #expect(try await dispatcher.sendDue() == 1)
        let delivered = try await w.server.admin.get("/v1/webhooks/\(created.webhook.id)/deliveries").decoded(WebhookDeliveryList.self).items[0]
        #expect(delivered.status == "delivered")
        #expect(delivered.attempts == 2)
        #expect(delivered.lastStatus == 204)
        #expect(try await dispatcher.sendDue() == 0, "nothing is sent twice")

        let requests = receiver.requests
        #expect(requests.count == 2)
        let last = try #require(requests.last)
        #expect(last.body == requests[0].body, "a retry sends the same body")
        let signature = try #require(last.headers["LinkRunway-Signature"])
        let parts = Dictionary(uniqueKeysWithValues: signature.split(separator: ",").map { part -> (String, String) in
            let pair = part.split(separator: "=", maxSplits: 1)
            return (String(pair[0]), String(pair[1]))
        })
        let expected = ByteEncoding.hex(Digest.hmacSHA256(key: Array(created.secret.utf8), message: Array("\(parts["t"]!).".utf8) + last.body))
        #expect(parts["v1"] == expected)
        let body = try JSONDecoder().decode(WebhookBody.self, from: Data(last.body))
        #expect(body.topic == "install")
        #expect(body.data == match)
        #expect(last.headers["LinkRunway-Delivery"] == body.id)
        await receiver.server.shutdown()
        await w.server.stop()
    }

    @Test("a delivery that keeps failing is given up after the last attempt")
    func givingUp() async throws {
        let w = try await MatchingTests.world()
        let receiver = try Receiver(failures: 100)
        let created = try await w.server.admin.post("/v1/webhooks", json: #"{"workspaceId":"\#(w.server.defaultWorkspace.id)","url":"\#(receiver.url)","topics":["event"]}"#)
            .decoded(CreatedWebhook.self, status: 201)
        _ = try await MatchingTests.match(w, install: "hooked")
        _ = try await w.server.client(w.key).post("/v1/events", json: EventTests.event("w1", install: "hooked")).decoded(EventResult.self, status: 201)
        let dispatcher = OutboxDispatcher(services: w.server.services, queue: Webhooks.outbox, settings: .init(baseDelayMilliseconds: 0, maxAttempts: 3))
        for _ in 0..<5 { _ = try await dispatcher.sendDue() }
        let items = try await w.server.admin.get("/v1/webhooks/\(created.webhook.id)/deliveries").decoded(WebhookDeliveryList.self).items
        #expect(items.count == 1, "only the event topic was asked for")
        #expect(items[0].status == "failed")
        #expect(items[0].attempts == 3)
        #expect(receiver.requests.count == 3)
        await receiver.server.shutdown()
        await w.server.stop()
    }

    @Test("click webhooks announce clicks, never the address")
    func clickTopic() async throws {
        let w = try await MatchingTests.world()
        let receiver = try Receiver(failures: 0)
        _ = try await w.server.admin.post("/v1/webhooks", json: #"{"workspaceId":"\#(w.server.defaultWorkspace.id)","url":"\#(receiver.url)","topics":["click"]}"#)
            .decoded(CreatedWebhook.self, status: 201)
        _ = await w.server.follow("/promo", userAgent: UserAgents.iPhone)
        let dispatcher = OutboxDispatcher(services: w.server.services, queue: Webhooks.outbox, settings: .init(baseDelayMilliseconds: 0))
        #expect(try await dispatcher.sendDue() == 1)
        let body = try #require(receiver.requests.first).body
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains(#""topic":"click""#) && text.contains(w.link.id))
        #expect(!text.contains("203.0.113.7"))
        let hash = try await w.server.store.read { try $0.first("SELECT address_hash FROM clicks")!.string("address_hash") }
        #expect(!text.contains(hash))
        await receiver.server.shutdown()
        await w.server.stop()
    }

    @Test("endpoints must be https (plain http only to this machine) and name known topics")
    func validation() async throws {
        let w = try await MatchingTests.world()
        let ws = w.server.defaultWorkspace.id
        #expect(await w.server.admin.post("/v1/webhooks", json: #"{"workspaceId":"\#(ws)","url":"http://example.com/h","topics":["install"]}"#).errorField == "url")
        #expect(await w.server.admin.post("/v1/webhooks", json: #"{"workspaceId":"\#(ws)","url":"https://example.com/h","topics":["purchase"]}"#).errorField == "topics")
        #expect(await w.server.admin.post("/v1/webhooks", json: #"{"workspaceId":"\#(ws)","url":"https://example.com/h","topics":[]}"#).errorField == "topics")
        let listed = try await w.server.admin.get("/v1/webhooks").decoded(Page<WebhookEndpoint>.self)
        #expect(listed.items.isEmpty)
        await w.server.stop()
    }

    struct WebhookBody: Decodable {
        let id: String
        let topic: String
        let data: InstallMatch
    }
}
