import LinkRunwayAPI
import RunwayHTTP
import RunwayKit

/// What the OpenAPI document says about each workspace, app, key and console-user route.
extension Operation {
    static let createWorkspace = Operation(
        id: "createWorkspace", summary: "Create a workspace", tag: "Workspaces", access: Access.admin,
        requestSchema: .of(CreateWorkspaceRequest.self), responses: [.json(201, Workspace.self, "The new workspace.")],
        maxBodyBytes: 16 * 1024, idempotent: true)

    static let listWorkspaces = Operation(
        id: "listWorkspaces", summary: "List workspaces (a server key sees its own)", tag: "Workspaces",
        access: Access.management, responses: [.json(200, Page<Workspace>.self, "A page of workspaces.")],
        query: pageQuery)

    static let getWorkspace = Operation(
        id: "getWorkspace", summary: "Show a workspace", tag: "Workspaces", access: Access.management,
        responses: [.json(200, Workspace.self, "The workspace.")])

    static let createApp = Operation(
        id: "createApp", summary: "Register an app", tag: "Apps", access: Access.management,
        requestSchema: .of(CreateAppRequest.self), responses: [.json(201, App.self, "The new app.")],
        maxBodyBytes: 16 * 1024, errors: [409], idempotent: true)

    static let listApps = Operation(
        id: "listApps", summary: "List apps", tag: "Apps", access: Access.management,
        responses: [.json(200, Page<App>.self, "A page of apps, oldest first.")],
        query: [QueryParameterDoc("workspaceId", "Only this workspace's apps (a server key always sees only its own).")] + pageQuery, errors: [404])

    static let getApp = Operation(
        id: "getApp", summary: "Show an app", tag: "Apps", access: Access.management,
        responses: [.json(200, App.self, "The app.")])

    static let updateApp = Operation(
        id: "updateApp", summary: "Change an app's fields", tag: "Apps", access: Access.management,
        requestSchema: .of(UpdateAppRequest.self), responses: [.json(200, App.self, "The app as changed.")],
        maxBodyBytes: 16 * 1024, errors: [409], idempotent: true)

    static let getAppStoreId = Operation(
        id: "getAppStoreId", summary: "Show whether the app has proven its App Store id, which postbacks are routed by", tag: "Apps",
        access: Access.management, responses: [.json(200, AppStoreIdStatus.self, "The App Store id and its proof.")])

    static let proveAppStoreId = Operation(
        id: "proveAppStoreId", summary: "Assert the app's App Store id as an admin, moving its unrouted postbacks to the app",
        tag: "Apps", access: Access.admin, responses: [.json(200, AppStoreIdStatus.self, "The App Store id, now proven.")],
        errors: [409])

    static let createKey = Operation(
        id: "createKey", summary: "Create an API key; its secret is in this response only", tag: "Keys",
        access: Access.management, requestSchema: .of(CreateKeyRequest.self),
        responses: [.json(201, CreatedKey.self, "The key and its secret.")], maxBodyBytes: 16 * 1024)

    static let listKeys = Operation(
        id: "listKeys", summary: "List API keys (never their secrets)", tag: "Keys", access: Access.management,
        responses: [.json(200, Page<APIKey>.self, "A page of keys, oldest first.")],
        query: [QueryParameterDoc("workspaceId", "Only this workspace's keys."),
                QueryParameterDoc("appId", "Only this app's publishable keys.")] + pageQuery, errors: [404])

    static let getKey = Operation(
        id: "getKey", summary: "Show an API key (never its secret)", tag: "Keys", access: Access.management,
        responses: [.json(200, APIKey.self, "The key.")])

    static let revokeKey = Operation(
        id: "revokeKey", summary: "Revoke an API key at once (idempotent), with the keys and console users it made (and what those made), except the caller's own key",
        tag: "Keys", access: Access.management,
        responses: [.json(200, APIKey.self, "The revoked key.")], errors: [409], idempotent: true)

    static let whoAmI = Operation(
        id: "whoAmI", summary: "Describe the key making the call", tag: "Keys", access: Access.anyKey,
        responses: [.json(200, WhoAmI.self, "The key's id, kind and scope.")])

    static let createUser = Operation(
        id: "createUser", summary: "Add a console user with a password (stored only as a PBKDF2 hash)", tag: "Users",
        access: Access.management, requestSchema: .of(CreateConsoleUserRequest.self),
        responses: [.json(201, ConsoleUser.self, "The user.")], maxBodyBytes: 8 * 1024, errors: [409])

    static let listUsers = Operation(
        id: "listUsers", summary: "List console users (never their password hashes)", tag: "Users", access: Access.management,
        responses: [.json(200, Page<ConsoleUser>.self, "A page of users.")],
        query: [QueryParameterDoc("workspaceId", "Only this workspace's.")] + pageQuery, errors: [404])

    static let deleteUser = Operation(
        id: "deleteUser", summary: "Remove a console user: their sessions end, and the keys and console users they made (and what those made) go at once",
        tag: "Users", access: Access.management,
        responses: [ResponseDoc(status: 204, description: "Removed.")])
}
