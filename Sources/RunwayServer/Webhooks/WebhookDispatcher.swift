import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RunwayHTTP
import RunwayStore

/// Sends queued deliveries: a POST with the JSON body and a `LinkRunway-Signature` header; a 2xx answer within the
/// timeout is a delivery, anything else is retried with exponential backoff until `maxAttempts`. Several server
/// processes can run dispatchers: each claims a delivery with a lease before sending it.
final class WebhookDispatcher: Sendable {
    struct Settings: Sendable {
        var pollInterval: Duration = .milliseconds(500)
        var baseDelayMilliseconds: Int64 = 10_000
        var maxDelayMilliseconds: Int64 = 3_600_000
        var maxAttempts = 12
        var timeoutSeconds: Double = 10
        var leaseMilliseconds: Int64 = 60_000
    }

    let services: ServerServices
    let settings: Settings
    private let session: URLSession

    init(services: ServerServices, settings: Settings = Settings()) {
        self.services = services
        self.settings = settings
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = settings.timeoutSeconds
        configuration.timeoutIntervalForResource = settings.timeoutSeconds
        session = URLSession(configuration: configuration)
    }

    /// Runs until cancelled.
    func run() async {
        while !Task.isCancelled {
            do {
                while try await sendDue() > 0, !Task.isCancelled {}
            } catch {
                services.logger.warn("webhook dispatch failed", ["error": .string("\(error)")])
            }
            try? await Task.sleep(for: settings.pollInterval)
        }
    }

    /// Claims and sends the deliveries that are due; returns how many it sent.
    func sendDue() async throws -> Int {
        let now = services.clock.nowMilliseconds()
        let lease = settings.leaseMilliseconds
        let claimed: [(id: String, payload: String, url: String, secret: String, attempts: Int64)] = try await services.store.write { db in
            let due = try db.query("""
                SELECT d.id, d.payload, d.attempts, w.url, w.secret FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
                WHERE d.status = 'pending' AND d.next_attempt_at <= \(now) AND (d.lease_until IS NULL OR d.lease_until < \(now))
                ORDER BY d.next_attempt_at LIMIT 20
                """)
            return try due.compactMap { row in
                let id = try row.string("id")
                let taken = try db.execute("""
                    UPDATE webhook_deliveries SET lease_until = \(now + lease)
                    WHERE id = \(id) AND (lease_until IS NULL OR lease_until < \(now))
                    """)
                guard taken == 1 else { return nil }
                return (id, try row.string("payload"), try row.string("url"), try row.string("secret"), try row.int("attempts"))
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for delivery in claimed {
                group.addTask { await self.send(delivery) }
            }
        }
        return claimed.count
    }

    private func send(_ delivery: (id: String, payload: String, url: String, secret: String, attempts: Int64)) async {
        let timestamp = Int64(services.clock.now().timeIntervalSince1970)
        var status: Int?
        var failure: String?
        if let url = URL(string: delivery.url) {
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.httpBody = Data(delivery.payload.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue("LinkRunway-Webhooks/1", forHTTPHeaderField: "User-Agent")
            request.setValue(delivery.id, forHTTPHeaderField: "LinkRunway-Delivery")
            request.setValue(Webhooks.signature(secret: delivery.secret, timestamp: timestamp, body: delivery.payload),
                             forHTTPHeaderField: "LinkRunway-Signature")
            do {
                let (_, response) = try await session.data(for: request)
                status = (response as? HTTPURLResponse)?.statusCode
                if !(200..<300).contains(status ?? 0) { failure = "HTTP \(status ?? 0)" }
            } catch {
                failure = String(describing: error).prefix(300).description
            }
        } else {
            failure = "invalid URL"
        }
        let attempts = delivery.attempts + 1
        let now = services.clock.nowMilliseconds()
        let delay = min(settings.maxDelayMilliseconds, settings.baseDelayMilliseconds << min(Int64(attempts - 1), 20))
        let gaveUp = failure != nil && attempts >= Int64(settings.maxAttempts)
        let newStatus = failure == nil ? "delivered" : (gaveUp ? "failed" : "pending")
        let (answer, error) = (status.map(Int64.init), failure)
        let deliveredAt: Int64? = failure == nil ? now : nil
        _ = try? await services.store.write { db in
            try db.execute("""
                UPDATE webhook_deliveries SET status = \(newStatus), attempts = \(attempts), last_status = \(answer),
                    last_error = \(error), lease_until = NULL, next_attempt_at = \(now + delay), delivered_at = \(deliveredAt)
                WHERE id = \(delivery.id)
                """)
        }
        services.metrics.increment("linkrunway_webhook_attempts_total", labels: [("result", newStatus)])
    }
}
