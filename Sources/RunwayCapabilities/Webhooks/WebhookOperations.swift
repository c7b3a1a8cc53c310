import LinkRunwayAPI
import RunwayHTTP
import RunwayKit

/// What the OpenAPI document says about each webhook route.
extension Operation {
    static let createWebhook = Operation(
        id: "createWebhook", summary: "Register an endpoint; the secret that signs its deliveries is in this response only",
        tag: "Webhooks", access: Access.management, requestSchema: .of(CreateWebhookRequest.self),
        responses: [.json(201, CreatedWebhook.self, "The endpoint and its signing secret.")], maxBodyBytes: 8 * 1024)

    static let listWebhooks = Operation(
        id: "listWebhooks", summary: "List webhook endpoints (never their secrets)", tag: "Webhooks", access: Access.management,
        responses: [.json(200, Page<WebhookEndpoint>.self, "A page of endpoints.")],
        query: [QueryParameterDoc("workspaceId", "Only this workspace's.")] + pageQuery, errors: [404])

    static let deleteWebhook = Operation(
        id: "deleteWebhook", summary: "Remove an endpoint and its pending deliveries", tag: "Webhooks", access: Access.management,
        responses: [ResponseDoc(status: 204, description: "Removed.")])

    static let listWebhookDeliveries = Operation(
        id: "listWebhookDeliveries", summary: "Deliveries of an endpoint, newest first: status, attempts, last answer",
        tag: "Webhooks", access: Access.management, responses: [.json(200, WebhookDeliveryList.self, "Up to 100 deliveries.")])

    static let testWebhook = Operation(
        id: "testWebhook", summary: "Queue a signed ping to this endpoint alone, sent and retried like any delivery", tag: "Webhooks",
        access: Access.management, responses: [.json(202, WebhookDelivery.self, "The queued ping; follow it in the endpoint's deliveries.")],
        idempotent: true)

    static let redeliverWebhookDelivery = Operation(
        id: "redeliverWebhookDelivery",
        summary: "Queue a delivered or failed delivery's body again as a new delivery; the original keeps its history",
        tag: "Webhooks", access: Access.management,
        responses: [.json(202, WebhookDelivery.self, "The new delivery, with its own id and attempts.")], errors: [409], idempotent: true)
}
