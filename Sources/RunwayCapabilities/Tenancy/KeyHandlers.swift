import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// `/v1/keys`: create (the secret is shown once), list, show and revoke API keys; `/v1/me` says what a key is.
struct KeyHandlers: Sendable {
    let services: ServerServices

    func create(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let body = try request.decode(CreateKeyRequest.self)
        let name = try body.name.map { try Validate.name($0) } ?? "\(body.kind.rawValue) key"
        let secret = APIKeySecret.generate(kind: body.kind)
        let now = services.clock.nowMilliseconds()
        let key: APIKey = try await services.store.write { db in
            let (workspaceId, appId) = try Self.scope(of: body, for: principal, db: db)
            return try TenancyQueries.insertKey(db, secret: secret, name: name, workspaceId: workspaceId, appId: appId,
                                                createdBy: principal.keyId, now: now)
        }
        return try .json(CreatedKey(key: key, secret: secret.text), status: 201)
    }

    func list(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let page = try PageRequest(request)
        let filter = try await principal.workspaceFilter(request, in: services.store) + TenancyQueries.keysOfApp(request.queryValue("appId"))
        return try .json(await readPage(services.store, table: "api_keys", columns: TenancyRows.keyColumns, filter: filter,
                                        page: page, as: TenancyRows.KeyRow.self, wire: \.wire, id: \.id))
    }

    func get(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let id = try context.parameter("keyId")
        guard let key = try await services.store.read({ db in try TenancyQueries.key(db, id: id) }) else {
            throw RequestError.notFound("no key \(id)")
        }
        try Self.requireReach(principal, to: key)
        return try .json(key)
    }

    func revoke(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let id = try context.parameter("keyId")
        let now = services.clock.nowMilliseconds()
        let (value, response) = try await IdempotencyClaim.write(services.store, context, { db -> (key: APIKey, alsoRevoked: [String]) in
            guard let key = try TenancyQueries.key(db, id: id) else {
                throw RequestError.notFound("no key \(id)")
            }
            try Self.requireReach(principal, to: key)
            if key.revokedAt != nil { return (key, []) }
            if key.kind == .admin {
                // Revocations of admin keys wait here for each other, so two at once cannot leave none.
                try TenancyQueries.lockAdminKeys(db)
                if try TenancyQueries.activeAdminKeys(db, besides: id) == 0 {
                    throw TenancyError.lastAdminKey
                }
            }
            try TenancyQueries.revokeKey(db, id: id, now: now)
            // What it made goes with it: the keys and console users made with this key, and what those made.
            let alsoRevoked = try TenancyQueries.offboard(madeBy: id, sparing: principal.keyId, db, now: now).keys
            var revoked = key
            revoked.revokedAt = Timestamp.iso(now)
            return (revoked, alsoRevoked)
        }, answer: { try HTTPResponse.json($0.key) })
        services.authenticator.forget(keyId: id)
        for key in value.alsoRevoked { services.authenticator.forget(keyId: key) }
        return response
    }

    func whoAmI(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        return try .json(WhoAmI(keyId: principal.keyId, kind: principal.kind, workspaceId: principal.workspaceId,
                                appId: principal.appId))
    }

    /// Decides the workspace and app of a new key from the request and the caller.
    static func scope(of body: CreateKeyRequest, for principal: Principal, db: any SQLExecutor) throws -> (String?, String?) {
        switch body.kind {
        case .admin:
            guard principal.kind == .admin else {
                throw AccessError.keyKindForbidden("only an admin key can create admin keys")
            }
            if body.workspaceId != nil { throw RequestError.invalidField("workspaceId", "admin keys reach every workspace; omit it") }
            if body.appId != nil { throw RequestError.invalidField("appId", "admin keys are not tied to an app; omit it") }
            return (nil, nil)
        case .server:
            if body.appId != nil { throw RequestError.invalidField("appId", "server keys are not tied to an app; omit it") }
            let workspaceId = try principal.actingWorkspace(body.workspaceId)
            guard try TenancyQueries.workspace(db, id: workspaceId) != nil else {
                throw RequestError.invalidField("workspaceId", "no workspace has this id")
            }
            return (workspaceId, nil)
        case .publishable:
            guard let appId = body.appId else {
                throw RequestError.missingField("appId is required for a publishable key", field: "appId")
            }
            guard let app = try TenancyQueries.app(db, id: appId) else {
                throw RequestError.invalidField("appId", "no app has this id")
            }
            try principal.requireWorkspace(app.workspaceId)
            if let workspaceId = body.workspaceId, workspaceId != app.workspaceId {
                throw RequestError.invalidField("workspaceId", "the app belongs to another workspace")
            }
            return (app.workspaceId, app.id)
        }
    }

    /// Server keys reach their workspace's keys; only admin keys reach admin keys.
    static func requireReach(_ principal: Principal, to key: APIKey) throws {
        if let workspaceId = key.workspaceId {
            try principal.requireWorkspace(workspaceId)
        } else if principal.kind != .admin {
            throw AccessError.workspaceForbidden("only admin keys can see admin keys")
        }
    }
}
