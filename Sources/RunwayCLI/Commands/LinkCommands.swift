import Foundation
import LinkRunwayAPI

/// `domain` and `link` commands, through the API of a running server.
enum LinkCommands {
    static let jsonFlag = TenancyCommands.jsonFlag

    static let domainAdd: Command = Command(["domain", "add"], summary: "Add a link domain to a workspace.", arguments: "<hostname>",
                                   options: [.value("--workspace", "id", "Workspace (default $LINKRUNWAY_WORKSPACE, else the only one the key sees)."), jsonFlag] + APIClient.options) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give exactly one hostname") }
        let client = try APIClient(a, c)
        let domain = try await client.post("/v1/domains", CreateLinkDomainRequest(workspaceId: try await client.workspace(a, c), hostname: a.positionals[0]),
                                           as: LinkDomain.self)
        let proof = domain.verification.map { "\nIt serves once you publish the DNS record \($0.recordName) \($0.recordType) \"\($0.recordValue)\" and run linkrunway domain verify \(domain.id)" } ?? ""
        c.output(a.flag("--json") ? try Output.json(domain) : "Added \(domain.hostname) (\(domain.id)) to \(domain.workspaceId)" + proof)
    }

    static let domainVerify: Command = Command(["domain", "verify"], summary: "Check a link domain's DNS TXT record; once it is there, the domain serves links.",
                                      arguments: "<domain-id>", options: [jsonFlag] + APIClient.options) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give exactly one domain id") }
        let domain = try await APIClient(a, c).post("/v1/domains/\(APIClient.escape(a.positionals[0]))/verify", [String: String](), as: LinkDomain.self)
        c.output(a.flag("--json") ? try Output.json(domain) : "\(domain.hostname) is verified and serves links")
    }

    static let domainList: Command = Command(["domain", "list"], summary: "List link domains.",
                                    options: [.value("--workspace", "id", "Only this workspace's."), jsonFlag] + APIClient.options) { a, c in
        let path = "/v1/domains" + (a.value("--workspace").map { "?workspaceId=\(APIClient.escape($0))" } ?? "")
        let domains = try await APIClient(a, c).all(path, as: LinkDomain.self)
        c.output(a.flag("--json") ? try Output.json(domains) : Output.table(["ID", "HOSTNAME", "WORKSPACE", "VERIFIED", "CREATED"],
                                                                            domains.map { [$0.id, $0.hostname, $0.workspaceId, $0.verified ? "yes" : "no", $0.createdAt] }))
    }

    static let domainRemove: Command = Command(["domain", "remove"], summary: "Remove a link domain that has no links.", arguments: "<domain-id>",
                                      options: APIClient.options) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give exactly one domain id") }
        try await APIClient(a, c).delete("/v1/domains/\(APIClient.escape(a.positionals[0]))")
        c.output("Removed \(a.positionals[0])")
    }

    /// Options shared by `link create` and `link update`.
    static let fieldOptions: [OptionSpec] = [
        .value("--app-path", "path", "Where the app should go, e.g. /promo/summer."),
        .value("--metadata", "json", "A JSON object for the app (at most 8 KiB)."),
        .value("--ios-app-store-id", "id", "App Store ID for iOS (default: the app's)."),
        .value("--ios-url", "url", "An https page for iOS instead of the App Store."),
        .value("--android-url", "url", "An https store URL for Android."),
        .value("--web", "url", "An https page for desktops and everything else."),
        .value("--campaign", "tag", "Campaign tag."), .value("--channel", "tag", "Channel tag."), .value("--feature", "tag", "Feature tag."),
        .value("--preview-title", "text", "Title in messengers and social networks."),
        .value("--preview-description", "text", "Description in previews."),
        .value("--preview-image", "url", "An https image for previews."),
        .value("--interstitial", "on|off", "Show a branded page before the App Store on iOS."),
        .value("--pass-query", "on|off", "Pass the click's query string to web and Android destinations."),
        .value("--in-app-browser-page", "on|off", "In an app's own browser (Instagram, TikTok…), show a page that helps people out of it."),
        .value("--expires", "time", "Expiry: an ISO 8601 time (2026-12-31T18:00:00Z), or a day (2026-12-31: at its end, UTC)."),
        .value("--starts", "time", "Start: before it the link answers 404 or goes to --fallback-before-start (ISO 8601 time or a day: its start, UTC)."),
        .value("--click-limit", "n", "Clicks counted before the link answers 410 or goes to --fallback-over-limit (0: no limit)."),
        .value("--rules", "file", "A JSON file of the ordered rules ([{\"when\":{…},\"url\":…,\"variants\":[…]}]; [] removes them)."),
        .value("--variants", "file", "A JSON file of the link's weighted variants ([{\"name\":\"a\",\"weight\":50,\"url\":…}]; [] removes them)."),
        .value("--fallback-before-start", "url", "Where people go before --starts instead of 404."),
        .value("--fallback-expired", "url", "Where people go after --expires instead of 410."),
        .value("--fallback-over-limit", "url", "Where people go past --click-limit instead of 410."),
        .value("--utm-source", "text", "utm_source added to web destinations (and the same for the four below)."),
        .value("--utm-medium", "text", "utm_medium."), .value("--utm-campaign", "text", "utm_campaign."),
        .value("--utm-term", "text", "utm_term."), .value("--utm-content", "text", "utm_content."),
    ]

    static let linkCreate: Command = Command(["link", "create"], summary: "Create a link.", options: [
        .value("--workspace", "id", "Workspace (default $LINKRUNWAY_WORKSPACE, else the only one the key sees)."), .value("--app", "id", "The app it opens."),
        .value("--domain", "hostname", "One of the workspace's link domains (default: its first)."),
        .value("--path", "path", "A custom path (default: 8 generated characters)."),
    ] + fieldOptions + [jsonFlag] + APIClient.options) { a, c in
        let fields = try LinkFields(a)
        let client = try APIClient(a, c)
        let request = CreateLinkRequest(workspaceId: try await client.workspace(a, c), appId: a.value("--app"), domain: a.value("--domain"),
                                        path: a.value("--path"), appPath: fields.appPath, metadata: fields.metadata,
                                        destinations: fields.destinations, campaign: fields.campaign, channel: fields.channel,
                                        feature: fields.feature, preview: fields.preview, interstitial: fields.interstitial,
                                        passQuery: fields.passQuery, expiresAt: fields.expiresAt, rules: fields.rules, variants: fields.variants,
                                        startsAt: fields.startsAt, clickLimit: fields.clickLimit, fallbacks: fields.fallbacks(over: nil),
                                        utm: fields.utm(over: nil), inAppBrowserPage: fields.inAppBrowserPage)
        let link = try await client.post("/v1/links", request, as: Link.self)
        c.output(a.flag("--json") ? try Output.json(link) : "Created \(link.id): \(link.url)")
    }

    static let linkUpdate: Command = Command(["link", "update"], summary: "Change a link (not its domain or path).", arguments: "<link-id>",
                                    options: fieldOptions + [.value("--enabled", "on|off", "Turn the link on or off."), jsonFlag] + APIClient.options) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give exactly one link id") }
        let fields = try LinkFields(a)
        let client = try APIClient(a, c)
        let path = "/v1/links/\(APIClient.escape(a.positionals[0]))"
        // The API replaces fallbacks and UTM values as a whole: the ones not given keep the link's.
        let current = fields.changesGroups ? try await client.get(path, as: Link.self) : nil
        let request = UpdateLinkRequest(appPath: fields.appPath, metadata: fields.metadata,
                                        destinations: fields.hasDestinations ? fields.destinations : nil, campaign: fields.campaign,
                                        channel: fields.channel, feature: fields.feature, preview: fields.preview,
                                        interstitial: fields.interstitial, passQuery: fields.passQuery,
                                        enabled: try LinkFields.onOff(a, "--enabled"), expiresAt: fields.expiresAt, rules: fields.rules,
                                        variants: fields.variants, startsAt: fields.startsAt, clickLimit: fields.clickLimit,
                                        fallbacks: fields.fallbacks(over: current?.fallbacks), utm: fields.utm(over: current?.utm),
                                        inAppBrowserPage: fields.inAppBrowserPage)
        let link = try await client.send("PATCH", path, request, as: Link.self)
        c.output(a.flag("--json") ? try Output.json(link) : "Updated \(link.id): \(link.url)")
    }

    static let linkList: Command = Command(["link", "list"], summary: "List links.", options: [
        .value("--workspace", "id", "Only this workspace's."), .value("--app", "id", "Only this app's."),
        .value("--campaign", "tag", "Only this campaign."), .value("--domain", "hostname", "Only this domain."), jsonFlag,
    ] + APIClient.options) { a, c in
        var query: [String] = []
        for (option, parameter) in [("--workspace", "workspaceId"), ("--app", "appId"), ("--campaign", "campaign"), ("--domain", "domain")] {
            if let value = a.value(option) { query.append("\(parameter)=\(APIClient.escape(value))") }
        }
        let links = try await APIClient(a, c).all("/v1/links" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")), as: Link.self)
        c.output(a.flag("--json") ? try Output.json(links) : Output.table(
            ["ID", "URL", "APP PATH", "CAMPAIGN", "ENABLED", "EXPIRES"],
            links.map { [$0.id, $0.url, $0.appPath ?? "-", $0.campaign ?? "-", $0.enabled ? "yes" : "no", $0.expiresAt ?? "-"] }))
    }

    static let linkShow: Command = Command(["link", "show"], summary: "Show a link.", arguments: "<link-id>", options: [jsonFlag] + APIClient.options) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give exactly one link id") }
        let link = try await APIClient(a, c).get("/v1/links/\(APIClient.escape(a.positionals[0]))", as: Link.self)
        c.output(a.flag("--json") ? try Output.json(link) : Output.table(["FIELD", "VALUE"], [
            ["id", link.id], ["url", link.url], ["kind", link.kind], ["app", link.appId ?? "-"], ["app path", link.appPath ?? "-"],
            ["ios", link.destinations.ios.map { $0.url ?? "App Store \($0.appStoreId ?? "")" } ?? "App Store (app's)"],
            ["android", link.destinations.android?.url ?? "-"], ["web", link.destinations.web ?? "-"],
            ["campaign", link.campaign ?? "-"], ["channel", link.channel ?? "-"], ["feature", link.feature ?? "-"],
            ["enabled", link.enabled ? "yes" : "no"], ["starts", link.startsAt ?? "-"], ["expires", link.expiresAt ?? "-"],
            ["click limit", link.clickLimit.map(String.init) ?? "-"], ["rules", String(link.rules?.count ?? 0)],
            ["variants", link.variants?.map { "\($0.name) (\($0.weight))" }.joined(separator: ", ") ?? "-"],
            ["utm", link.utm?.parameters.map { "\($0.name)=\($0.value)" }.joined(separator: "&") ?? "-"], ["created", link.createdAt],
        ]))
    }

    static let linkDisable: Command = Command(["link", "disable"], summary: "Disable a link at once.", arguments: "<link-id>",
                                     options: [jsonFlag] + APIClient.options) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give exactly one link id") }
        let link = try await APIClient(a, c).post("/v1/links/\(APIClient.escape(a.positionals[0]))/disable", EmptyBody(), as: Link.self)
        c.output(a.flag("--json") ? try Output.json(link) : "Disabled \(link.id)")
    }

    static let linkQR: Command = Command(["link", "qr"], summary: "Save a link's QR code as SVG or PNG.", arguments: "<link-id>", options: [
        .value("--format", "svg|png", "Picture format (default png)."), .value("--size", "pixels", "Pixels per side (default 512)."),
        .value("--margin", "modules", "Quiet zone (default 4)."), .value("--out", "file", "Where to write it (default <link-id>.<format>)."),
        .value("--fg", "hex", "Module colour (default 000000); darker than --bg, at least 3:1."), .value("--bg", "hex", "Background colour (default ffffff)."),
        .value("--logo", "qrl_…", "A QR logo of the workspace for the centre (an SVG logo only with --format svg)."),
    ] + APIClient.options) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give exactly one link id") }
        let format = a.value("--format") ?? "png"
        guard format == "png" || format == "svg" else { throw UsageError("--format must be svg or png") }
        var query = ["size=\(APIClient.escape(a.value("--size") ?? "512"))", "margin=\(APIClient.escape(a.value("--margin") ?? "4"))"]
        for (option, name) in [("--fg", "fg"), ("--bg", "bg"), ("--logo", "logo")] {
            if let value = a.value(option) { query.append("\(name)=\(APIClient.escape(value))") }
        }
        let data = try await APIClient(a, c).raw("GET", "/v1/links/\(APIClient.escape(a.positionals[0]))/qr.\(format)?" + query.joined(separator: "&"))
        let out = a.value("--out") ?? "\(a.positionals[0]).\(format)"
        do {
            try data.write(to: URL(fileURLWithPath: out))
        } catch {
            throw CommandFailure("cannot write \(out): \(error.localizedDescription)")
        }
        c.output("Wrote \(out) (\(data.count) bytes)")
    }
}

/// The link fields both `create` and `update` take.
struct LinkFields {
    var appPath: String?
    var metadata: [String: JSONLiteral]?
    var destinations: LinkDestinations
    var hasDestinations: Bool
    var campaign: String?, channel: String?, feature: String?
    var preview: LinkPreview?
    var interstitial: Bool?, passQuery: Bool?, inAppBrowserPage: Bool?
    var expiresAt: String?
    var routing: LinkRoutingOptions
    var rules: [LinkRule]? { routing.rules }
    var variants: [LinkVariant]? { routing.variants }
    var startsAt: String? { routing.startsAt }
    var clickLimit: Int? { routing.clickLimit }
    var changesGroups: Bool { routing.fallbacks != LinkFallbacks() || routing.utm != LinkUTM() }
    func fallbacks(over current: LinkFallbacks?) -> LinkFallbacks? { routing.fallbacks(over: current) }
    func utm(over current: LinkUTM?) -> LinkUTM? { routing.utm(over: current) }

    init(_ a: ParsedArguments) throws {
        appPath = a.value("--app-path")
        if let text = a.value("--metadata") {
            guard let object = try? JSONDecoder().decode([String: JSONLiteral].self, from: Data(text.utf8)) else {
                throw UsageError("--metadata must be a JSON object")
            }
            metadata = object
        }
        let ios = a.value("--ios-app-store-id") != nil || a.value("--ios-url") != nil
            ? LinkDestinations.IOS(appStoreId: a.value("--ios-app-store-id"), url: a.value("--ios-url")) : nil
        destinations = LinkDestinations(ios: ios, android: a.value("--android-url").map(LinkDestinations.Android.init(url:)), web: a.value("--web"))
        hasDestinations = ios != nil || destinations.android != nil || destinations.web != nil
        campaign = a.value("--campaign")
        channel = a.value("--channel")
        feature = a.value("--feature")
        let title = a.value("--preview-title"), description = a.value("--preview-description"), image = a.value("--preview-image")
        preview = title != nil || description != nil || image != nil ? LinkPreview(title: title, description: description, imageUrl: image) : nil
        interstitial = try Self.onOff(a, "--interstitial")
        passQuery = try Self.onOff(a, "--pass-query")
        inAppBrowserPage = try Self.onOff(a, "--in-app-browser-page")
        expiresAt = a.value("--expires").map(CLITime.endOfDayOrTime)
        routing = try LinkRoutingOptions(a)
    }

    static func onOff(_ a: ParsedArguments, _ option: String) throws -> Bool? {
        guard let value = a.value(option) else { return nil }
        switch value {
        case "on", "true", "yes": return true
        case "off", "false", "no": return false
        default: throw UsageError("\(option) must be on or off")
        }
    }
}
