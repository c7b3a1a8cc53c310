import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayKit
import RunwayStore

/// `/v1/webhooks`: endpoints that hear about installs, events and clicks, and what was delivered to them.
struct WebhookHandlers: Sendable {
    let services: ServerServices

    func create(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let body = try request.decode(CreateWebhookRequest.self)
        let workspaceId = try principal.actingWorkspace(body.workspaceId)
        let url = try Validate.outboundURL(body.url, policy: services.outbound)
        guard !body.topics.isEmpty, Set(body.topics).isSubset(of: Webhooks.topics), Set(body.topics).count == body.topics.count else {
            throw RequestError.invalidField("topics", "must list some of install, event, click, each once")
        }
        let now = services.clock.nowMilliseconds()
        let endpoint = WebhookEndpoint(id: Identifier.make("whk"), workspaceId: workspaceId, url: url, topics: body.topics,
                                       enabled: true, createdAt: Timestamp.iso(now))
        let secret = "whsec_" + SecureRandom.string(length: 32, alphabet: SecureRandom.base62)
        let sealed = services.secretBox.seal(secret, purpose: Webhooks.secretPurpose)
        do {
            try await services.store.write { db in try WebhookQueries.insert(db, endpoint, sealedSecret: sealed, now: now) }
        } catch StoreError.constraint {
            throw RequestError.invalidField("workspaceId", "no workspace has this id")
        }
        services.webhookSubscriptions.forget(workspaceId: workspaceId)
        return try .json(CreatedWebhook(webhook: endpoint, secret: secret), status: 201)
    }

    func list(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let page = try PageRequest(request)
        let filter = try await principal.workspaceFilter(request, in: services.store)
        return try .json(await readPage(services.store, table: "webhooks", columns: WebhookRows.Endpoint.columns, filter: filter,
                                        page: page, as: WebhookRows.Endpoint.self, wire: \.wire, id: \.id))
    }

    func delete(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let id = try context.parameter("webhookId")
        let workspaceId: String = try await services.store.write { db in
            let workspaceId = try Self.workspace(of: id, db, principal)
            try WebhookQueries.delete(db, id: id)
            return workspaceId
        }
        services.webhookSubscriptions.forget(workspaceId: workspaceId)
        return HTTPResponse(status: 204)
    }

    func deliveries(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let id = try context.parameter("webhookId")
        let deliveries: [WebhookDelivery] = try await services.store.read { db in
            _ = try Self.workspace(of: id, db, principal)
            return try WebhookQueries.deliveries(db, webhookId: id)
        }
        return try .json(WebhookDeliveryList(items: deliveries))
    }

    /// Queues a signed `ping` to this endpoint alone, through the outbox every delivery takes; 202 with the delivery.
    func test(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let id = try context.parameter("webhookId")
        let now = services.clock.nowMilliseconds()
        return try await IdempotencyClaim.write(services.store, context) { db in
            let deliveryId = try Webhooks.ping(db, webhookId: id, workspaceId: try Self.workspace(of: id, db, principal), now: now)
            return try Self.accepted(deliveryId, of: id, db)
        }
    }

    /// Queues a delivered or failed delivery's body again as a new delivery with its own id and attempts, so the
    /// original keeps its history; 202 with the new delivery. A pending one is still being tried: 409.
    func redeliver(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let id = try context.parameter("webhookId"), originalId = try context.parameter("deliveryId")
        let now = services.clock.nowMilliseconds()
        return try await IdempotencyClaim.write(services.store, context) { db in
            let workspaceId = try Self.workspace(of: id, db, principal)
            guard let original = try WebhookQueries.delivery(db, id: originalId, webhookId: id) else {
                throw RequestError.notFound("webhook \(id) has no delivery \(originalId)")
            }
            guard original.delivery.status != "pending" else {
                throw WebhooksError.stillPending(deliveryId: originalId, nextAttemptAt: original.delivery.nextAttemptAt)
            }
            let deliveryId = Identifier.make("whd")
            try Webhooks.queue(db, id: deliveryId, webhookId: id, workspaceId: workspaceId, topic: original.delivery.topic, body: original.body, now: now)
            return try Self.accepted(deliveryId, of: id, db)
        }
    }

    /// The workspace of webhook `id`, once the principal may act in it; not found when there is no such webhook.
    private static func workspace(of id: String, _ db: any SQLExecutor, _ principal: Principal) throws -> String {
        guard let workspaceId = try WebhookQueries.workspace(db, id: id) else { throw RequestError.notFound("no webhook \(id)") }
        try principal.requireWorkspace(workspaceId)
        return workspaceId
    }

    /// 202 with delivery `deliveryId` as just queued.
    private static func accepted(_ deliveryId: String, of webhookId: String, _ db: any SQLExecutor) throws -> HTTPResponse {
        guard let queued = try WebhookQueries.delivery(db, id: deliveryId, webhookId: webhookId) else {
            throw RequestError.notFound("no delivery \(deliveryId)")
        }
        return try .json(queued.delivery, status: 202)
    }
}
