import Foundation
import LinkRunwayAPI
import RunwayCapabilities
import RunwayHTTP
import RunwayKit

/// The workspace's webhook endpoints: added (the signing secret shown once), removed, and each one's recent deliveries
/// with their status, attempts and last answer.
enum WebhookPages {
    static func list(_ context: ConsoleContext) async throws -> ConsoleResult {
        .page(try await page(context, created: nil, error: nil, typed: [:]))
    }

    static func page(_ context: ConsoleContext, created: CreatedWebhook?, error: ConsoleAPIError?, typed: [String: String]) async throws -> ConsolePage {
        let endpoints = try await context.api.all("/v1/webhooks", query: [("workspaceId", context.workspace.id)], as: WebhookEndpoint.self)
        let f = context.format
        let secret: Markup = created.map { created in
            """
            <div class="card" role="status"><h2>Copy this signing secret now</h2>
            <p>Deliveries to \(created.webhook.url) are signed with it (the <code>LinkRunway-Signature</code> header); it is shown only on this page.</p>
            <p class="secret">\(created.secret)</p></div>
            """
        } ?? ""
        var rows: [[Markup]] = []
        for endpoint in endpoints {
            let deliveries = try await context.api.get("/v1/webhooks/\(endpoint.id)/deliveries", as: WebhookDeliveryList.self).items
            let counts = Dictionary(grouping: deliveries, by: \.status).mapValues(\.count)
            let recent = ["delivered", "pending", "failed"].compactMap { status in counts[status].map { "\(f.number($0)) \(status)" } }
            let remove: Markup = """
                <form method="post" action="/console/webhooks/\(endpoint.id)/delete" class="inline">\(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)">
                <button type="submit" class="danger" aria-label="Remove \(endpoint.url)">Remove</button></form>
                """
            rows.append(["<a href=\"\(context.link("/console/webhooks/\(endpoint.id)"))\">\(endpoint.url)</a>", "\(endpoint.topics.joined(separator: ", "))",
                         "\(recent.isEmpty ? "none yet" : recent.joined(separator: ", "))", "\(f.time(endpoint.createdAt))", remove])
        }
        let list: Markup = rows.isEmpty
            ? ConsoleLayout.empty("No webhooks yet. Add an HTTPS endpoint below to hear about installs, events and clicks as they happen.")
            : ConsoleLayout.table(["endpoint", "topics", "last 100 deliveries", "added", ConsoleLayout.actions], rows, caption: "Webhook endpoints")
        let boxes = Markup.join(Webhooks.topics.map { topic in
            let checked: Markup = typed.isEmpty || typed["topic_\(topic)"] == "on" ? " checked" : ""
            return "<label class=\"check\"><input type=\"checkbox\" name=\"topic_\(topic)\"\(checked)> \(topic)</label>"
        })
        let form: Markup = """
            <form method="post" action="/console/webhooks" class="card">
            <h2>New webhook</h2>
            \(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)">
            \(ConsoleForms.field("url", "Endpoint (https://…)", value: typed["url"], error: error, type: "url", required: true))
            <fieldset><legend>Topics</legend>\(boxes)</fieldset>
            <button type="submit">Add webhook</button>
            </form>
            """
        return ConsolePage(title: "Webhooks", body: secret + list + form, status: error == nil ? (created == nil ? 200 : 201) : 400,
                           problems: error.map { [FormProblem($0, fields: ["url": nil])] } ?? [])
    }

    static func create(_ context: ConsoleContext) async throws -> ConsoleResult {
        let form = context.form
        let topics = Webhooks.topics.filter { form["topic_\($0)"] == "on" }
        let request = CreateWebhookRequest(workspaceId: context.workspace.id, url: form["url"] ?? "", topics: topics)
        var typed = ["url": form["url"] ?? ""]
        for topic in topics { typed["topic_\(topic)"] = "on" }
        do {
            let created = try await context.api.send(.POST, "/v1/webhooks", request, as: CreatedWebhook.self)
            return .page(try await page(context, created: created, error: nil, typed: [:]))
        } catch let error as ConsoleAPIError where error.status == 400 {
            return .page(try await page(context, created: nil, error: error, typed: typed))
        }
    }

    static func remove(_ context: ConsoleContext) async throws -> ConsoleResult {
        _ = try await context.api.raw(.DELETE, "/v1/webhooks/\(context.parameter("id"))")
        return .redirect(context.link("/console/webhooks", [("notice", "Removed the webhook and its pending deliveries.")]))
    }

    static func show(_ context: ConsoleContext) async throws -> ConsoleResult {
        let id = context.parameter("id")
        let endpoint = try await context.api.all("/v1/webhooks", query: [("workspaceId", context.workspace.id)], as: WebhookEndpoint.self).first { $0.id == id }
        guard let endpoint else { throw ConsoleAPIError(status: 404, code: ErrorCode.notFound, message: "not in this workspace", field: nil) }
        let deliveries = try await context.api.get("/v1/webhooks/\(id)/deliveries", as: WebhookDeliveryList.self).items
        let f = context.format
        let table: Markup = deliveries.isEmpty ? ConsoleLayout.empty("Nothing delivered yet: deliveries appear when an install, event or click of its topics happens.")
            : ConsoleLayout.table(["made", "topic", "status", "attempts", "last answer", "next attempt", "delivered", "action"], deliveries.map { delivery in
                let answer = delivery.lastStatus.map { "HTTP \($0)" } ?? delivery.lastError ?? "–"
                let redeliver: Markup = delivery.status == "pending" ? "–"
                    : action("/console/webhooks/\(id)/deliveries/\(delivery.id)/redeliver", "Redeliver", label: "Redeliver \(delivery.id)", context)
                return ["\(f.time(delivery.createdAt))", "\(delivery.topic)", "\(delivery.status)", "\(f.number(delivery.attempts))", "\(answer)",
                        "\(delivery.nextAttemptAt.map { f.time($0) } ?? "–")", "\(delivery.deliveredAt.map { f.time($0) } ?? "–")", redeliver]
            }, caption: "The last 100 deliveries, newest first")
        let test = action("/console/webhooks/\(id)/test", "Send test", label: "Send test ping to \(endpoint.url)", context)
        return .page(ConsolePage(title: "Webhook", body: "<p><code>\(endpoint.url)</code>: \(endpoint.topics.joined(separator: ", ")) \(test)</p>" + table
                                 + "<p><a href=\"\(context.link("/console/webhooks"))\">All webhooks</a></p>"))
    }

    /// Queues a signed ping to the endpoint and comes back to its page.
    static func sendTest(_ context: ConsoleContext) async throws -> ConsoleResult {
        let id = context.parameter("id")
        let ping = try await context.api.send(.POST, "/v1/webhooks/\(id)/test", [String: String](), as: WebhookDelivery.self)
        return .redirect(context.link("/console/webhooks/\(id)", [("notice", "Queued test ping \(ping.id); it appears below once tried.")]))
    }

    /// Queues a delivery's body again as a new delivery and comes back to the endpoint's page.
    static func redeliver(_ context: ConsoleContext) async throws -> ConsoleResult {
        let id = context.parameter("id"), deliveryId = context.parameter("delivery")
        let copy = try await context.api.send(.POST, "/v1/webhooks/\(id)/deliveries/\(deliveryId)/redeliver", [String: String](), as: WebhookDelivery.self)
        return .redirect(context.link("/console/webhooks/\(id)", [("notice", "Queued \(copy.id), a redelivery of \(deliveryId).")]))
    }

    /// A one-button form that posts to `path` in this workspace.
    static func action(_ path: String, _ title: String, label: String, _ context: ConsoleContext) -> Markup {
        """
        <form method="post" action="\(path)" class="inline">\(context.csrfField)<input type="hidden" name="ws" value="\(context.workspace.id)">
        <button type="submit" aria-label="\(label)">\(title)</button></form>
        """
    }
}
