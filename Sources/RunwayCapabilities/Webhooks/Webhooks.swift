import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayJSON
import RunwayKit
import RunwayOutbound
import RunwayStore
import Synchronization

/// Webhook deliveries are rows written in the same transaction as what they announce, so an acknowledged install,
/// event or click is never announced twice or lost; the dispatcher sends them later.
package enum Webhooks {
    package static let topics = WebhookEndpoint.topics

    /// An enabled endpoint: its id and topics.
    struct Subscription: Sendable {
        let id: String
        let topics: [Substring]
    }

    /// The workspace's enabled endpoints.
    static func subscriptions(_ db: any SQLExecutor, workspaceId: String) throws -> [Subscription] {
        try WebhookQueries.subscriptions(db, workspaceId: workspaceId).map { Subscription(id: $0.id, topics: $0.topics.split(separator: ",")) }
    }

    /// Queues one delivery per enabled endpoint of the workspace that listens to `topic`; the payload is made only
    /// when one does (it is made inside the single writer's transaction).
    static func enqueue<Payload: Encodable>(_ db: any SQLExecutor, workspaceId: String, topic: String, payload makePayload: @autoclosure () -> Payload,
                                            now: Int64, subscriptions: [Subscription]? = nil) throws {
        let listening = try (subscriptions ?? Self.subscriptions(db, workspaceId: workspaceId)).filter { $0.topics.contains(Substring(topic)) }
        guard !listening.isEmpty else { return }
        let payload = makePayload()
        for endpoint in listening {
            let id = Identifier.make("whd")
            try queue(db, id: id, webhookId: endpoint.id, workspaceId: workspaceId, topic: topic,
                      body: try envelope(id: id, topic: topic, payload: payload, now: now), now: now)
        }
    }

    /// Queues a `ping` to webhook `webhookId` alone, signed and sent like any delivery; returns the delivery's id.
    static func ping(_ db: any SQLExecutor, webhookId: String, workspaceId: String, now: Int64) throws -> String {
        let id = Identifier.make("whd")
        try queue(db, id: id, webhookId: webhookId, workspaceId: workspaceId, topic: pingTopic,
                  body: try envelope(id: id, topic: pingTopic, payload: Ping(webhookId: webhookId), now: now), now: now)
        return id
    }

    /// The topic of test deliveries; no endpoint subscribes to it, `POST /v1/webhooks/{id}/test` sends it.
    static let pingTopic = "ping"

    /// The `data` of a ping.
    struct Ping: Encodable {
        let webhookId: String
    }

    /// One row of the outbox, due now: `body` is sent as it is, and `id` is its `LinkRunway-Delivery`.
    static func queue(_ db: any SQLExecutor, id: String, webhookId: String, workspaceId: String, topic: String, body: String, now: Int64) throws {
        try WebhookQueries.insertDelivery(db, id: id, webhookId: webhookId, workspaceId: workspaceId, topic: topic, body: body, now: now)
    }

    /// `{"id","topic","createdAt","data"}`.
    static func envelope<Payload: Encodable>(id: String, topic: String, payload: Payload, now: Int64) throws -> String {
        String(decoding: try CompactJSONEncoder().encode(WebhookEnvelope(id: id, topic: topic, createdAt: Timestamp.iso(now), data: payload)),
               as: UTF8.self)
    }

    /// Webhook deliveries: the JSON payload with `LinkRunway-Delivery` and `LinkRunway-Signature` headers.
    package static let outbox = OutboxQueue(table: "webhook_deliveries", metric: "linkrunway_webhook_attempts_total") { db, now, limit, box in
        let timestamp = now / 1000
        return try WebhookQueries.due(db, now: now, limit: limit).map { due in
            OutboxQueue.Item(id: due.id, url: due.url, body: Array(due.payload.utf8), headers: [
                "Content-Type": "application/json", "User-Agent": "LinkRunway-Webhooks/1", "LinkRunway-Delivery": due.id,
                "LinkRunway-Signature": signature(secret: try box.reveal(due.secret, purpose: secretPurpose), timestamp: timestamp, body: due.payload),
            ], attempts: due.attempts)
        }
    }

    /// What a webhook's secret is sealed for.
    static let secretPurpose = "webhooks.secret"

    /// `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" under the endpoint's secret>`.
    static func signature(secret: String, timestamp: Int64, body: String) -> String {
        let mac = Digest.hmacSHA256(key: Array(secret.utf8), message: Array("\(timestamp).\(body)".utf8))
        return "t=\(timestamp),v1=\(ByteEncoding.hex(mac))"
    }
}

/// The body of every delivery.
struct WebhookEnvelope<Payload: Encodable>: Encodable {
    let id: String
    let topic: String
    let createdAt: String
    let data: Payload
}

/// Which endpoints each workspace has, cached for five seconds so that every click does not ask the database (an
/// endpoint added through another process hears of clicks within five seconds).
final class SubscriptionCache: Sendable {
    private let store: any Store
    private let entries: ExpiringCache<[Webhooks.Subscription]>

    init(store: any Store, clock: MonotonicClock = .system) {
        self.store = store
        entries = ExpiringCache(clock: clock, ttl: .seconds(5), limit: 10_000)
    }

    func subscriptions(workspaceId: String) async throws -> [Webhooks.Subscription] {
        try await entries.value(workspaceId) { [store] in
            try await store.read { db in try Webhooks.subscriptions(db, workspaceId: workspaceId) }
        } ?? []
    }

    /// The cached subscriptions if they are fresh; nil when only `subscriptions(workspaceId:)` can tell.
    func cachedSubscriptions(workspaceId: String) -> [Webhooks.Subscription]? {
        guard case .some(let subscriptions?) = entries.peek(workspaceId) else { return nil }
        return subscriptions
    }

    func forget(workspaceId: String) { entries.remove(workspaceId) }
}

extension SubscriptionCache: SharedObject {
    convenience init(_ services: ServerServices) {
        self.init(store: services.store, clock: services.monotonic)
    }
}

extension ServerServices {
    /// The server's cache of webhook subscriptions.
    var webhookSubscriptions: SubscriptionCache { shared(SubscriptionCache.self) }
}
