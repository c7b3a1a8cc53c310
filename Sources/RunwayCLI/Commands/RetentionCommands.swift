import Foundation
import LinkRunwayAPI

/// Retention messages: the rules that choose one by where the subscriber came from, the messages at Apple, defaults,
/// the realtime URL, Apple's performance test and the report.
enum RetentionCommands {
    static let jsonFlag = TenancyCommands.jsonFlag
    static let app = OptionSpec.required("--app", "id", "The app.")
    static let environment = OptionSpec.value("--environment", "env", "production (default) or sandbox.")

    static func path(_ a: ParsedArguments, _ rest: String) throws -> String {
        "/v1/apps/\(APIClient.escape(try a.required("--app")))/retention/\(rest)"
    }

    static func query(_ a: ParsedArguments) -> String { a.value("--environment").map { "?environment=\(APIClient.escape($0))" } ?? "" }

    static let rulesSet: Command = Command(["retention", "rules", "set"], summary: "Set an app's retention rules from a JSON file.",
                                           options: [app, .required("--file", "json", "The rules: {\"rules\": [...], \"fallback\": {...}}."), jsonFlag]
                                               + APIClient.options, details: """
        Each rule has optional conditions (sources, affiliateIds, campaigns, linkIds, productIds, locales) and an answer
        ({messageId}, or {messageId, alternateProductId, billingPlanType} for a switch-plan offer); the first rule whose
        conditions hold answers Apple, else the fallback, else Apple shows its default message. See docs/retention.md.
        """) { a, c in
        let file = try a.required("--file")
        guard let data = FileManager.default.contents(atPath: file) else { throw CommandFailure("cannot read \(file)") }
        let rules: RetentionRuleSet
        do { rules = try JSONDecoder().decode(RetentionRuleSet.self, from: data) } catch { throw CommandFailure("\(file) is not a rule set: \(error)") }
        let stored = try await APIClient(a, c).send("PUT", try path(a, "rules"), rules, as: RetentionRuleSet.self)
        c.output(a.flag("--json") ? try Output.json(stored) : "Stored \(stored.rules.count) rules\(stored.fallback == nil ? "" : " and a fallback")")
    }

    static let rulesShow: Command = Command(["retention", "rules", "show"], summary: "Show an app's retention rules (JSON).",
                                            options: [app] + APIClient.options) { a, c in
        c.output(try Output.json(try await APIClient(a, c).get(try path(a, "rules"), as: RetentionRuleSet.self)))
    }

    static let messageCreate: Command = Command(["retention", "message", "create"], summary: "Upload a retention message to Apple.",
                                                options: [
        app, environment, .required("--header", "text", "At most 66 characters."), .required("--body", "text", "At most 144 characters."),
        .value("--message-id", "uuid", "Its identifier (default: a new one)."), .value("--image-id", "uuid", "An image uploaded to Apple."),
        .value("--alt-text", "text", "The image's alternative text."), jsonFlag,
    ] + APIClient.options, details: "Apple reviews each message; it shows only approved ones (in the sandbox at once).") { a, c in
        let request = CreateRetentionMessageRequest(environment: a.value("--environment"), messageId: a.value("--message-id"),
                                                    header: try a.required("--header"), body: try a.required("--body"),
                                                    imageId: a.value("--image-id"), altText: a.value("--alt-text"))
        let made = try await APIClient(a, c).post(try path(a, "messages"), request, as: RetentionMessage.self)
        c.output(a.flag("--json") ? try Output.json(made) : "Uploaded message \(made.messageId) (\(made.environment))")
    }

    static let messageList: Command = Command(["retention", "message", "list"], summary: "List an app's retention messages at Apple, with their review state.",
                                              options: [app, environment, jsonFlag] + APIClient.options) { a, c in
        let list = try await APIClient(a, c).get(try path(a, "messages") + query(a), as: RetentionMessageList.self)
        c.output(a.flag("--json") ? try Output.json(list)
                 : Output.table(["message", "state", "header"], list.items.map { [$0.messageId, $0.state, $0.header ?? ""] }))
    }

    static let messageDelete: Command = Command(["retention", "message", "delete"], summary: "Delete a retention message at Apple.",
                                                options: [app, environment, .required("--message-id", "uuid", "The message.")] + APIClient.options) { a, c in
        try await APIClient(a, c).delete(try path(a, "messages/\(APIClient.escape(try a.required("--message-id")))") + query(a))
        c.output("Deleted the message")
    }

    static let defaultSet: Command = Command(["retention", "default", "set"],
                                             summary: "Set the message Apple shows for a product and locale when the realtime answer fails (or remove it).",
                                             options: [
        app, environment, .required("--product", "id", "The subscription's product id."), .required("--locale", "code", "As en-US."),
        .value("--message-id", "uuid", "The message (leave out to remove the default)."),
    ] + APIClient.options) { a, c in
        let request = RetentionDefaultMessageRequest(environment: a.value("--environment"), productId: try a.required("--product"),
                                                     locale: try a.required("--locale"), messageId: a.value("--message-id"))
        try await APIClient(a, c).send("PUT", try path(a, "default-messages"), request)
        c.output(request.messageId == nil ? "Removed the default message" : "Set the default message")
    }

    static let realtimeURLSet: Command = Command(["retention", "realtime-url", "set"], summary: "Tell Apple where to ask for retention messages.",
                                                 options: [app, environment, .required("--url", "url", "https://<this server> + the surface's retentionPath.")]
                                                     + APIClient.options, details: """
        Apple takes a production URL only after a sandbox performance test passed (retention performance-test).
        """) { a, c in
        let set = try await APIClient(a, c).send("PUT", try path(a, "realtime-url"),
                                                 RetentionRealtimeURLRequest(environment: a.value("--environment"), url: try a.required("--url")),
                                                 as: RetentionRealtimeURL.self)
        c.output("Apple's \(set.environment) realtime URL is \(set.url ?? "")")
    }

    static let performanceTest: Command = Command(["retention", "performance-test"], summary: "Run Apple's sandbox performance test of the realtime URL and wait for its result.",
                                                  options: [
        app, .required("--original-transaction-id", "id", "An active sandbox subscription's original transaction id."), jsonFlag,
    ] + APIClient.options) { a, c in
        let client = try APIClient(a, c)
        var test = try await client.post(try path(a, "performance-test"),
                                         RetentionPerformanceTestRequest(originalTransactionId: try a.required("--original-transaction-id")),
                                         as: RetentionPerformanceTest.self)
        for _ in 0..<600 where test.result == nil || test.result == "PENDING" {
            try await Task.sleep(for: .seconds(1))
            test = try await client.get(try path(a, "performance-test/\(APIClient.escape(test.requestId))"), as: RetentionPerformanceTest.self)
        }
        if a.flag("--json") { return c.output(try Output.json(test)) }
        let failures = (test.failures ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        c.output("\(test.result ?? "PENDING"): \(test.successRate ?? 0)% answered in time; p50 \(test.p50Milliseconds ?? 0) ms, p99 \(test.p99Milliseconds ?? 0) ms"
                 + (failures.isEmpty ? "" : "; failures: \(failures)"))
    }

    static let report: Command = Command(["retention", "report"], summary: "Which retention message was shown how often, and what followed.",
                                         options: [app, .value("--from", "time", "Start (default 30 days ago)."), .value("--to", "time", "End (default now)."),
                                                   jsonFlag] + APIClient.options) { a, c in
        var items: [String] = []
        let now = Date()
        if let from = a.value("--from") { items.append("from=\(APIClient.escape(CLITime.moment(from, now: now)))") }
        if let to = a.value("--to") { items.append("to=\(APIClient.escape(CLITime.moment(to, now: now)))") }
        let report = try await APIClient(a, c).get(try path(a, "report") + (items.isEmpty ? "" : "?" + items.joined(separator: "&")),
                                                   as: RetentionMessageReport.self)
        c.output(a.flag("--json") ? try Output.json(report) : Output.table(
            ["rule", "message", "environment", "shown", "late", "cancelled", "stayed", "undecided"],
            report.rows.map { [$0.rule, $0.messageId ?? "–", $0.environment, "\($0.shown)", "\($0.late)", "\($0.cancelled)", "\($0.stayed)", "\($0.undecided)"] }))
    }

    static let all: [Command] = [rulesSet, rulesShow, messageCreate, messageList, messageDelete, defaultSet, realtimeURLSet, performanceTest, report]
}
