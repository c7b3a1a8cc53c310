import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayStore

/// `/v1/webhooks`: endpoints that hear about installs, events and clicks, and what was delivered to them.
enum WebhookRoutes {
    static let columns = "id, workspace_id, url, topics, enabled, created_at"

    static func routes(_ services: ServerServices) -> [Route] {
        services.metrics.declareCounter("linkrunway_webhook_attempts_total", help: "Webhook delivery attempts, by the status they left.")
        return [
            Route(method: .POST, pattern: "/v1/webhooks", operation: Operation(
                id: "createWebhook", summary: "Register an endpoint; the secret that signs its deliveries is in this response only",
                tag: "Webhooks", access: Access.management, requestSchema: "CreateWebhookRequest",
                responses: [.json(201, "CreatedWebhook", "The endpoint and its signing secret.")], maxBodyBytes: 8 * 1024)
            ) { request, context in
                let principal = try context.principal()
                let body = try request.decode(CreateWebhookRequest.self)
                guard let workspaceId = body.workspaceId ?? principal.workspaceId else {
                    throw HTTPError.badRequest(ErrorCode.missingField, "workspaceId is required with an admin key", field: "workspaceId")
                }
                try principal.requireWorkspace(workspaceId)
                let url = try Webhooks.validURL(body.url, policy: services.outbound)
                guard !body.topics.isEmpty, Set(body.topics).isSubset(of: Webhooks.topics), Set(body.topics).count == body.topics.count else {
                    throw HTTPError.invalidField("topics", "must list some of install, event, click, each once")
                }
                let now = services.clock.nowMilliseconds()
                let endpoint = WebhookEndpoint(id: Identifier.make("whk"), workspaceId: workspaceId, url: url, topics: body.topics,
                                               enabled: true, createdAt: Timestamp.iso(now))
                let secret = "whsec_" + SecureRandom.string(length: 32, alphabet: SecureRandom.base62)
                let sealed = services.secretBox.seal(secret, purpose: Webhooks.secretPurpose)
                do {
                    try await services.store.write { db in
                        try db.execute("""
                            INSERT INTO webhooks (id, workspace_id, url, secret, topics, enabled, created_at)
                            VALUES (\(endpoint.id), \(workspaceId), \(url), \(sealed), \(body.topics.joined(separator: ",")), 1, \(now))
                            """)
                    }
                } catch StoreError.constraint {
                    throw HTTPError.invalidField("workspaceId", "no workspace has this id")
                }
                services.webhookSubscriptions.forget(workspaceId: workspaceId)
                return try .json(CreatedWebhook(webhook: endpoint, secret: secret), status: 201)
            },

            Route(method: .GET, pattern: "/v1/webhooks", operation: Operation(
                id: "listWebhooks", summary: "List webhook endpoints (never their secrets)", tag: "Webhooks", access: Access.management,
                responses: [.json(200, "WebhookPage", "A page of endpoints.")],
                query: [QueryParameterDoc("workspaceId", "Only this workspace's.")] + pageQuery)
            ) { request, context in
                let principal = try context.principal()
                let page = try PageRequest(request)
                let filter = try principal.workspaceFilter(request)
                return try .json(await readPage(services.store, table: "webhooks", columns: columns, filter: filter, page: page,
                                                row: Webhooks.endpoint, id: \.id))
            },

            Route(method: .DELETE, pattern: "/v1/webhooks/{webhookId}", operation: Operation(
                id: "deleteWebhook", summary: "Remove an endpoint and its pending deliveries", tag: "Webhooks", access: Access.management,
                responses: [ResponseDoc(status: 204, description: "Removed.")])
            ) { _, context in
                let principal = try context.principal()
                let id = try context.parameter("webhookId")
                let workspaceId: String = try await services.store.write { db in
                    guard let row = try db.first("SELECT \(raw: columns) FROM webhooks WHERE id = \(id)") else {
                        throw HTTPError.notFound(ErrorCode.notFound, "no webhook \(id)")
                    }
                    let workspaceId = try row.string("workspace_id")
                    try principal.requireWorkspace(workspaceId)
                    try db.execute("DELETE FROM webhook_deliveries WHERE webhook_id = \(id)")
                    try db.execute("DELETE FROM webhooks WHERE id = \(id)")
                    return workspaceId
                }
                services.webhookSubscriptions.forget(workspaceId: workspaceId)
                return HTTPResponse(status: 204)
            },

            Route(method: .GET, pattern: "/v1/webhooks/{webhookId}/deliveries", operation: Operation(
                id: "listWebhookDeliveries", summary: "Deliveries of an endpoint, newest first: status, attempts, last answer",
                tag: "Webhooks", access: Access.management, responses: [.json(200, "WebhookDeliveryList", "Up to 100 deliveries.")])
            ) { _, context in
                let principal = try context.principal()
                let id = try context.parameter("webhookId")
                let deliveries: [WebhookDelivery] = try await services.store.read { db in
                    guard let row = try db.first("SELECT workspace_id FROM webhooks WHERE id = \(id)") else {
                        throw HTTPError.notFound(ErrorCode.notFound, "no webhook \(id)")
                    }
                    try principal.requireWorkspace(try row.string("workspace_id"))
                    return try db.query("SELECT * FROM webhook_deliveries WHERE webhook_id = \(id) ORDER BY created_at DESC, id DESC LIMIT 100")
                        .map(Webhooks.delivery)
                }
                return try .json(WebhookDeliveryList(items: deliveries))
            },
        ]
    }
}

/// The deliveries of one endpoint.
struct WebhookDeliveryList: Codable, Sendable {
    let items: [WebhookDelivery]
}
