import Foundation
import RunwayCrypto
import RunwayHTTP
import RunwayOutbound
import RunwayStore

/// A table of queued HTTP POSTs (webhook deliveries, forwarded postbacks) and how to send one of its rows. The
/// table has `id`, `status` (pending, delivered, failed), `attempts`, `next_attempt_at`, `lease_until`,
/// `last_status`, `last_error` and `delivered_at`.
struct OutboxQueue: Sendable {
    /// One row to send.
    struct Item: Sendable {
        let id: String
        let url: String
        let body: [UInt8]
        let headers: [String: String]
        let attempts: Int64
    }

    let table: String
    /// The metric counting attempts by result.
    let metric: String
    /// Due rows (at most `limit`), read inside the claiming transaction; `box` opens the secrets they are signed with.
    let due: @Sendable (_ db: any SQLExecutor, _ now: Int64, _ limit: Int, _ box: SecretBox) throws -> [Item]
}

/// Sends what an outbox queue holds: a POST per row (`OutboundPost`: public addresses only unless the operator allows
/// private targets, no redirects); a 2xx answer within the timeout is a delivery, anything else is retried with
/// exponential backoff until `maxAttempts`, its short reason kept in `last_error`. Several server processes can run
/// dispatchers: each claims a row with a lease before sending it.
final class OutboxDispatcher: Sendable {
    struct Settings: Sendable {
        var pollInterval: Duration = .milliseconds(500)
        var baseDelayMilliseconds: Int64 = 10_000
        var maxDelayMilliseconds: Int64 = 3_600_000
        var maxAttempts = 12
        var timeoutSeconds: Double = 10
        var leaseMilliseconds: Int64 = 60_000
    }

    let services: ServerServices
    let queue: OutboxQueue
    let settings: Settings

    init(services: ServerServices, queue: OutboxQueue, settings: Settings = Settings()) {
        self.services = services
        self.queue = queue
        self.settings = settings
    }

    /// Runs until cancelled.
    func run() async {
        while !Task.isCancelled {
            do {
                while try await sendDue() > 0, !Task.isCancelled {}
            } catch {
                services.logger.warn("outbox dispatch failed", ["table": .string(queue.table), "error": .string("\(error)")])
            }
            try? await Task.sleep(for: settings.pollInterval)
        }
    }

    /// Claims and sends the rows that are due; returns how many it sent.
    func sendDue() async throws -> Int {
        let now = services.clock.nowMilliseconds()
        let lease = settings.leaseMilliseconds
        let queue = self.queue, box = services.secretBox
        let claimed: [OutboxQueue.Item] = try await services.store.write { db in
            try queue.due(db, now, 20, box).filter { item in
                try db.execute("""
                    UPDATE \(raw: queue.table) SET lease_until = \(now + lease)
                    WHERE id = \(item.id) AND status = 'pending' AND (lease_until IS NULL OR lease_until < \(now))
                    """) == 1
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for item in claimed {
                group.addTask { await self.send(item) }
            }
        }
        return claimed.count
    }

    private func send(_ item: OutboxQueue.Item) async {
        let status: Int?, failure: String?
        switch await OutboundPost.send(url: item.url, headers: item.headers, body: item.body, timeoutSeconds: settings.timeoutSeconds,
                                       policy: services.outbound) {
        case .delivered(let answered): (status, failure) = (answered, nil)
        case .failed(let reason, let answered): (status, failure) = (answered, reason)
        }
        let attempts = item.attempts + 1
        let now = services.clock.nowMilliseconds()
        let delay = min(settings.maxDelayMilliseconds, settings.baseDelayMilliseconds << min(Int64(attempts - 1), 20))
        let gaveUp = failure != nil && attempts >= Int64(settings.maxAttempts)
        let newStatus = failure == nil ? "delivered" : (gaveUp ? "failed" : "pending")
        let (answer, error) = (status.map(Int64.init), failure)
        let deliveredAt: Int64? = failure == nil ? now : nil
        let table = queue.table
        _ = try? await services.store.write { db in
            try db.execute("""
                UPDATE \(raw: table) SET status = \(newStatus), attempts = \(attempts), last_status = \(answer),
                    last_error = \(error), lease_until = NULL, next_attempt_at = \(now + delay), delivered_at = \(deliveredAt)
                WHERE id = \(item.id)
                """)
        }
        services.metrics.increment(queue.metric, labels: [("result", newStatus)])
    }
}
