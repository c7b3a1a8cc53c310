import Foundation
import RunwayCrypto
import RunwayHTTP
import RunwayOutbound
import RunwayStore
import Synchronization

/// A table of queued HTTP POSTs (webhook deliveries, forwarded postbacks) and how to send one of its rows. The
/// table has `id`, `status` (pending, delivered, failed), `attempts`, `next_attempt_at`, `lease_until`,
/// `last_status`, `last_error` and `delivered_at`.
package struct OutboxQueue: Sendable {
    /// One row to send.
    package struct Item: Sendable {
        package let id: String
        package let url: String
        package let body: [UInt8]
        package let headers: [String: String]
        package let attempts: Int64

        package init(id: String, url: String, body: [UInt8], headers: [String: String], attempts: Int64) {
            self.id = id
            self.url = url
            self.body = body
            self.headers = headers
            self.attempts = attempts
        }
    }

    package let table: String
    /// The metric counting attempts by result.
    package let metric: String
    /// Due rows (at most `limit`), read inside the claiming transaction; `box` opens the secrets they are signed with.
    package let due: @Sendable (_ db: any SQLExecutor, _ now: Int64, _ limit: Int, _ box: SecretBox) throws -> [Item]

    package init(table: String, metric: String,
                 due: @escaping @Sendable (_ db: any SQLExecutor, _ now: Int64, _ limit: Int, _ box: SecretBox) throws -> [Item]) {
        self.table = table
        self.metric = metric
        self.due = due
    }
}

/// Sends what an outbox queue holds: a POST per row (`OutboundPost`: public addresses only unless the operator allows
/// private targets, no redirects); a 2xx answer within the timeout is a delivery, anything else is retried with
/// exponential backoff until `maxAttempts`, its short reason kept in `last_error`. Several server processes can run
/// dispatchers: each claims a row with a lease before sending it.
package final class OutboxDispatcher: Service {
    package struct Settings: Sendable {
        package var pollInterval: Duration = .milliseconds(500)
        package var baseDelayMilliseconds: Int64 = 10_000
        package var maxDelayMilliseconds: Int64 = 3_600_000
        package var maxAttempts = 12
        package var timeoutSeconds: Double = 10
        package var leaseMilliseconds: Int64 = 60_000
    }

    package let services: ServerServices
    package let queue: OutboxQueue
    package let settings: Settings
    /// The targets whose refusal by the outbound policy this dispatcher has logged: once each, so an endpoint the
    /// operator's policy no longer allows (stored before an upgrade tightened it) shows in the log without a line per
    /// attempt. Bounded, so endpoints a tenant makes up cannot grow it.
    private let refusedTargets = Mutex<Set<String>>([])

    package init(services: ServerServices, queue: OutboxQueue, settings: Settings = Settings()) {
        self.services = services
        self.queue = queue
        self.settings = settings
    }

    /// The queue's table.
    package var name: String { queue.table }

    /// Runs until cancelled.
    package func run() async {
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
    package func sendDue() async throws -> Int {
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
        if let failure, failure.hasPrefix("blocked_") { logRefusal(of: item.url, reason: failure) }
    }

    /// The first refusal of a target: its host and why, never its path or query (which may hold a tenant's token).
    private func logRefusal(of url: String, reason: String) {
        let first = refusedTargets.withLock { seen in seen.count < 10_000 && seen.insert(url).inserted }
        guard first else { return }
        services.logger.warn("outbound delivery refused by the outbound policy", [
            "table": .string(queue.table), "reason": .string(reason), "host": .string(URLComponents(string: url)?.host ?? "(none)"),
        ])
    }
}
