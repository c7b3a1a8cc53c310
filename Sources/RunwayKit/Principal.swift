import LinkRunwayAPI
import RunwayHTTP

/// Who is calling: the authenticated key's id, kind and scope.
public struct Principal: Sendable, Equatable {
    public let keyId: String
    public let kind: KeyKind
    /// Nil for admin keys.
    public let workspaceId: String?
    /// Set for publishable keys.
    public let appId: String?

    package init(keyId: String, kind: KeyKind, workspaceId: String?, appId: String?) {
        self.keyId = keyId
        self.kind = kind
        self.workspaceId = workspaceId
        self.appId = appId
    }

    /// The workspace a request acts in: the one it names, else the key's own (an admin key must name one), and one
    /// this key may reach. `inQuery` says the name comes from the query string rather than the body.
    public func actingWorkspace(_ requested: String?, inQuery: Bool = false) throws -> String {
        guard let workspaceId = requested ?? self.workspaceId else {
            let message = "workspaceId is required with an admin key"
            throw inQuery ? RequestError.invalidQuery(message, field: "workspaceId") : RequestError.missingField(message, field: "workspaceId")
        }
        try requireWorkspace(workspaceId)
        return workspaceId
    }

    /// Throws 403 unless this key may reach data of `workspaceId`.
    public func requireWorkspace(_ workspaceId: String) throws {
        guard kind == .admin || self.workspaceId == workspaceId else {
            throw AccessError.workspaceForbidden("this key belongs to another workspace")
        }
    }

    /// Throws 403 unless this key may reach data of the app (publishable keys reach only their own app).
    public func requireApp(_ appId: String, workspaceId: String) throws {
        try requireWorkspace(workspaceId)
        if kind == .publishable, self.appId != appId {
            throw AccessError.otherApp
        }
    }
}

/// Where the auth middleware leaves the principal for handlers.
public enum PrincipalKey: RequestContextKey {
    public typealias Value = Principal
}

extension RequestContext {
    /// The authenticated caller; a route declared with keys always has one.
    public func principal() throws -> Principal {
        guard let principal = self[PrincipalKey.self] else {
            throw AccessError.missingKey
        }
        return principal
    }
}
