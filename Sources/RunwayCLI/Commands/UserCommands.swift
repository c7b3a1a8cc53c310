import Foundation
import LinkRunwayAPI
import RunwayCrypto

/// `user` commands: the people who sign in to the console with a password.
enum UserCommands {
    static let create: Command = Command(["user", "create"], summary: "Add a console user; without --password-stdin a password is made and printed once.", options: [
        .required("--email", "address", "What they sign in with."),
        .value("--workspace", "id", "The one workspace they see (default $LINKRUNWAY_WORKSPACE, else the only one the key sees)."),
        .flag("--password-stdin", "Read the password (12 characters or more) from the first line of standard input."),
        TenancyCommands.jsonFlag,
    ] + APIClient.options) { a, c in
        let password: String
        let made: Bool
        if a.flag("--password-stdin") {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else { throw UsageError("no password on standard input") }
            (password, made) = (line, false)
        } else {
            (password, made) = (SecureRandom.string(length: 20, alphabet: SecureRandom.base62), true)
        }
        let client = try APIClient(a, c)
        let user = try await client.post("/v1/users", CreateConsoleUserRequest(workspaceId: try await client.workspace(a, c),
                                                                               email: try a.required("--email"), password: password), as: ConsoleUser.self)
        if a.flag("--json") {
            c.output(try Output.json(user))
        } else {
            c.output("Created console user \(user.id) \(user.email) in \(user.workspaceId)."
                     + (made ? " Their password is shown only now:\n\n    \(password)\n" : ""))
        }
    }

    static let list: Command = Command(["user", "list"], summary: "List console users.", options: [
        .value("--workspace", "id", "Only this workspace's."), TenancyCommands.jsonFlag,
    ] + APIClient.options) { a, c in
        let path = "/v1/users" + (a.value("--workspace").map { "?workspaceId=\(APIClient.escape($0))" } ?? "")
        let users = try await APIClient(a, c).all(path, as: ConsoleUser.self)
        c.output(a.flag("--json") ? try Output.json(users)
                 : Output.table(["ID", "EMAIL", "WORKSPACE", "CREATED"], users.map { [$0.id, $0.email, $0.workspaceId, $0.createdAt] }))
    }

    static let remove: Command = Command(["user", "remove"], summary: "Remove a console user and end their sessions.", arguments: "<user-id>",
                                options: APIClient.options) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give exactly one user id") }
        try await APIClient(a, c).delete("/v1/users/\(APIClient.escape(a.positionals[0]))")
        c.output("Removed \(a.positionals[0])")
    }
}
