import LinkRunwayAPI

/// `workspace`, `app` and `key` commands, through the API of a running server.
enum TenancyCommands {
    static let jsonFlag = OptionSpec.flag("--json", "Print JSON instead of a table.")

    static let workspaceCreate: Command = Command(["workspace", "create"], summary: "Create a workspace (admin key).",
                                         options: [.required("--name", "name", "Workspace name."), jsonFlag] + APIClient.options) { a, c in
        let client = try APIClient(a, c)
        let workspace = try await client.post("/v1/workspaces", CreateWorkspaceRequest(name: try a.required("--name")), as: Workspace.self)
        c.output(a.flag("--json") ? try Output.json(workspace) : "Created workspace \(workspace.id) \"\(workspace.name)\"")
    }

    static let workspaceList: Command = Command(["workspace", "list"], summary: "List workspaces.", options: [jsonFlag] + APIClient.options) { a, c in
        let workspaces = try await APIClient(a, c).all("/v1/workspaces", as: Workspace.self)
        c.output(a.flag("--json") ? try Output.json(workspaces)
                 : Output.table(["ID", "NAME", "CREATED"], workspaces.map { [$0.id, $0.name, $0.createdAt] }))
    }

    static let appCreate: Command = Command(["app", "create"], summary: "Register an app.", options: [
        .required("--name", "name", "App name."),
        .required("--team-id", "id", "Apple Developer Team ID (10 characters)."),
        .required("--bundle-id", "id", "Bundle ID, e.g. com.example.app."),
        .value("--app-store-id", "id", "Numeric App Store ID, once there is one."),
        .value("--platforms", "list", "Comma-separated: ios, tvos, macos, visionos (default ios)."),
        .value("--workspace", "id", "Workspace (default $LINKRUNWAY_WORKSPACE, else the only one the key sees)."),
        jsonFlag,
    ] + APIClient.options) { a, c in
        let platforms = try a.value("--platforms").map { list in
            try list.split(separator: ",").map { raw -> Platform in
                guard let platform = Platform(rawValue: raw.trimmingCharacters(in: .whitespaces)) else {
                    throw UsageError("unknown platform \(raw)")
                }
                return platform
            }
        }
        let client = try APIClient(a, c)
        let request = CreateAppRequest(workspaceId: try await client.workspace(a, c), name: try a.required("--name"),
                                       teamId: try a.required("--team-id"), bundleId: try a.required("--bundle-id"),
                                       appStoreId: a.value("--app-store-id"), platforms: platforms)
        let app = try await client.post("/v1/apps", request, as: App.self)
        c.output(a.flag("--json") ? try Output.json(app) : "Created app \(app.id) \(app.teamId).\(app.bundleId)")
    }

    static let appList: Command = Command(["app", "list"], summary: "List apps.",
                                 options: [.value("--workspace", "id", "Only this workspace's apps."), jsonFlag] + APIClient.options) { a, c in
        let path = "/v1/apps" + (a.value("--workspace").map { "?workspaceId=\(APIClient.escape($0))" } ?? "")
        let apps = try await APIClient(a, c).all(path, as: App.self)
        c.output(a.flag("--json") ? try Output.json(apps) : Output.table(
            ["ID", "NAME", "TEAM", "BUNDLE", "APP STORE", "PLATFORMS"],
            apps.map { [$0.id, $0.name, $0.teamId, $0.bundleId, $0.appStoreId ?? "-", $0.platforms.map(\.rawValue).joined(separator: ",")] }))
    }

    static let appShow: Command = Command(["app", "show"], summary: "Show an app.", arguments: "<app-id>",
                                 options: [jsonFlag] + APIClient.options) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give exactly one app id") }
        let app = try await APIClient(a, c).get("/v1/apps/\(APIClient.escape(a.positionals[0]))", as: App.self)
        c.output(a.flag("--json") ? try Output.json(app) : Output.table(["FIELD", "VALUE"], [
            ["id", app.id], ["workspace", app.workspaceId], ["name", app.name], ["team", app.teamId], ["bundle", app.bundleId],
            ["app store", app.appStoreId ?? "-"], ["platforms", app.platforms.map(\.rawValue).joined(separator: ",")],
            ["created", app.createdAt], ["updated", app.updatedAt],
        ]))
    }

    static let appUpdate: Command = Command(["app", "update"], summary: "Change an app, including how its installs are matched.", arguments: "<app-id>", options: [
        .value("--name", "name", "App name."), .value("--app-store-id", "id", "Numeric App Store ID."),
        .value("--probabilistic-minutes", "n", "Match installs to clicks from the same hashed address within n minutes (0 turns it off)."),
        .value("--view-through-hours", "n", "Match installs to ad impressions from the same hashed address within n hours (0 turns it off)."),
        .value("--click-window-days", "n", "Days a click token stays matchable (1 to 30)."),
        .value("--attestation-policy", "policy", "App Attest: off, optional (mark attested traffic) or required (keep the rest out of attribution)."),
        .value("--attestation-environments", "list", "App Attest environments accepted: development, production or development,production."),
        .value("--attestation-builds", "builds", "Builds that may attest: any, store (App Store or TestFlight where iOS 27 says which) or store_only."),
        jsonFlag,
    ] + APIClient.options) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give exactly one app id") }
        let changes = ["--name", "--app-store-id", "--probabilistic-minutes", "--view-through-hours", "--click-window-days",
                       "--attestation-policy", "--attestation-environments", "--attestation-builds"]
        guard changes.contains(where: { a.value($0) != nil }) else {
            throw UsageError("nothing to change: give at least one of \(changes.joined(separator: ", "))")
        }
        let path = "/v1/apps/\(APIClient.escape(a.positionals[0]))"
        func number(_ option: String) throws -> Int? {
            guard let text = a.value(option) else { return nil }
            guard let n = Int(text) else { throw UsageError("\(option) must be a whole number") }
            return n
        }
        let attribution = AttributionSettingsUpdate(probabilisticMinutes: try number("--probabilistic-minutes"),
                                                    viewThroughHours: try number("--view-through-hours"),
                                                    clickWindowDays: try number("--click-window-days"))
        var attestation: AttestationSettings?
        let policy = a.value("--attestation-policy")
        let environments = a.value("--attestation-environments").map { $0.split(separator: ",").map(String.init) }
        let builds = a.value("--attestation-builds")
        if policy != nil || environments != nil || builds != nil {
            // The server takes policy and environments together; the one not given stays as it is, and so do the builds.
            let current = try await APIClient(a, c).get(path, as: App.self).attestation
            attestation = AttestationSettings(policy: policy ?? current.policy, environments: environments ?? current.environments, builds: builds)
        }
        let request = UpdateAppRequest(name: a.value("--name"), appStoreId: a.value("--app-store-id"),
                                       attribution: attribution == AttributionSettingsUpdate() ? nil : attribution, attestation: attestation)
        let app = try await APIClient(a, c).send("PATCH", path, request, as: App.self)
        c.output(a.flag("--json") ? try Output.json(app)
                 : "Updated \(app.id): probabilistic \(app.attribution.probabilisticMinutes) min, view-through \(app.attribution.viewThroughHours) h, "
                   + "clicks \(app.attribution.clickWindowDays) days, App Attest \(app.attestation.policy) (\(app.attestation.environments.joined(separator: ", "))), "
                   + "builds \(app.attestation.builds ?? "any")")
    }

    static let keyCreate: Command = Command(["key", "create"], summary: "Create an API key; its secret is printed once.", options: [
        .required("--kind", "kind", "publishable, server or admin."),
        .value("--name", "name", "A name to recognise it by."),
        .value("--workspace", "id", "Workspace of a server key (required with an admin key)."),
        .value("--app", "id", "App of a publishable key."),
        jsonFlag,
    ] + APIClient.options) { a, c in
        guard let kind = KeyKind(rawValue: try a.required("--kind")) else { throw UsageError("--kind must be publishable, server or admin") }
        let request = CreateKeyRequest(kind: kind, name: a.value("--name"), workspaceId: a.value("--workspace"), appId: a.value("--app"))
        let created = try await APIClient(a, c).post("/v1/keys", request, as: CreatedKey.self)
        c.output(a.flag("--json") ? try Output.json(created)
                 : "Created \(kind.rawValue) key \(created.key.id). Its secret is shown only now:\n\n    \(created.secret)\n")
    }

    static let keyList: Command = Command(["key", "list"], summary: "List API keys (never their secrets).", options: [
        .value("--workspace", "id", "Only this workspace's keys."), .value("--app", "id", "Only this app's keys."), jsonFlag,
    ] + APIClient.options) { a, c in
        var query: [String] = []
        if let w = a.value("--workspace") { query.append("workspaceId=\(APIClient.escape(w))") }
        if let app = a.value("--app") { query.append("appId=\(APIClient.escape(app))") }
        let keys = try await APIClient(a, c).all("/v1/keys" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")), as: APIKey.self)
        c.output(a.flag("--json") ? try Output.json(keys) : Output.table(
            ["ID", "KIND", "NAME", "WORKSPACE", "APP", "PREFIX", "REVOKED"],
            keys.map { [$0.id, $0.kind.rawValue, $0.name, $0.workspaceId ?? "-", $0.appId ?? "-", $0.displayPrefix, $0.revokedAt ?? "-"] }))
    }

    static let keyRevoke: Command = Command(["key", "revoke"], summary: "Revoke an API key at once.", arguments: "<key-id>",
                                   options: [jsonFlag] + APIClient.options) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give exactly one key id") }
        let key = try await APIClient(a, c).post("/v1/keys/\(APIClient.escape(a.positionals[0]))/revoke", EmptyBody(), as: APIKey.self)
        c.output(a.flag("--json") ? try Output.json(key) : "Revoked \(key.id) at \(key.revokedAt ?? "-")")
    }
}

struct EmptyBody: Codable {}
