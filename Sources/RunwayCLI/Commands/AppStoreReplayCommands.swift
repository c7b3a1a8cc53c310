import Foundation
import LinkRunwayAPI

/// An app's In-App Purchase key, and replaying the App Store notifications the server missed from Apple's history.
enum AppStoreReplayCommands {
    static let jsonFlag = TenancyCommands.jsonFlag

    static func keyPath(_ a: ParsedArguments) throws -> String { "/v1/apps/\(APIClient.escape(try a.required("--app")))/app-store-key" }

    static let keySet: Command = Command(["app-store", "key", "set"], summary: "Store an app's In-App Purchase key, which replaying notifications signs with.",
                                options: [
        .required("--app", "id", "The app."), .required("--key-file", "p8", "The .p8 file App Store Connect gave (AuthKey_<key id>.p8)."),
        .value("--key-id", "id", "The key's id (default: from the file name AuthKey_<key id>.p8)."),
        .required("--issuer-id", "uuid", "The issuer id App Store Connect shows above the keys."), jsonFlag,
    ] + APIClient.options, details: """
        Make the key in App Store Connect under Users and Access → Integrations → In-App Purchase. The server stores it
        sealed with its secret key file and never shows it again; setting another replaces it.
        """) { a, c in
        let file = try a.required("--key-file")
        guard let data = FileManager.default.contents(atPath: file) else { throw CommandFailure("cannot read \(file)") }
        let name = (file as NSString).lastPathComponent
        let fromName = name.hasPrefix("AuthKey_") && name.hasSuffix(".p8") ? String(name.dropFirst(8).dropLast(3)) : nil
        guard let keyId = a.value("--key-id") ?? fromName else { throw UsageError("give --key-id (the file is not named AuthKey_<key id>.p8)") }
        let status = try await APIClient(a, c).send("PUT", try keyPath(a), SetAppStoreKeyRequest(issuerId: try a.required("--issuer-id"), keyId: keyId,
                                                                                                  privateKey: String(decoding: data, as: UTF8.self)),
                                                    as: AppStoreKeyStatus.self)
        c.output(a.flag("--json") ? try Output.json(status) : "Stored In-App Purchase key \(keyId) (issuer \(status.issuerId ?? ""))")
    }

    static let keyShow: Command = Command(["app-store", "key", "show"], summary: "Show whether an app has an In-App Purchase key, and which (never the key).",
                                 options: [.required("--app", "id", "The app."), jsonFlag] + APIClient.options) { a, c in
        let status = try await APIClient(a, c).get(try keyPath(a), as: AppStoreKeyStatus.self)
        c.output(a.flag("--json") ? try Output.json(status)
                 : status.configured ? "Key \(status.keyId ?? "") of issuer \(status.issuerId ?? ""), set \(status.updatedAt ?? "")" : "No In-App Purchase key")
    }

    static let keyDelete: Command = Command(["app-store", "key", "delete"], summary: "Remove an app's In-App Purchase key.",
                                   options: [.required("--app", "id", "The app.")] + APIClient.options) { a, c in
        try await APIClient(a, c).delete(try keyPath(a))
        c.output("Removed the In-App Purchase key")
    }

    static let replay: Command = Command(["app-store", "replay"], summary: "Fetch the notifications Apple sent since a time and process the ones the server missed.",
                                options: [
        .required("--app", "id", "The app (it needs an In-App Purchase key: app-store key set)."),
        .required("--since", "time", "Start: an ISO 8601 time, a day (YYYY-MM-DD, UTC) or a span back from now (12h, 3d)."),
        .value("--until", "time", "End, as --since (default now)."),
        .value("--environment", "env", "production (default) or sandbox."), jsonFlag,
    ] + APIClient.options, details: """
        The server asks the App Store Server API for its notification history (180 days in production, 30 in sandbox),
        page by page, and processes each notification as if it had just arrived at the app's surface of that
        environment: ones already processed count as duplicate and change nothing, so replaying twice is safe. Progress
        shows on a terminal; the counts print at the end. Exits 1 when Apple refuses the key.
        """) { a, c in
        let client = try APIClient(a, c)
        let path = "/v1/apps/\(APIClient.escape(try a.required("--app")))/app-store/replay"
        let now = Date()
        let since = CLITime.moment(try a.required("--since"), now: now)
        var until = a.value("--until").map { CLITime.moment($0, now: now) }
        let progress = Progress.status(c)
        var summary = NotificationReplayTotals()
        var token: String?
        repeat {
            let page = try await client.post(path, ReplayNotificationsRequest(environment: a.value("--environment"), since: since, until: until,
                                                                             paginationToken: token), as: NotificationReplayPage.self)
            summary.add(page)
            // Later pages ask for the same span as the first, which fixed its end.
            until = page.until
            token = page.paginationToken
            progress?("replaying: page \(summary.pages), \(summary.counts)")
        } while token != nil
        Progress.finish(c)
        if a.flag("--json") {
            c.output(try Output.json(summary))
            return
        }
        var lines = ["Replayed Apple's \(summary.environment) history from \(summary.since) to \(summary.until) at surface \(summary.surfaceId): \(summary.counts)"]
        lines += summary.refusals.map { "refused \($0.notificationUUID ?? "(unreadable)"): \($0.code): \($0.message)" }
        c.output(lines.joined(separator: "\n"))
    }
}
