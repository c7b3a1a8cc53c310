import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayStore

/// `/v1/users`: the people who sign in to the console with a password, one workspace each.
enum UserRoutes {
    static let columns = "id, workspace_id, email, created_at"

    static func user(_ row: SQLRow) throws -> ConsoleUser {
        ConsoleUser(id: try row.string("id"), workspaceId: try row.string("workspace_id"), email: try row.string("email"),
                    createdAt: Timestamp.iso(try row.int("created_at")))
    }

    /// Lower-cased, one `@`, no spaces, at most 254 characters.
    static func validEmail(_ text: String) throws -> String {
        let email = text.trimmingCharacters(in: .whitespaces).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."),
              !email.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw HTTPError.invalidField("email", "must be an email address")
        }
        return email
    }

    static func routes(_ services: ServerServices) -> [Route] {
        [
            Route(method: .POST, pattern: "/v1/users", operation: Operation(
                id: "createUser", summary: "Add a console user with a password (stored only as a PBKDF2 hash)", tag: "Users",
                access: Access.management, requestSchema: "CreateConsoleUserRequest",
                responses: [.json(201, "ConsoleUser", "The user.")], maxBodyBytes: 8 * 1024, errors: [409])
            ) { request, context in
                let principal = try context.principal()
                let body = try request.decode(CreateConsoleUserRequest.self)
                guard let workspaceId = body.workspaceId ?? principal.workspaceId else {
                    throw HTTPError.badRequest(ErrorCode.missingField, "workspaceId is required with an admin key", field: "workspaceId")
                }
                try principal.requireWorkspace(workspaceId)
                let email = try validEmail(body.email)
                guard (Passwords.minimumLength...Passwords.maximumLength).contains(body.password.count) else {
                    throw HTTPError.invalidField("password", "must be \(Passwords.minimumLength) to \(Passwords.maximumLength) characters")
                }
                let password = body.password
                guard let hash = await services.passwords.run({ Passwords.hash(password) }) else {
                    throw HTTPError(status: 503, code: ErrorCode.storeUnavailable, message: "password hashing is busy; retry in a second",
                                    headers: ["Retry-After": "1"])
                }
                let now = services.clock.nowMilliseconds()
                let user = ConsoleUser(id: Identifier.make("usr"), workspaceId: workspaceId, email: email, createdAt: Timestamp.iso(now))
                do {
                    try await services.store.write { db in
                        try db.execute("""
                            INSERT INTO console_users (id, workspace_id, email, password_hash, created_at)
                            VALUES (\(user.id), \(workspaceId), \(email), \(hash), \(now))
                            """)
                    }
                } catch StoreError.conflict {
                    throw HTTPError.conflict(ErrorCode.emailTaken, "\(email) already has a console user")
                } catch StoreError.constraint {
                    throw HTTPError.invalidField("workspaceId", "no workspace has this id")
                }
                return try .json(user, status: 201)
            },

            Route(method: .GET, pattern: "/v1/users", operation: Operation(
                id: "listUsers", summary: "List console users (never their password hashes)", tag: "Users", access: Access.management,
                responses: [.json(200, "ConsoleUserPage", "A page of users.")],
                query: [QueryParameterDoc("workspaceId", "Only this workspace's.")] + pageQuery)
            ) { request, context in
                let principal = try context.principal()
                let page = try PageRequest(request)
                let filter = try principal.workspaceFilter(request)
                return try .json(await readPage(services.store, table: "console_users", columns: columns, filter: filter, page: page,
                                                row: user, id: \.id))
            },

            Route(method: .DELETE, pattern: "/v1/users/{userId}", operation: Operation(
                id: "deleteUser", summary: "Remove a console user: their sessions end and the keys they made (and the keys those made) are revoked at once",
                tag: "Users", access: Access.management,
                responses: [ResponseDoc(status: 204, description: "Removed.")])
            ) { _, context in
                let principal = try context.principal()
                let id = try context.parameter("userId")
                let now = services.clock.nowMilliseconds()
                let revoked = try await services.store.write { db -> [String] in
                    guard let row = try db.first("SELECT workspace_id FROM console_users WHERE id = \(id)") else {
                        throw HTTPError.notFound(ErrorCode.notFound, "no user \(id)")
                    }
                    try principal.requireWorkspace(try row.string("workspace_id"))
                    try db.execute("DELETE FROM console_sessions WHERE user_id = \(id)")
                    try db.execute("DELETE FROM console_users WHERE id = \(id)")
                    return try TenancyQueries.revokeKeys(madeBy: id, db, now: now)
                }
                for key in revoked { services.authenticator.forget(keyId: key) }
                return HTTPResponse(status: 204)
            },
        ]
    }
}
