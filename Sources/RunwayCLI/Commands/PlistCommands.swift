import Foundation
import LinkRunwayAPI
import RunwayJSON

/// The AdAttributionKit and SKAdNetwork keys of an app's Info.plist: written by the server from the app's settings,
/// and checked against Apple's rules.
enum PlistCommands {
    static let jsonFlag = TenancyCommands.jsonFlag

    static let fragment: Command = Command(["plist"], summary: "Print the Info.plist keys an app needs for AdAttributionKit and SKAdNetwork.",
                                  arguments: "<app-id>", options: [
        .value("--role", "role", "both (default), advertised (postback copies and attribution rules) or publisher (the workspace's ad networks)."),
        jsonFlag,
    ] + APIClient.options, details: """
        Prints an XML property list to merge into the app's Info.plist: AdAttributionKit → AttributionCopyEndpoint and the
        opt-ins, NSAdvertisingAttributionReportEndpoint (both on the workspace's first verified link domain),
        AdAttributionKitConfigurations from the app's settings (plist settings), and AdNetworkIdentifiers with
        SKAdNetworkItems for the workspace's ad networks. What to know about it goes to standard error.
        """) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give exactly one app id") }
        let role = a.value("--role").map { "?role=\(APIClient.escape($0))" } ?? ""
        let fragment = try await APIClient(a, c).get("/v1/apps/\(APIClient.escape(a.positionals[0]))/info-plist\(role)", as: InfoPlistFragment.self)
        if a.flag("--json") { return c.output(try Output.json(fragment)) }
        c.output(fragment.plist.trimmingCharacters(in: .newlines))
        for note in fragment.notes { c.errorOutput("note: \(note)") }
    }

    static let check: Command = Command(["plist", "check"], summary: "Check an Info.plist's attribution keys for the mistakes Apple's documentation warns about.",
                               arguments: "<Info.plist>", options: [
        .value("--workspace", "id", "Whose link domains are this server's (default $LINKRUNWAY_WORKSPACE, else the only one the key sees)."), jsonFlag,
    ] + APIClient.options, details: """
        Reads an XML property list and asks the server, which knows its own domains: ad network ids not in lower case, a
        copy endpoint that is not https and one of this server's domains, attribution windows and cooldowns outside
        Apple's ranges, both interaction types ignored, and keys Apple does not define. Prints one line a finding;
        exits 1 when any is an error.
        """) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give one Info.plist") }
        let path = a.positionals[0]
        guard let data = FileManager.default.contents(atPath: path) else { throw CommandFailure("cannot read \(path)") }
        guard let text = String(data: data, encoding: .utf8) else { throw CommandFailure("\(path) is not an XML property list (binary? convert it with plutil -convert xml1)") }
        let client = try APIClient(a, c)
        let workspace = try await client.workspace(a, c)
        let result = try await client.send("POST", "/v1/info-plist/check", CheckInfoPlistRequest(workspaceId: workspace, plist: text),
                                           as: InfoPlistCheck.self)
        if a.flag("--json") {
            c.output(try Output.json(result))
        } else if result.findings.isEmpty {
            c.output("\(path): the attribution keys follow Apple's rules")
        } else {
            for finding in result.findings {
                c.output("\(finding.level): \(finding.key.isEmpty ? "(document)" : finding.key): \(finding.message)")
            }
        }
        if !result.ok { throw CommandFailure("\(path) has \(result.findings.filter { $0.level == "error" }.count) error(s)") }
    }

    static let settings: Command = Command(["plist", "settings"], summary: "Show or set an app's AdAttributionKit settings (attribution windows, cooldowns, copy opt-ins).",
                                  arguments: "<app-id>", options: [
        .value("--file", "file", "Set them from this JSON file (see docs/postbacks.md); without it, print them."), jsonFlag,
    ] + APIClient.options) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give exactly one app id") }
        let path = "/v1/apps/\(APIClient.escape(a.positionals[0]))/ad-attribution"
        let client = try APIClient(a, c)
        let settings: AdAttributionSettings
        if let file = a.value("--file") {
            guard let data = FileManager.default.contents(atPath: file) else { throw CommandFailure("cannot read \(file)") }
            let request: AdAttributionSettings
            do {
                request = try StrictJSONDecoder().decode(AdAttributionSettings.self, from: Array(data))
            } catch {
                throw CommandFailure("\(file): \(error)")
            }
            settings = try await client.send("PUT", path, request, as: AdAttributionSettings.self)
        } else {
            settings = try await client.get(path, as: AdAttributionSettings.self)
        }
        if a.flag("--json") || a.value("--file") == nil { return c.output(try Output.json(settings)) }
        c.output("Stored: \(settings.attributionWindows.count) attribution window(s); run linkrunway plist \(a.positionals[0]) for the keys")
    }
}
