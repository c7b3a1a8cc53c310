import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayKit
@testable import RunwayServer
import RunwayTestKit
import Synchronization
import Testing

@Suite("Workers")
struct ServiceGroupTests {
    final class Log: Sendable {
        let entries = Mutex<[String]>([])
    }

    /// A service that records when it starts and when it has seen its cancellation.
    struct Recording: Service {
        let name: String
        let log: Log
        let started: AsyncStream<Void>.Continuation

        func run() async {
            log.entries.withLock { $0.append("start \(name)") }
            started.yield()
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(60)) }
            // Slower than the next service's cancellation would be: a stop that did not await this one would log out of order.
            try? await Task.sleep(for: .milliseconds(20))
            log.entries.withLock { $0.append("stop \(name)") }
        }
    }

    @Test("a group starts every service and stops them last first, each finished before the next is cancelled; a second stop finds none")
    func startAndStopOrder() async throws {
        let log = Log()
        let (started, continuation) = AsyncStream.makeStream(of: Void.self)
        let group = ServiceGroup(["a", "b", "c"].map { Recording(name: $0, log: log, started: continuation) })
        var iterator = started.makeAsyncIterator()
        for _ in 0..<3 { await iterator.next() }
        #expect(Set(log.entries.withLock { $0 }) == ["start a", "start b", "start c"])
        #expect(group.names == ["a", "b", "c"])

        await group.stop()
        #expect(log.entries.withLock { Array($0.dropFirst(3)) } == ["stop c", "stop b", "stop a"])
        #expect(group.names.isEmpty)
        await group.stop()
        #expect(log.entries.withLock { $0.count } == 6)
    }

    @Test("the composition runs each capability's workers and the hourly upkeep; the server's own webhook worker delivers, and stops")
    func composedWorkers() async throws {
        let w = try await MatchingTests.world(outbound: WebhookTests.privateNetwork)
        #expect(w.server.workers.map(\.name) == ["webhook_deliveries", "apple_ads_claims", "postback_forwards", "maintenance"])

        let receiver = try WebhookTests.Receiver(failures: 0)
        let created = try await w.server.admin.post("/v1/webhooks", CreateWebhookRequest(workspaceId: w.server.defaultWorkspace.id, url: receiver.url, topics: ["install"]))
            .decoded(CreatedWebhook.self, status: 201)
        _ = try await MatchingTests.match(w, install: "worked")
        let group = ServiceGroup(w.server.workers)
        var delivered: [String] = []
        for _ in 0..<200 where delivered != ["delivered"] {
            try await Task.sleep(for: .milliseconds(50))
            delivered = try await w.server.admin.get("/v1/webhooks/\(created.webhook.id)/deliveries").decoded(WebhookDeliveryList.self).items.map(\.status)
        }
        await group.stop()
        #expect(delivered == ["delivered"])
        #expect(receiver.requests.count == 1)
        await receiver.server.shutdown()
        await w.server.stop()
    }
}
