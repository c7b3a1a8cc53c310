import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// Webhooks and their durable delivery queue. (Their tables came with attribution's step 0004.)
package struct WebhooksCapability: Capability {
    package init() {}

    package func routes(_ services: ServerServices) -> [Route] {
        services.metrics.declareCounter("linkrunway_webhook_attempts_total", help: "Webhook delivery attempts, by the status they left.")
        let handlers = WebhookHandlers(services: services)
        return [
            Route(.POST, "/v1/webhooks", .createWebhook, use: handlers.create),
            Route(.GET, "/v1/webhooks", .listWebhooks, use: handlers.list),
            Route(.GET, "/v1/webhooks/{webhookId}/deliveries", .listWebhookDeliveries, use: handlers.deliveries),
            Route(.POST, "/v1/webhooks/{webhookId}/test", .testWebhook, use: handlers.test),
            Route(.POST, "/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver", .redeliverWebhookDelivery, use: handlers.redeliver),
            Route(.DELETE, "/v1/webhooks/{webhookId}", .deleteWebhook, use: handlers.delete),
        ]
    }

    /// Delivers the webhook outbox.
    package func workers(_ services: ServerServices) -> [any Service] { [OutboxDispatcher(services: services, queue: Webhooks.outbox)] }

    package func forget(_ install: InstallReference, _ db: any SQLExecutor) throws -> [String: Int] {
        ["webhookDeliveries": try WebhookQueries.deleteDeliveries(db, of: install)]
    }

    package func export(_ install: InstallReference, _ db: any SQLExecutor, into export: inout InstallExport) throws {
        export.webhookDeliveries = try WebhookQueries.exportedDeliveries(db, of: install)
    }

    package var sealedColumns: [SealedColumn] { [SealedColumn("webhooks", key: "id", column: "secret")] }
}
