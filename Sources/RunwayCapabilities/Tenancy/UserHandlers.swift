import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// `/v1/users`: the people who sign in to the console with a password, one workspace each.
struct UserHandlers: Sendable {
    let services: ServerServices

    /// Lower-cased, one `@`, no spaces, at most 254 characters.
    static func validEmail(_ text: String) throws -> String {
        let email = text.trimmingCharacters(in: .whitespaces).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."),
              !email.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw RequestError.invalidField("email", "must be an email address")
        }
        return email
    }

    func create(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let body = try request.decode(CreateConsoleUserRequest.self)
        let workspaceId = try principal.actingWorkspace(body.workspaceId)
        let email = try Self.validEmail(body.email)
        guard (Passwords.minimumLength...Passwords.maximumLength).contains(body.password.count) else {
            throw RequestError.invalidField("password", "must be \(Passwords.minimumLength) to \(Passwords.maximumLength) characters")
        }
        let password = body.password
        guard let hash = await services.passwords.run({ Passwords.hash(password) }) else {
            throw TenancyError.passwordHashingBusy
        }
        let now = services.clock.nowMilliseconds()
        let user = ConsoleUser(id: Identifier.make("usr"), workspaceId: workspaceId, email: email, createdAt: Timestamp.iso(now))
        do {
            try await services.store.write { db in try TenancyQueries.insertUser(db, user, passwordHash: hash, createdBy: principal.keyId, now: now) }
        } catch StoreError.conflict {
            throw TenancyError.emailTaken(email)
        } catch StoreError.constraint {
            throw RequestError.invalidField("workspaceId", "no workspace has this id")
        }
        return try .json(user, status: 201)
    }

    func list(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let page = try PageRequest(request)
        let filter = try await principal.workspaceFilter(request, in: services.store)
        return try .json(await readPage(services.store, table: "console_users", columns: TenancyRows.userColumns, filter: filter,
                                        page: page, as: TenancyRows.UserRow.self, wire: \.wire, id: \.id))
    }

    func delete(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let id = try context.parameter("userId")
        let now = services.clock.nowMilliseconds()
        let gone = try await services.store.write { db -> TenancyQueries.Offboarded in
            guard let workspaceId = try TenancyQueries.userWorkspace(db, id: id) else {
                throw RequestError.notFound("no user \(id)")
            }
            try principal.requireWorkspace(workspaceId)
            try TenancyQueries.deleteUser(db, id: id)
            return try TenancyQueries.offboard(madeBy: id, sparing: principal.keyId, db, now: now)
        }
        for key in gone.keys { services.authenticator.forget(keyId: key) }
        return HTTPResponse(status: 204)
    }
}
