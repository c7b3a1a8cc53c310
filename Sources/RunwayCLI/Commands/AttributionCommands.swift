import AppleFormats
import Foundation
import LinkRunwayAPI

/// `simulate`, `install` and `report` commands, through the API of a running server.
enum AttributionCommands {
    static let jsonFlag = TenancyCommands.jsonFlag

    static let simulateClick: Command = Command(["simulate", "click"], summary: "Follow a link as a device would (default an iPhone), recording the click.",
                                       arguments: "<link-url>", options: [
        .value("--ip", "address", "The device's address (default: this machine's)."),
        .value("--ua", "user-agent", "The device's User-Agent (default: an iPhone)."), jsonFlag,
    ] + APIClient.options) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give exactly one link URL") }
        let click = try await APIClient(a, c).post("/v1/simulate/clicks", SimulateClickRequest(url: a.positionals[0], ip: a.value("--ip"), userAgent: a.value("--ua")),
                                                   as: SimulatedClick.self)
        c.output(a.flag("--json") ? try Output.json(click)
                 : "Clicked \(click.linkId) as \(click.platform): token \(click.clickToken), sent to \(click.location ?? "nowhere")")
    }

    static let simulateInstall: Command = Command(["simulate", "install"], summary: "A first launch as the SDK would send it, from a chosen address.", options: [
        .required("--app", "id", "The app."), .value("--ip", "address", "The device's address (default: this machine's)."),
        .value("--install-id", "id", "An install id (default: a new UUID)."), .value("--click-token", "token", "A click token the app would hold."),
        .value("--platform", "ios|tvos", "Default ios."), jsonFlag,
    ] + APIClient.options) { a, c in
        let request = SimulateInstallRequest(appId: try a.required("--app"), installId: a.value("--install-id"), ip: a.value("--ip"),
                                             platform: a.value("--platform"), clickToken: a.value("--click-token"))
        let match = try await APIClient(a, c).post("/v1/simulate/installs", request, as: InstallMatch.self)
        c.output(a.flag("--json") ? try Output.json(match) : describe(match))
    }

    static func describe(_ match: InstallMatch) -> String {
        guard match.matched else { return "Install \(match.installId): unmatched (organic)" }
        return "Install \(match.installId): \(match.method) (confidence \(match.confidence)) → \(match.linkId ?? "-") path \(match.path ?? "-")"
    }

    static let installExplain: Command = Command(["install", "explain"], summary: "Why an install was attributed (or not).", arguments: "<install-id>",
                                        options: [.value("--app", "id", "The app, if the id is known in several."), jsonFlag] + APIClient.options) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give exactly one install id") }
        let query = a.value("--app").map { "?appId=\(APIClient.escape($0))" } ?? ""
        let explanation = try await APIClient(a, c).get("/v1/installs/\(APIClient.escape(a.positionals[0]))/attribution\(query)", as: AttributionExplanation.self)
        if a.flag("--json") { return c.output(try Output.json(explanation)) }
        var lines = [describe(explanation.match), "", "Rules:"] + explanation.rules.map { "  \($0)" } + ["", "Candidates:"]
        lines += explanation.candidates.isEmpty ? ["  none"] : explanation.candidates.map {
            "  \($0.eligible ? "✓" : "✗") \($0.method) \($0.linkId ?? $0.impressionId ?? "") \($0.ageSeconds) s before: \($0.reason)"
        }
        c.output(lines.joined(separator: "\n"))
    }

    static let installExport: Command = Command(["install", "export"], summary: "Everything stored about an install, as JSON.", arguments: "<install-id>",
                                       options: [.value("--app", "id", "The app, if the id is known in several.")] + APIClient.options) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give exactly one install id") }
        let query = a.value("--app").map { "?appId=\(APIClient.escape($0))" } ?? ""
        c.output(try Output.json(try await APIClient(a, c).get("/v1/installs/\(APIClient.escape(a.positionals[0]))/export\(query)", as: InstallExport.self)))
    }

    static let installDelete: Command = Command(["install", "delete"], summary: "Delete everything stored about an install.", arguments: "<install-id>",
                                       options: [.value("--app", "id", "The app, if the id is known in several."), jsonFlag] + APIClient.options) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give exactly one install id") }
        let query = a.value("--app").map { "?appId=\(APIClient.escape($0))" } ?? ""
        let data = try await APIClient(a, c).raw("DELETE", "/v1/installs/\(APIClient.escape(a.positionals[0]))\(query)")
        let receipt = try JSONDecoder().decode(DeletionReceipt.self, from: data)
        c.output(a.flag("--json") ? try Output.json(receipt)
                 : "Deleted \(receipt.installId): " + receipt.deleted.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    }

    static let reportFunnel: Command = Command(["report", "funnel"], summary: "Clicks, installs, opens, events and revenue, grouped.", options: [
        .value("--from", "time", "Start: a day (2026-11-01) or an ISO 8601 time (default 30 days ago)."), .value("--to", "time", "End: a day (2026-11-30, through its end) or an ISO 8601 time (default now)."),
        .value("--group-by", "key", "day, link, campaign, channel, source, variant, qr (scan or tap), country (clicks and opens), inAppBrowser (clicks), utmSource, utmMedium, utmCampaign, utmTerm, utmContent or an Apple Ads id (default day)."), .value("--app", "id", "Only this app."),
        .value("--workspace", "id", "Workspace (default $LINKRUNWAY_WORKSPACE, else the only one the key sees)."),
        .flag("--include-simulated", "Count simulated installs and their events too."),
        .value("--stores", "which", "consumer: leave out installs whose app transactions named only education or enterprise stores (default all)."),
        .flag("--csv", "Print CSV."), jsonFlag,
    ] + APIClient.options) { a, c in
        let client = try APIClient(a, c)
        let path = try await client.reportPath("/v1/reports/funnel", a, c, extra: [("--stores", "stores")], flags: [("--include-simulated", "includeSimulated")])
        if a.flag("--csv") {
            return c.output(String(decoding: try await client.raw("GET", path, accept: "text/csv"), as: UTF8.self))
        }
        let report = try await client.get(path, as: FunnelReport.self)
        if a.flag("--json") { return c.output(try Output.json(report)) }
        c.output(Output.table([report.groupBy.uppercased(), "CLICKS", "INSTALLS", "OPENS", "PREVIEWS", "BOTS", "EVENTS", "REVENUE"], report.rows.map { row in
            [row.key, String(row.clicks), String(row.installs), String(row.opens), String(row.previews), String(row.bots),
             row.events.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: " "),
             row.revenue.sorted { $0.key < $1.key }.map { Currency.text(minorUnits: $0.value, currency: $0.key) }.joined(separator: ", ")]
        }))
    }
}
