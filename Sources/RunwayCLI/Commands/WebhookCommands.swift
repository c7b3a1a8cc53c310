import Foundation
import LinkRunwayAPI

/// `webhook` commands: endpoints, their deliveries, test pings and redeliveries, through the API of a running server.
enum WebhookCommands {
    static let jsonFlag = TenancyCommands.jsonFlag
    static let deliveryJSON = OptionSpec.flag("--json", "Print the delivery as JSON.")

    static let create: Command = Command(["webhook", "create"], summary: "Register an endpoint; prints its signing secret once.", options: [
        .required("--url", "url", "https:// endpoint."), .required("--topics", "list", "Comma-separated: install, event, click."),
        .value("--workspace", "id", "Workspace (default $LINKRUNWAY_WORKSPACE, else the only one the key sees)."), jsonFlag,
    ] + APIClient.options) { a, c in
        let topics = try a.required("--topics").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let client = try APIClient(a, c)
        let created = try await client.post("/v1/webhooks", CreateWebhookRequest(workspaceId: try await client.workspace(a, c), url: try a.required("--url"),
                                                                                  topics: topics), as: CreatedWebhook.self)
        c.output(a.flag("--json") ? try Output.json(created)
                 : "Created \(created.webhook.id). Its signing secret is shown only now:\n\n    \(created.secret)\n")
    }

    static let list: Command = Command(["webhook", "list"], summary: "List webhook endpoints.", options: [jsonFlag] + APIClient.options) { a, c in
        let hooks = try await APIClient(a, c).all("/v1/webhooks", as: WebhookEndpoint.self)
        c.output(a.flag("--json") ? try Output.json(hooks) : Output.table(["ID", "URL", "TOPICS", "CREATED"],
                                                                        hooks.map { [$0.id, $0.url, $0.topics.joined(separator: ","), $0.createdAt] }))
    }

    static let deliveries: Command = Command(["webhook", "deliveries"], summary: "Recent deliveries of an endpoint, with why the last attempt failed.",
                                    arguments: "<webhook-id>", options: [jsonFlag] + APIClient.options,
                                    details: "REASON is why the last attempt failed, in a word: dns_failed, connect_failed, blocked_address,\n"
                                        + "blocked_port, blocked_scheme, tls_failed, timeout, send_failed, or http_ and the status answered (http_500).") { a, c in
        let webhookId = try onlyPositional(a, "give exactly one webhook id")
        let items = try await recent(APIClient(a, c), webhookId: webhookId)
        c.output(a.flag("--json") ? try Output.json(items) : Output.table(["ID", "TOPIC", "STATUS", "ATTEMPTS", "ANSWER", "REASON", "CREATED"],
            items.map { [$0.id, $0.topic, $0.status, String($0.attempts), $0.lastStatus.map(String.init) ?? "-", reason($0), $0.createdAt] }))
    }

    static let test: Command = Command(["webhook", "test"], summary: "Send a signed ping to one endpoint and wait for its first attempt.",
                              arguments: "<webhook-id>", options: [
        .value("--wait", "seconds", "How long to wait for the first attempt (default 10; 0 returns once queued)."), deliveryJSON,
    ] + APIClient.options, details: "Exits 1 when the first attempt fails; the ping is then retried like any delivery.") { a, c in
        let webhookId = try onlyPositional(a, "give exactly one webhook id")
        guard let wait = Double(a.value("--wait") ?? "10"), (0...600).contains(wait) else { throw UsageError("--wait takes 0 to 600 seconds") }
        let client = try APIClient(a, c)
        let queued = try await client.post("/v1/webhooks/\(APIClient.escape(webhookId))/test", EmptyBody(), as: WebhookDelivery.self)
        let ping = wait == 0 ? queued : try await firstAttempt(of: queued, client, seconds: wait)
        let failed = ping.attempts > 0 && ping.status != "delivered"
        if a.flag("--json") { c.output(try Output.json(ping)) }
        if failed { throw CommandFailure(describe(ping, as: "Ping") + "; it is retried like any delivery") }
        if !a.flag("--json") { c.output(describe(ping, as: "Ping")) }
    }

    static let redeliver: Command = Command(["webhook", "redeliver"], summary: "Send a delivered or failed delivery again, as a new delivery.",
                                   arguments: "<webhook-id> <delivery-id>", options: [deliveryJSON] + APIClient.options,
                                   details: "The new delivery has its own id and attempts and the same body; the original keeps its history.") { a, c in
        guard a.positionals.count == 2 else { throw UsageError("give a webhook id and one of its delivery ids") }
        let (webhookId, deliveryId) = (APIClient.escape(a.positionals[0]), APIClient.escape(a.positionals[1]))
        let copy = try await APIClient(a, c).post("/v1/webhooks/\(webhookId)/deliveries/\(deliveryId)/redeliver", EmptyBody(), as: WebhookDelivery.self)
        c.output(a.flag("--json") ? try Output.json(copy) : "Queued \(copy.id), a redelivery of \(a.positionals[1]) (\(copy.topic))")
    }

    static let delete: Command = Command(["webhook", "delete"], summary: "Remove an endpoint and its deliveries.", arguments: "<webhook-id>",
                                options: APIClient.options) { a, c in
        let webhookId = try onlyPositional(a, "give exactly one webhook id")
        try await APIClient(a, c).delete("/v1/webhooks/\(APIClient.escape(webhookId))")
        c.output("Deleted \(webhookId)")
    }

    static func onlyPositional(_ a: ParsedArguments, _ usage: String) throws -> String {
        guard a.positionals.count == 1 else { throw UsageError(usage) }
        return a.positionals[0]
    }

    /// The newest deliveries of an endpoint.
    static func recent(_ client: APIClient, webhookId: String) async throws -> [WebhookDelivery] {
        struct List: Codable { let items: [WebhookDelivery] }
        return try await client.get("/v1/webhooks/\(APIClient.escape(webhookId))/deliveries", as: List.self).items
    }

    /// `delivery` once the server's dispatcher has tried it, or as it stands after `seconds`.
    static func firstAttempt(of delivery: WebhookDelivery, _ client: APIClient, seconds: Double) async throws -> WebhookDelivery {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        var latest = delivery
        while latest.attempts == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(250))
            latest = try await recent(client, webhookId: delivery.webhookId).first { $0.id == delivery.id } ?? latest
        }
        return latest
    }

    /// One line on a delivery: delivered with its answer, failed with its reason, or still waiting.
    static func describe(_ delivery: WebhookDelivery, as noun: String) -> String {
        switch (delivery.status, delivery.attempts) {
        case ("delivered", _): "\(noun) \(delivery.id) delivered: HTTP \(delivery.lastStatus.map(String.init) ?? "2xx")"
        case (_, 0): "\(noun) \(delivery.id) queued; not tried yet (follow it with linkrunway webhook deliveries \(delivery.webhookId))"
        default: "\(noun) \(delivery.id) \(delivery.status) after \(delivery.attempts) attempt(s): \(reason(delivery))"
        }
    }

    /// Why the last attempt failed, as one short cell: the server's stable reason (`http_500`, `timeout`…), or the
    /// first line of the free text an older server kept, cut to 40 characters; "-" when it did not fail.
    static func reason(_ delivery: WebhookDelivery) -> String {
        guard let line = delivery.lastError?.split(whereSeparator: \.isNewline).first, !line.isEmpty else { return "-" }
        return line.count <= 40 ? String(line) : line.prefix(39) + "…"
    }
}
